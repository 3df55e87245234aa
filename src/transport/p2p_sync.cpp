// SPDX-License-Identifier: MIT
// p2p-sync (thesis Listings 4.1 and 4.3): post every receive, stage and send peer by peer in ring
// order, copy the local block, then unpack each block as soon as MPI_Waitany returns it.
// The same loop runs a schedule of several rounds (node-ring, src/transport/node_ring.cpp):
// each round posts its receives, sends its blocks and waits for its receives.
#include <vector>

#include "transport/stage.hpp"
#include "util/check.hpp"

namespace dfft::detail {

namespace {

class P2pRounds final : public Transport {
 public:
  P2pRounds(MPI_Comm comm, const ExchangeSpec& s, Device& dev, std::vector<PeerRound> rounds)
      : comm_(comm), st_(dev.make_stager(s, StageUse::blocks)), chunk_(chunk_bytes(st_->blocks())),
        rounds_(std::move(rounds)) {}

  void execute(const void* src, void* dst, StageTiming& t) override {
    st_->begin(false);
    for (std::size_t r = 0; r < rounds_.size(); ++r) round(rounds_[r], r == 0, src, dst, t);
    PhaseTimer pt(t.unpack);
    if (rounds_.empty()) st_->copy_self(src, dst);
    st_->finish();
  }

 private:
  void round(const PeerRound& rd, bool first, const void* src, void* dst, StageTiming& t) {
    const auto& b = st_->blocks();
    ChunkedReceives recv;  // owned by their peer
    std::vector<MPI_Request> sreq;
    {
      PhaseTimer pt(t.comm);
      for (int k : rd.from) recv.post(k, st_->recv_ptr(k, dst), b.recv_bytes[k], k, -1, chunk_, comm_);
    }
    for (int k : rd.to) {
      {
        // Listing 4.1: each block is staged, and waited for, before its send starts.
        PhaseTimer pt(t.pack);
        st_->stage_out(k, src);
        st_->fence();
      }
      PhaseTimer pt(t.comm);
      post_chunks(const_cast<char*>(st_->send_ptr(k, src)), b.send_bytes[k], k, -1, chunk_, comm_, sreq,
                  false);
    }
    if (first) {  // overlaps the first round's transfers
      PhaseTimer pt(t.unpack);
      st_->copy_self(src, dst);
    }
    recv.each(t.comm, [&](int k) {
      PhaseTimer pt(t.unpack);
      st_->stage_in(k, dst);
    });
    PhaseTimer pt(t.comm);
    DFFT_MPI(MPI_Waitall(static_cast<int>(sreq.size()), sreq.data(), MPI_STATUSES_IGNORE));
  }

  MPI_Comm comm_;
  std::unique_ptr<Stager> st_;
  std::int64_t chunk_;
  std::vector<PeerRound> rounds_;
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
