// SPDX-License-Identifier: MIT
// p2p-sync (thesis Listings 4.1 and 4.3): post every receive, pack and send peer by peer in ring
// order, copy the local block, then unpack each block as soon as MPI_Waitany returns it.
// The same loop runs a schedule of several rounds (node-ring, src/transport/node_ring.cpp):
// each round posts its receives, sends its blocks and waits for its receives.
#include <vector>

#include "transport/pack_common.hpp"
#include "util/check.hpp"

namespace dfft::detail {

namespace {

class P2pRounds final : public Transport {
 public:
  P2pRounds(MPI_Comm comm, const ExchangeSpec& s, Device& dev, std::vector<PeerRound> rounds)
      : comm_(comm), b_(s), dev_(dev), chunk_(chunk_bytes(b_)), rounds_(std::move(rounds)) {
    if (b_.any_pack) send_stage_ = Buffer(dev, b_.stage_send_bytes);
    if (b_.any_unpack) recv_stage_ = Buffer(dev, b_.stage_recv_bytes);
  }

  void execute(const void* src, void* dst, StageTiming& t) override {
    for (std::size_t r = 0; r < rounds_.size(); ++r) round(rounds_[r], r == 0, src, dst, t);
    if (rounds_.empty()) {
      PhaseTimer pt(t.unpack);
      copy_self(dev_, b_, src, dst);
    }
  }

 private:
  void round(const PeerRound& rd, bool first, const void* src, void* dst, StageTiming& t) {
    std::vector<MPI_Request> rreq, sreq;
    std::vector<int> owner;  // peer of each receive request
    std::vector<std::int64_t> left(b_.size(), 0);
    {
      PhaseTimer pt(t.comm);
      for (int k : rd.from) {
        char* base = b_.direct_recv[k] ? static_cast<char*>(dst) + b_.dst_offset[k]
                                       : static_cast<char*>(recv_stage_.get()) + b_.stage_recv_off[k];
        left[k] = post_chunks(base, b_.recv_bytes[k], k, -1, chunk_, comm_, rreq, true);
        owner.resize(rreq.size(), k);
      }
    }
    for (int k : rd.to) {
      const char* base = send_block(dev_, b_, k, src, send_stage_.get(), t.pack);
      PhaseTimer pt(t.comm);
      post_chunks(const_cast<char*>(base), b_.send_bytes[k], k, -1, chunk_, comm_, sreq, false);
    }
    if (first) {  // overlaps the first round's transfers
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

  MPI_Comm comm_;
  Blocks b_;
  Device& dev_;
  std::int64_t chunk_;
  std::vector<PeerRound> rounds_;
  Buffer send_stage_, recv_stage_;
};

}  // namespace

std::unique_ptr<Transport> make_p2p_rounds(MPI_Comm c, const ExchangeSpec& s, Device& d,
                                           std::vector<PeerRound> rounds) {
  return std::make_unique<P2pRounds>(c, s, d, std::move(rounds));
}

std::unique_ptr<Transport> make_p2p_sync(MPI_Comm c, const ExchangeSpec& s, Device& d) {
  auto peers = ring_peers(s.me, static_cast<int>(s.src.size()));
  return make_p2p_rounds(c, s, d, {PeerRound{peers, peers}});
}

}  // namespace dfft::detail
