// SPDX-License-Identifier: MIT
// make_device_transport: the redistribution methods of the CUDA backend.
//
//   method        host staging (MPI not CUDA-aware)            CUDA-aware MPI
//   a2a-sync      pack on GPU, D2H, Alltoallv, H2D, unpack      pack on GPU, Alltoallv on device
//   p2p-sync      per peer: pack, D2H, sync, Isend; Waitany     same on device pointers
//   p2p-streams   per-peer streams + host-function callbacks    same on device pointers
//   a2a-type      whole buffer D2H, Alltoallw with datatypes    Alltoallw on device memory
//   p2p-type      whole buffer D2H, Isend/Irecv with datatypes  Isend/Irecv on device memory
//   nccl          grouped ncclSend/ncclRecv on the plan stream (always device memory)
// The datatype methods under host staging copy the whole array to the host and back, as the
// thesis does for MPI_Type without CUDA-awareness; their host side is the CPU transport itself.
#include "backend/cpu/copy_box.hpp"
#include "backend/cuda/stager.hpp"

namespace dfft::detail {

std::unique_ptr<Transport> make_device_a2a_sync(MPI_Comm, const ExchangeSpec&, CudaDevice&, bool);
std::unique_ptr<Transport> make_device_p2p_sync(MPI_Comm, const ExchangeSpec&, CudaDevice&, bool);
std::unique_ptr<Transport> make_device_p2p_streams(MPI_Comm, const ExchangeSpec&, CudaDevice&, bool);
std::unique_ptr<Transport> make_device_nccl(MPI_Comm, const ExchangeSpec&, CudaDevice&, int chunks,
                                            bool taper);
std::unique_ptr<Transport> make_device_pipelined(MPI_Comm, const ExchangeSpec&, CudaDevice&, bool,
                                                 int chunks, int in_flight);
std::unique_ptr<Transport> make_device_cuda_ipc(MPI_Comm, const ExchangeSpec&, CudaDevice&);

namespace {

// Host memory behind the CPU datatype transports: page-locked, so the whole-array copies run
// at full PCIe/C2C speed; copy_box on the host for the rank's own block.
class PinnedHostDevice final : public Device {
 public:
  explicit PinnedHostDevice(CudaDevice& d) : gpu_(d) {}
  std::string name() const override { return "pinned-host"; }
  bool on_device() const override { return false; }
  void* alloc(std::size_t bytes) override { return gpu_.alloc_host(bytes); }
  void release(void* p) noexcept override { gpu_.release_host(p); }
  std::int64_t available_bytes() const override { return host_available_bytes(); }
  std::unique_ptr<LocalFft> make_fft(const FftDesc&, void*, void*) override {
    fail_internal("no FFTs on the staging device");
  }
  void copy_box(const void* src, const Layout& sl, void* dst, const Layout& dl, const Box& box,
                std::size_t elem) override {
    host_copy_box(src, sl, dst, dl, box, elem);
  }
  void scale(void*, std::int64_t, double, bool) override {}
  void upload(void*, const void*, std::size_t) override {}
  void download(void*, const void*, std::size_t) override {}

 private:
  CudaDevice& gpu_;
};

// Elements from a layout's first element to its last: the whole array, or for a slice view
// (overlap) only the part of the parent array the view covers.
std::int64_t span(const Layout& l) {
  if (l.box.empty()) return 0;
  std::vector<std::int64_t> last(l.box.hi);
  for (auto& v : last) --v;
  return l.offset_of(last) + 1;
}

class HostStagedType final : public Transport {
 public:
  HostStagedType(Method m, MPI_Comm comm, const ExchangeSpec& s, CudaDevice& dev)
      : dev_(dev), host_(dev) {
    in_bytes_ = static_cast<std::size_t>(span(s.src[s.me])) * s.elem;
    out_bytes_ = static_cast<std::size_t>(span(s.dst[s.me])) * s.elem;
    dst_ = s.dst[s.me];
    elem_ = s.elem;
    // A destination with padding or gaps (a slice view, a padded user layout): the host image
    // lands in device scratch first and only the box is copied out, so padding and the
    // neighbouring slices of the array keep their contents.
    gaps_ = span(dst_) != dst_.box.count();
    dev.reserve_scratch(CudaDevice::Scratch::host_send, in_bytes_);
    dev.reserve_scratch(CudaDevice::Scratch::host_recv, out_bytes_);
    if (gaps_) dev.reserve_scratch(CudaDevice::Scratch::dev_recv, out_bytes_);
    inner_ = m == Method::a2a_type ? make_a2a_type(comm, s, host_) : make_p2p_type(comm, s, host_);
  }

  void execute(const void* src, void* dst, StageTiming& t) override {
    dev_.activate();
    const cudaStream_t s = dev_.stream();
    {
      PhaseTimer pt(t.pack);
      DFFT_CUDA(cudaMemcpyAsync(hin(), src, in_bytes_, cudaMemcpyDeviceToHost, s));
      dev_.synchronize();
    }
    inner_->execute(hin(), hout(), t);
    PhaseTimer pt(t.unpack);
    if (!gaps_) {
      DFFT_CUDA(cudaMemcpyAsync(dst, hout(), out_bytes_, cudaMemcpyHostToDevice, s));
    } else {
      char* d = dev_.scratch(CudaDevice::Scratch::dev_recv);
      DFFT_CUDA(cudaMemcpyAsync(d, hout(), out_bytes_, cudaMemcpyHostToDevice, s));
      dev_.copy_box_async(d, dst_, dst, dst_, dst_.box, elem_, s);
    }
    dev_.synchronize();
  }

 private:
  char* hin() const { return dev_.scratch(CudaDevice::Scratch::host_send); }
  char* hout() const { return dev_.scratch(CudaDevice::Scratch::host_recv); }

  CudaDevice& dev_;
  PinnedHostDevice host_;
  std::size_t in_bytes_ = 0, out_bytes_ = 0;
  Layout dst_;
  std::size_t elem_ = 16;
  bool gaps_ = false;
  std::unique_ptr<Transport> inner_;
};

}  // namespace

std::unique_ptr<Transport> make_device_transport(Method m, MPI_Comm comm, const ExchangeSpec& spec,
                                                 Device& d, const TransportTuning& tuning) {
  CudaDevice& dev = as_cuda(d);
  dev.activate();
  // Codecs are fused into the device pack/unpack (src/backend/cuda/codec.cu); a2a-type and
  // p2p-type, which do not pack, reject them in make_transport. onesided never gets here: it is
  // one transport for every backend, staged through host windows.
  if (m == Method::nccl) return make_device_nccl(comm, spec, dev, tuning.chunks, tuning.taper);
  if (m == Method::cuda_ipc) return make_device_cuda_ipc(comm, spec, dev);
  const bool aware = use_cuda_aware(spec.staging, m);
  switch (m) {
    case Method::a2a_sync: return make_device_a2a_sync(comm, spec, dev, aware);
    case Method::p2p_sync: return make_device_p2p_sync(comm, spec, dev, aware);
    case Method::p2p_streams: return make_device_p2p_streams(comm, spec, dev, aware);
    case Method::p2p_pipelined:
      return make_device_pipelined(comm, spec, dev, aware, tuning.chunks, tuning.in_flight);
    case Method::a2a_type:
    case Method::p2p_type:
      if (!aware) return std::make_unique<HostStagedType>(m, comm, spec, dev);
      // CUDA-aware: the CPU datatype transports work on device pointers as they are (their
      // local copy goes through CudaDevice::copy_box, which runs on the GPU).
      return m == Method::a2a_type ? make_a2a_type(comm, spec, dev) : make_p2p_type(comm, spec, dev);
    default: break;
  }
  fail("unknown method");
}

}  // namespace dfft::detail
