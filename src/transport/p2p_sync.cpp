// SPDX-License-Identifier: MIT
// p2p-sync (thesis Listings 4.1 and 4.3): post every receive, pack and send peer by peer in ring
// order, copy the local block, then unpack each block as soon as MPI_Waitany returns it.
#include <vector>

#include "transport/pack_common.hpp"
#include "util/check.hpp"

namespace dfft::detail {

namespace {

class P2pSync final : public Transport {
 public:
  P2pSync(MPI_Comm comm, const ExchangeSpec& s, Device& dev)
      : comm_(comm), b_(s), dev_(dev), chunk_(chunk_bytes(b_)) {
    if (b_.any_pack) send_stage_ = Buffer(dev, b_.stage_send_bytes);
    if (b_.any_unpack) recv_stage_ = Buffer(dev, b_.stage_recv_bytes);
  }

  void execute(const void* src, void* dst, StageTiming& t) override {
    const int me = b_.spec.me;
    const auto peers = ring_peers(me, b_.size());
    std::vector<MPI_Request> rreq, sreq;
    std::vector<int> owner;  // peer of each receive request
    std::vector<std::int64_t> left(b_.size(), 0);
    {
      PhaseTimer pt(t.comm);
      for (int k : peers) {
        char* base = b_.direct_recv[k] ? static_cast<char*>(dst) + b_.dst_offset[k]
                                       : static_cast<char*>(recv_stage_.get()) + b_.stage_recv_off[k];
        post(base, b_.recv_bytes[k], k, rreq, true);
        left[k] = chunks_of(b_.recv_bytes[k], chunk_);
        owner.resize(rreq.size(), k);
      }
    }
    for (int k : peers) {
      const char* base;
      if (b_.direct_send[k]) {
        base = static_cast<const char*>(src) + b_.src_offset[k];
      } else {
        PhaseTimer pt(t.pack);
        pack_block(dev_, b_, k, src, send_stage_.get());
        base = static_cast<const char*>(send_stage_.get()) + b_.stage_send_off[k];
      }
      PhaseTimer pt(t.comm);
      post(const_cast<char*>(base), b_.send_bytes[k], k, sreq, false);
    }
    {
      PhaseTimer pt(t.unpack);
      copy_self(dev_, b_, src, dst);
    }
    for (std::size_t done = 0; done < rreq.size(); ++done) {
      int idx = MPI_UNDEFINED;
      {
        PhaseTimer pt(t.comm);
        DFFT_MPI(MPI_Waitany(static_cast<int>(rreq.size()), rreq.data(), &idx, MPI_STATUS_IGNORE));
      }
      int k = owner[idx];
      if (--left[k] == 0 && !b_.direct_recv[k]) {
        PhaseTimer pt(t.unpack);
        unpack_block(dev_, b_, k, recv_stage_.get(), dst);
      }
    }
    PhaseTimer pt(t.comm);
    DFFT_MPI(MPI_Waitall(static_cast<int>(sreq.size()), sreq.data(), MPI_STATUSES_IGNORE));
  }

 private:
  // One message per chunk; the chunk index is the tag, so pairs match in order.
  void post(char* base, std::int64_t bytes, int peer, std::vector<MPI_Request>& reqs, bool recv) {
    for (std::int64_t c = 0, off = 0; off < bytes; ++c, off += chunk_) {
      int len = static_cast<int>(std::min(chunk_, bytes - off));
      MPI_Request r;
      int tag = static_cast<int>(c % 32768);
      if (recv)
        DFFT_MPI(MPI_Irecv(base + off, len, MPI_BYTE, peer, tag, comm_, &r));
      else
        DFFT_MPI(MPI_Isend(base + off, len, MPI_BYTE, peer, tag, comm_, &r));
      reqs.push_back(r);
    }
  }

  MPI_Comm comm_;
  Blocks b_;
  Device& dev_;
  std::int64_t chunk_;
  Buffer send_stage_, recv_stage_;
};

}  // namespace

std::unique_ptr<Transport> make_p2p_sync(MPI_Comm c, const ExchangeSpec& s, Device& d) {
  return std::make_unique<P2pSync>(c, s, d);
}

}  // namespace dfft::detail
