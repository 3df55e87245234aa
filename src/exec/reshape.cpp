// SPDX-License-Identifier: MIT
#include "dfft/reshape.hpp"

#include <algorithm>

#include "exec/gather.hpp"
#include "plan/geometry.hpp"
#include "plan/path.hpp"
#include "transport/transport.hpp"
#include "util/check.hpp"

namespace dfft {

using namespace detail;

class ReshapeImpl {
 public:
  ReshapeImpl(MPI_Comm comm, const Layout& in, const Layout& out, Method m, std::int64_t limit,
              std::size_t elem, Backend backend, int device) {
    DFFT_MPI(MPI_Comm_dup(comm, &comm_));
    DFFT_MPI(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
    try {
      dev_ = backend == Backend::cuda ? make_cuda_device(comm_, device) : make_cpu_device();
      const int d = common_dims(comm_, in.box.dims());
      ExchangeSpec s;
      s.src = allgather_layouts(comm_, in, d);
      s.dst = allgather_layouts(comm_, out, d);
      DFFT_MPI(MPI_Comm_rank(comm_, &s.me));
      const auto shape = tiled_shape(s.src, "reshape input");
      check_tiling(s.dst, shape, "reshape output");
      bool offsets = false;
      for (const auto* side : {&s.src, &s.dst})
        for (const Layout& l : *side) offsets |= has_offset(l);
      if (offsets && backend == Backend::cuda)
        unsupported("reshape: layouts with an offset (a halo below the box) are a CPU backend option; the CUDA "
                    "backend reads and writes dense or padded arrays only");
      // The transport sees each array from its box's first element; execute() moves the pointers.
      in_start_ = box_start(in) * static_cast<std::int64_t>(elem);
      out_start_ = box_start(out) * static_cast<std::int64_t>(elem);
      for (auto* side : {&s.src, &s.dst})
        for (Layout& l : *side) l = from_box_start(l);
      s.elem = elem;
      s.max_message_bytes = limit;
      t_.name = "reshape[" + to_string(m) + "]";
      x_ = make_transport(m, comm_, s, *dev_);
    } catch (...) {
      x_.reset();
      dev_.reset();  // before the communicator it was made with
      MPI_Comm_free(&comm_);
      throw;
    }
  }
  ~ReshapeImpl() {
    x_.reset();
    dev_.reset();
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin) MPI_Comm_free(&comm_);
  }
  void execute(const void* in, void* out) {
    t_ = StageTiming{t_.name};
    x_->execute(static_cast<const char*>(in) + in_start_, static_cast<char*>(out) + out_start_, t_);
    dev_->synchronize();  // GPU: the result is complete when execute() returns
  }
  const StageTiming& timing() const { return t_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::unique_ptr<Device> dev_;
  std::unique_ptr<Transport> x_;
  StageTiming t_;
  std::int64_t in_start_ = 0, out_start_ = 0;  // bytes from the arrays to their boxes' first elements
};

template <class T>
Reshape<T>::Reshape(MPI_Comm comm, const Layout& in, const Layout& out, Method m, std::int64_t limit,
                    Backend backend, int device)
    : impl_(std::make_unique<ReshapeImpl>(comm, in, out, m, limit, sizeof(T), backend, device)) {}
template <class T>
Reshape<T>::~Reshape() = default;
template <class T>
Reshape<T>::Reshape(Reshape&&) noexcept = default;
template <class T>
Reshape<T>& Reshape<T>::operator=(Reshape&&) noexcept = default;
template <class T>
void Reshape<T>::execute(const T* in, T* out) {
  impl_->execute(in, out);
}
template <class T>
const StageTiming& Reshape<T>::timing() const {
  return impl_->timing();
}

template class Reshape<float>;
template class Reshape<double>;
template class Reshape<std::complex<float>>;
template class Reshape<std::complex<double>>;

}  // namespace dfft
