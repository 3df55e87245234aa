// SPDX-License-Identifier: MIT
#include "transport/stage.hpp"

#include <cstring>

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

namespace dfft::detail {

Stager::Stager(const ExchangeSpec& s, StageUse use, Device& dev) : b_(s), dev_(dev) {
  if (use != StageUse::uniform) return;
  for (int k = 0; k < b_.size(); ++k) {
    if (k == s.me) continue;
    if (b_.any_pack) b_.direct_send[k] = false;
    if (b_.any_unpack) b_.direct_recv[k] = false;
  }
}

const char* Stager::send_ptr(int k, const void* src) const {
  return staged_send(k) ? send_area() + b_.stage_send_off[k]
                        : static_cast<const char*>(src) + b_.src_offset[k];
}

char* Stager::recv_ptr(int k, void* dst) const {
  return staged_recv(k) ? recv_area() + b_.stage_recv_off[k] : static_cast<char*>(dst) + b_.dst_offset[k];
}

const char* Stager::send_base(const void* src) const {
  return all_staged_ || b_.any_pack ? send_area() : static_cast<const char*>(src);
}

char* Stager::recv_base(void* dst) const {
  return all_staged_ || b_.any_unpack ? recv_area() : static_cast<char*>(dst);
}

namespace {

// Elements from a layout's first element to its last: the whole array, or for a slice view
// (overlap) only the part of the parent array the view covers.
std::int64_t span(const Layout& l) {
  if (l.box.empty()) return 0;
  std::vector<std::int64_t> last(l.box.hi);
  for (auto& v : last) --v;
  return l.offset_of(last) + 1;
}

}  // namespace

Stager::Whole Stager::whole() const {
  const auto& s = b_.spec;
  const auto& d = s.dst[s.me];
  return {static_cast<std::size_t>(span(s.src[s.me])) * s.elem, static_cast<std::size_t>(span(d)) * s.elem,
          span(d) != d.box.count()};
}

const void* Stager::whole_out(const void* src) {
  fence();  // MPI reads src, or its image
  if (!all_staged_) return src;
  dev_.download(send_area(), src, whole().in);
  return send_area();
}

void Stager::whole_in(void* dst) {
  if (!all_staged_) return;
  const Whole w = whole();
  if (!w.gaps) return dev_.upload(dst, recv_area(), w.out);
  const Layout& d = b_.spec.dst[b_.spec.me];
  dev_.upload(device_recv_area(), recv_area(), w.out);
  dev_.copy_box(device_recv_area(), d, dst, d, d.box, b_.spec.elem);
}

namespace {

// Host memory: MPI reads the blocks where they lie or from the packed staging buffers, and
// every step is done when its call returns.
class HostStager final : public Stager {
 public:
  HostStager(const ExchangeSpec& s, Device& dev, StageUse use) : Stager(s, use, dev) {
    if (use == StageUse::whole) return;
    if (b_.any_pack) send_ = Buffer(dev, static_cast<std::size_t>(b_.stage_send_bytes));
    if (b_.any_unpack) recv_ = Buffer(dev, static_cast<std::size_t>(b_.stage_recv_bytes));
  }

  void pack(int k, const void* src) override {
    if (!b_.direct_send[k]) pack_block(dev_, b_, k, src, send_.get());
  }
  void unpack(int k, void* dst) override {
    if (!b_.direct_recv[k]) unpack_block(dev_, b_, k, recv_.get(), dst);
  }
  void copy_self(const void* src, void* dst) override { detail::copy_self(dev_, b_, src, dst); }
  char* wire(std::size_t bytes) override {
    wires_.emplace_back(dev_, bytes);
    return static_cast<char*>(wires_.back().get());
  }
  void pack_at(int k, const void* src, char* out) override { pack_block_at(dev_, b_, k, src, out); }
  void unpack_at(int k, const char* in, void* dst) override { unpack_block_at(dev_, b_, k, in, dst); }
  void wire_copy(char* to, const char* from, std::int64_t len) override {
    std::memcpy(to, from, static_cast<std::size_t>(len));
  }

 private:
  char* send_area() const override { return static_cast<char*>(send_.get()); }
  char* recv_area() const override { return static_cast<char*>(recv_.get()); }

  Buffer send_, recv_;
  std::vector<Buffer> wires_;
};

}  // namespace

std::unique_ptr<Stager> make_host_stager(const ExchangeSpec& s, Device& dev, StageUse use) {
  return std::make_unique<HostStager>(s, dev, use);
}

bool mpi_is_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

bool use_cuda_aware(Staging s) {
  if (s == Staging::host) return false;
  const bool aware = mpi_is_cuda_aware();
  if (s == Staging::cuda_aware && !aware)
    unsupported("staging cuda-aware needs an MPI built with CUDA support, but this MPI reports none ",
                "(MPIX_Query_cuda_support); use staging host or auto");
  return aware;
}

void require_thread_multiple(const char* method) {
  int provided = MPI_THREAD_SINGLE;
  DFFT_MPI(MPI_Query_thread(&provided));
  if (provided < MPI_THREAD_MULTIPLE)
    unsupported(method, " sends from a second thread and needs MPI initialised with ",
                "MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...); this process has thread level ", provided,
                " (MPI_THREAD_MULTIPLE = ", MPI_THREAD_MULTIPLE, ")");
}

std::unique_ptr<Stager> Device::make_stager(const ExchangeSpec& s, StageUse use) {
  return make_host_stager(s, *this, use);
}

}  // namespace dfft::detail
