// nccl: one grouped ncclSend/ncclRecv per exchange on the plan's stream, device memory only.
// Blocks that need packing are packed on the device first; blocks already contiguous are sent
// from (received into) the FFT buffers directly; the rank's own block is copied on a side
// stream meanwhile. Phase times come from CUDA events (unpack: what remains after the
// communication), so the stream is synchronised only once, at the end.
#include "backend/cuda/stager.hpp"

#if defined(DFFT_HAS_NCCL)

#include <cstdlib>
#include <cstring>
#include <sstream>

namespace dfft::detail {

namespace {

[[noreturn]] void throw_nccl(const char* call, ncclResult_t code) {
  const int r = world_rank();
  std::ostringstream s;
  s << "dfft: " << call << " failed with code " << static_cast<int>(code) << " ("
    << ncclGetErrorString(code) << ") on rank " << r;
  throw Error(call, static_cast<long>(code), r, s.str());
}

#define DFFT_NCCL(call)                                      \
  do {                                                       \
    const ncclResult_t dfft_nccl_rc_ = (call);               \
    if (dfft_nccl_rc_ != ncclSuccess) throw_nccl(#call, dfft_nccl_rc_); \
  } while (0)

// NCCL cannot put two ranks of one communicator on one GPU; say so clearly, on every rank of
// the plan (the check is collective over the plan's communicator, so no rank is left waiting).
void check_distinct_gpus(MPI_Comm sub, MPI_Comm plan, int ordinal) {
  cudaDeviceProp p{};
  DFFT_CUDA(cudaGetDeviceProperties(&p, ordinal));
  int n = 0;
  DFFT_MPI(MPI_Comm_size(sub, &n));
  std::vector<char> all(static_cast<std::size_t>(n) * sizeof(p.uuid));
  DFFT_MPI(MPI_Allgather(&p.uuid, sizeof(p.uuid), MPI_BYTE, all.data(), sizeof(p.uuid), MPI_BYTE, sub));
  int ok = 1, dup_a = -1, dup_b = -1;
  for (int i = 0; i < n && ok; ++i)
    for (int j = i + 1; j < n && ok; ++j)
      if (std::memcmp(&all[i * sizeof(p.uuid)], &all[j * sizeof(p.uuid)], sizeof(p.uuid)) == 0) {
        ok = 0;
        dup_a = i;
        dup_b = j;
      }
  int all_ok = 0;
  DFFT_MPI(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, plan));
  if (!all_ok) {
    std::ostringstream s;
    s << "method nccl needs one GPU per rank within each exchange's communicator, but ranks ";
    if (ok) s << "of another communicator";
    else s << dup_a << " and " << dup_b << " of this rank's communicator";
    s << " share a GPU; use fewer ranks per GPU or an MPI method";
    fail(s.str());
  }
}

class NcclExchange final : public Transport {
 public:
  NcclExchange(MPI_Comm comm, const ExchangeSpec& s, CudaDevice& dev)
      : st_(s, dev, true, false), ev_{Event(true), Event(true), Event(true), Event(true)} {
    if (st_.blocks().size() > 1) nccl_ = dev.nccl_comm(comm);
  }

  void execute(const void* src, void* dst, StageTiming& t) override {
    auto& dev = st_.dev();
    dev.activate();
    const cudaStream_t s = dev.stream();
    side_ = dev.side_stream(0);  // per call: the calling thread's lane decides (CommLane)
    const auto& b = st_.blocks();
    const int n = b.size(), me = b.spec.me;
    ev_[0].record(s);
    // The rank's own block moves on a side stream, beside packing and communication.
    DFFT_CUDA(cudaStreamWaitEvent(side_, ev_[0].get(), 0));
    st_.copy_self(src, dst, side_);
    self_done_.record(side_);
    for (int k = 0; k < n; ++k)
      if (k != me) st_.stage_out(k, src, s);
    ev_[1].record(s);
    if (n > 1) {
      DFFT_NCCL(ncclGroupStart());
      for (int k = 0; k < n; ++k) {
        if (k == me) continue;
        if (b.send_bytes[k] > 0)
          DFFT_NCCL(ncclSend(st_.send_ptr(k, src), static_cast<std::size_t>(b.send_bytes[k]),
                             ncclUint8, k, nccl_, s));
        if (b.recv_bytes[k] > 0)
          DFFT_NCCL(ncclRecv(st_.recv_ptr(k, dst), static_cast<std::size_t>(b.recv_bytes[k]),
                             ncclUint8, k, nccl_, s));
      }
      DFFT_NCCL(ncclGroupEnd());
    }
    ev_[2].record(s);
    DFFT_CUDA(cudaStreamWaitEvent(s, self_done_.get(), 0));
    for (int k = 0; k < n; ++k)
      if (k != me) st_.stage_in(k, dst, s);
    ev_[3].record(s);
    DFFT_CUDA(cudaEventSynchronize(ev_[3].get()));
    float ms[3] = {};
    for (int i = 0; i < 3; ++i) DFFT_CUDA(cudaEventElapsedTime(&ms[i], ev_[i].get(), ev_[i + 1].get()));
    t.pack += ms[0] * 1e-3;
    t.comm += ms[1] * 1e-3;
    t.unpack += ms[2] * 1e-3;
  }

 private:
  Stager st_;
  ncclComm_t nccl_ = nullptr;
  Event ev_[4];
  Event self_done_;
  cudaStream_t side_ = nullptr;
};

}  // namespace

ncclComm_t CudaDevice::nccl_comm(MPI_Comm sub) {
  auto it = nccl_.find(sub);
  if (it != nccl_.end()) return it->second;
  activate();
  check_distinct_gpus(sub, comm_, ordinal_);
  // NVLink multicast (NVLS) can take shared GPUs out of service on the machines this is
  // developed on; never use it unless the user asked for it explicitly.
  setenv("NCCL_NVLS_ENABLE", "0", 0);
  int n = 0, r = 0;
  DFFT_MPI(MPI_Comm_size(sub, &n));
  DFFT_MPI(MPI_Comm_rank(sub, &r));
  ncclUniqueId id{};
  if (r == 0) DFFT_NCCL(ncclGetUniqueId(&id));
  DFFT_MPI(MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, sub));
  ncclComm_t c = nullptr;
  DFFT_LIVE(Live::nccl_comm, DFFT_NCCL(ncclCommInitRank(&c, n, id, r)));
  nccl_[sub] = c;
  return c;
}

std::unique_ptr<Transport> make_device_nccl(MPI_Comm c, const ExchangeSpec& s, CudaDevice& d) {
  return std::make_unique<NcclExchange>(c, s, d);
}

}  // namespace dfft::detail

#else  // built without NCCL

namespace dfft::detail {
std::unique_ptr<Transport> make_device_nccl(MPI_Comm, const ExchangeSpec&, CudaDevice&) {
  fail("method nccl: this dfft was built without NCCL (configure with -DDFFT_NCCL=ON where ",
       "nccl.h and libnccl are installed); use an MPI method");
}
}  // namespace dfft::detail

#endif
