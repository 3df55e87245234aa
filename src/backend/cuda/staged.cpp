// SPDX-License-Identifier: MIT
// Device versions of a2a-sync and p2p-sync (thesis Listings 4.1, 4.3 and 4.6): blocks are packed
// on the GPU, then handed to MPI from page-locked host memory (host staging) or from device
// memory (CUDA-aware MPI); received blocks go back and are unpacked on the GPU.
#include "codec/codec.hpp"
#include <climits>

#include "backend/cuda/stager.hpp"

namespace dfft::detail {

namespace {

class DeviceA2aSync final : public Transport {
 public:
  DeviceA2aSync(MPI_Comm comm, const ExchangeSpec& s, CudaDevice& dev, bool aware)
      : comm_(comm), st_(s, dev, aware, true), chunk_(chunk_bytes(st_.blocks())) {
    DFFT_MPI(MPI_Type_contiguous(static_cast<int>(st_.blocks().unit), MPI_BYTE, &elem_type_));
    DFFT_MPI(MPI_Type_commit(&elem_type_));
    const auto& b = st_.blocks();
    const int n = b.size();
    rounds_ = a2a_rounds(s, chunk_);
    // MPI_Alltoallv displacements are ints (elements) relative to one base pointer per side.
    for (int k = 0; k < n; ++k)
      if (k != s.me && (std::max(disp(k, true), disp(k, false)) + chunk_) / b.unit > INT_MAX)
        unsupported("a2a-sync addresses at most 2^31 elements per rank (MPI_Alltoallv displacements); ",
             "use p2p-sync, p2p-streams or nccl for this size");
  }
  ~DeviceA2aSync() override { MPI_Type_free(&elem_type_); }

  void execute(const void* src, void* dst, StageTiming& t) override {
    auto& dev = st_.dev();
    dev.activate();
    const cudaStream_t s = dev.stream();
    const auto& b = st_.blocks();
    const int n = b.size(), me = b.spec.me;
    {
      PhaseTimer pt(t.pack);
      for (int k = 0; k < n; ++k)
        if (k != me) st_.stage_out(k, src, s);
      staged_.record(s);
      st_.copy_self(src, dst, s);  // overlaps the communication below
      DFFT_CUDA(cudaEventSynchronize(staged_.get()));
    }
    {
      PhaseTimer pt(t.comm);
      exchange(src, dst);
    }
    PhaseTimer pt(t.unpack);
    for (int k = 0; k < n; ++k)
      if (k != me) st_.stage_in(k, dst, s);
    dev.synchronize();
  }

 private:
  // Displacement (bytes) of block k from its side's base pointer.
  std::int64_t disp(int k, bool send) const {
    const auto& b = st_.blocks();
    if (!st_.aware()) return send ? b.stage_send_off[k] : b.stage_recv_off[k];
    if (send) return b.direct_send[k] ? b.src_offset[k] : b.stage_send_off[k];
    return b.direct_recv[k] ? b.dst_offset[k] : b.stage_recv_off[k];
  }

  void exchange(const void* src, void* dst) {
    const auto& b = st_.blocks();
    const int n = b.size(), me = b.spec.me;
    const auto e = b.unit;
    // Base pointers: every block of a side is either staged or direct (uniform Stager).
    const int any = me == 0 && n > 1 ? 1 : 0;
    const char* sbase = st_.send_ptr(any, src) - disp(any, true);
    char* rbase = st_.recv_ptr(any, dst) - disp(any, false);
    std::vector<int> sc(n), sd(n), rc(n), rd(n);
    for (std::int64_t r = 0; r < rounds_; ++r) {
      for (int k = 0; k < n; ++k) {
        auto sl = k == me ? 0 : std::clamp<std::int64_t>(b.send_bytes[k] - r * chunk_, 0, chunk_);
        auto rl = k == me ? 0 : std::clamp<std::int64_t>(b.recv_bytes[k] - r * chunk_, 0, chunk_);
        sc[k] = static_cast<int>(sl / e);
        rc[k] = static_cast<int>(rl / e);
        sd[k] = static_cast<int>((disp(k, true) + r * chunk_) / e * (sl > 0));
        rd[k] = static_cast<int>((disp(k, false) + r * chunk_) / e * (rl > 0));
      }
      DFFT_MPI(MPI_Alltoallv(sbase, sc.data(), sd.data(), elem_type_, rbase, rc.data(), rd.data(),
                             elem_type_, comm_));
    }
  }

  MPI_Comm comm_;
  Stager st_;
  std::int64_t chunk_;
  std::int64_t rounds_ = 0;
  MPI_Datatype elem_type_ = MPI_DATATYPE_NULL;
  Event staged_;
};

class DeviceP2pSync final : public Transport {
 public:
  DeviceP2pSync(MPI_Comm comm, const ExchangeSpec& s, CudaDevice& dev, bool aware)
      : comm_(comm), st_(s, dev, aware, false), chunk_(chunk_bytes(st_.blocks())) {}

  void execute(const void* src, void* dst, StageTiming& t) override {
    auto& dev = st_.dev();
    dev.activate();
    const cudaStream_t s = dev.stream();
    const auto& b = st_.blocks();
    const auto peers = ring_peers(b.spec.me, b.size());
    std::vector<MPI_Request> rreq, sreq;
    std::vector<int> owner;
    std::vector<std::int64_t> left(b.size(), 0);
    {
      PhaseTimer pt(t.comm);
      for (int k : peers) {
        post_chunks(st_.recv_ptr(k, dst), b.recv_bytes[k], chunk_, k, comm_, rreq, true);
        left[k] = chunks_of(b.recv_bytes[k], chunk_);
        owner.resize(rreq.size(), k);
      }
    }
    for (int k : peers) {
      {
        // Listing 4.1: each block is staged and synchronised before its send starts.
        PhaseTimer pt(t.pack);
        st_.stage_out(k, src, s);
        DFFT_CUDA(cudaStreamSynchronize(s));
      }
      PhaseTimer pt(t.comm);
      post_chunks(const_cast<char*>(st_.send_ptr(k, src)), b.send_bytes[k], chunk_, k, comm_, sreq,
                  false);
    }
    {
      PhaseTimer pt(t.unpack);
      st_.copy_self(src, dst, s);
    }
    for (std::size_t done = 0; done < rreq.size(); ++done) {
      int idx = MPI_UNDEFINED;
      {
        PhaseTimer pt(t.comm);
        DFFT_MPI(MPI_Waitany(static_cast<int>(rreq.size()), rreq.data(), &idx, MPI_STATUS_IGNORE));
      }
      const int k = owner[idx];
      if (--left[k] == 0) {
        PhaseTimer pt(t.unpack);
        st_.stage_in(k, dst, s);
      }
    }
    {
      PhaseTimer pt(t.comm);
      DFFT_MPI(MPI_Waitall(static_cast<int>(sreq.size()), sreq.data(), MPI_STATUSES_IGNORE));
    }
    PhaseTimer pt(t.unpack);
    dev.synchronize();
  }

 private:
  MPI_Comm comm_;
  Stager st_;
  std::int64_t chunk_;
};

}  // namespace

std::unique_ptr<Transport> make_device_a2a_sync(MPI_Comm c, const ExchangeSpec& s, CudaDevice& d,
                                                bool aware) {
  return std::make_unique<DeviceA2aSync>(c, s, d, aware);
}

std::unique_ptr<Transport> make_device_p2p_sync(MPI_Comm c, const ExchangeSpec& s, CudaDevice& d,
                                                bool aware) {
  return std::make_unique<DeviceP2pSync>(c, s, d, aware);
}

}  // namespace dfft::detail
