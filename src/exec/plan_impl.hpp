// The executor: owns communicators, device, workspace, local FFT plans and transports, and runs
// the path's steps in order (forward) or in reverse (inverse), timing each phase.
#pragma once

#include <mpi.h>

#include <memory>
#include <vector>

#include "backend/device.hpp"
#include "dfft/types.hpp"
#include "plan/path.hpp"
#include "transport/transport.hpp"

namespace dfft {

class PlanImpl {
 public:
  /// user_in/user_out: this rank's layouts from the box API (both or neither).
  PlanImpl(MPI_Comm comm, const std::vector<std::int64_t>& shape, const Options& opt,
           bool is_double, const Layout* user_in = nullptr, const Layout* user_out = nullptr);
  ~PlanImpl();
  PlanImpl(const PlanImpl&) = delete;
  PlanImpl& operator=(const PlanImpl&) = delete;

  void forward(const void* in, void* out);
  void inverse(const void* in, void* out);

  const std::vector<std::int64_t>& shape() const { return shape_; }
  const detail::Path& path() const { return path_; }
  const Options& options() const { return opt_; }
  const std::vector<StageTiming>& timings() const { return timings_; }
  std::vector<std::int64_t> exchange_bytes() const;
  std::string describe() const;
  int device() const { return dev_->ordinal(); }
  Codec codec() const { return codec_; }
  bool is_double() const { return is_double_; }
  detail::Device& dev() const { return *dev_; }

 private:
  struct StepExec {
    std::unique_ptr<detail::LocalFft> fwd_fft, inv_fft;
    std::unique_ptr<detail::Transport> fwd_x, inv_x;
    Method method = Method::a2a_sync;
  };
  std::vector<Layout> allgather_layout(const Layout& l, int d) const;
  void check_same_everywhere(const std::vector<std::int64_t>& shape) const;
  void build_steps();
  void* buffer_after(std::size_t k, std::size_t nsteps, void* out);

  MPI_Comm comm_ = MPI_COMM_NULL;
  std::vector<MPI_Comm> sub_;  // one per grid dimension
  std::vector<std::int64_t> shape_;
  Options opt_;
  bool is_double_;
  int rank_ = 0, size_ = 1;
  detail::Path path_;
  std::unique_ptr<detail::Device> dev_;
  detail::Buffer a_, b_;
  std::vector<StepExec> exec_;
  std::vector<StageTiming> timings_;
  std::vector<std::string> names_;
  Codec codec_ = Codec::none;  // the wire format in use (forced or chosen by tolerance)
};

}  // namespace dfft
