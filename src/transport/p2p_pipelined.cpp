// SPDX-License-Identifier: MIT
// p2p-pipelined: a ring schedule (step j sends to me+j and receives from me-j) with every peer
// block cut into `chunks` messages and at most `in_flight` steps outstanding. Entering a step
// posts its receives and stages its send block piece by piece; each piece is sent the moment
// the stager reports it where MPI reads it, and a received piece is staged back at once, while
// later pieces are still on the wire; a step whose pieces have all landed is unpacked and
// leaves the window when its sends are complete too.
// On host memory packing is done when its call returns, so packing step j+1 overlaps the
// transfers of step j. On a GPU under host staging the stager packs on one stream, copies the
// pieces to the host on a second (an event per piece) and back on a third, so that the copy
// out of piece k+1, the transfer of piece k and the copy in of piece k-1 run at once, and the
// host waits only for the piece it sends next.
#include <deque>
#include <vector>

#include "transport/pipelined.hpp"
#include "transport/stage.hpp"

namespace dfft::detail {

namespace {

using pipelined::Piece;
using pipelined::Requests;
// Not `Step`: in a unity build the planner's dfft::detail::Step is in the same translation unit.
using RingStep = pipelined::Step;

class P2pPipelined final : public Transport {
 public:
  P2pPipelined(MPI_Comm comm, const ExchangeSpec& s, Device& dev, int chunks, int in_flight)
      : comm_(comm), st_(dev.make_stager(s, StageUse::blocks)), chunks_(chunks), in_flight_(in_flight) {}

  void execute(const void* src, void* dst, StageTiming& t) override {
    const auto& b = st_->blocks();
    const int steps = b.size() - 1;
    {
      PhaseTimer pt(t.pack);
      st_->begin(true);
    }
    Run r;
    r.ring.resize(static_cast<std::size_t>(std::max(steps, 0)));
    r.rpieces.resize(r.ring.size());
    bool self_copied = false;
    while (r.retired < steps) {
      while (r.active < in_flight_ && r.next < steps) {
        begin(r, r.next, src, dst, t);
        ++r.next;
        ++r.active;
      }
      if (!self_copied) {  // overlaps the first window's transfers
        PhaseTimer pt(t.unpack);
        st_->copy_self(src, dst);
        self_copied = true;
      }
      if (retire(r)) continue;
      progress(r, dst, t);
    }
    PhaseTimer pt(t.unpack);
    if (!self_copied) st_->copy_self(src, dst);
    st_->finish();
  }

 private:
  // A piece whose send waits for the stager.
  struct Pending {
    int step, peer, piece, ticket;
    const char* from;
    std::int64_t len;
  };
  struct Run {
    std::vector<RingStep> ring;
    std::vector<std::vector<Piece>> rpieces;  // per step: pieces of the received block
    Requests reqs;
    std::deque<Pending> sends;  // in the order they were shipped (their tickets complete in order)
    std::vector<Requests::Label> done;
    int next = 0, active = 0, retired = 0;
  };

  // Enter ring step j: post its receives, stage its block piece by piece.
  void begin(Run& r, int j, const void* src, void* dst, StageTiming& t) {
    const auto& b = st_->blocks();
    RingStep& s = r.ring[j] = pipelined::ring_step(j, b.spec.me, b.size());
    {
      PhaseTimer pt(t.comm);
      char* rbase = st_->recv_ptr(s.from, dst);
      r.rpieces[j] = pipelined::pieces_of(b.recv_bytes[s.from], chunks_, b);
      const auto& rp = r.rpieces[j];
      for (std::size_t p = 0; p < rp.size(); ++p)
        r.reqs.irecv(rbase + rp[p].off, rp[p].len, s.from, pipelined::piece_tag(p), comm_,
                     {j, static_cast<int>(p), true});
      s.recv_left = static_cast<int>(rp.size());
    }
    const auto pieces = pipelined::pieces_of(b.send_bytes[s.to], chunks_, b);
    s.send_left = static_cast<int>(pieces.size());
    if (pieces.empty()) return;
    {
      PhaseTimer pt(t.pack);
      st_->pack(s.to, src);
      const char* from = st_->send_ptr(s.to, src);
      for (std::size_t p = 0; p < pieces.size(); ++p)
        r.sends.push_back({j, s.to, static_cast<int>(p), st_->ship(s.to, src, pieces[p].off, pieces[p].len),
                           from + pieces[p].off, pieces[p].len});
    }
    PhaseTimer pt(t.comm);
    post_ready(r);
  }

  // Send the pieces the stager has put where MPI reads them, oldest first.
  void post_ready(Run& r) {
    while (!r.sends.empty() && st_->ready(r.sends.front().ticket)) {
      const Pending& q = r.sends.front();
      r.reqs.isend(q.from, q.len, q.peer, pipelined::piece_tag(static_cast<std::size_t>(q.piece)), comm_,
                   {q.step, q.piece, false});
      r.sends.pop_front();
    }
  }

  // One round of progress: post ready sends, then collect finished requests. Blocks in MPI
  // only when no piece waits for the device (else polls both, so that a piece is sent as soon
  // as it is staged). Wait time goes to comm: staging runs meanwhile.
  void progress(Run& r, void* dst, StageTiming& t) {
    {
      PhaseTimer pt(t.comm);
      post_ready(r);
      const bool block = r.sends.empty();
      if (block && r.reqs.empty()) fail_internal("p2p-pipelined waits with nothing outstanding");
      r.reqs.complete(block, r.done);
    }
    for (const auto& l : r.done) {
      RingStep& s = r.ring[l.step];
      if (!l.recv) {
        --s.send_left;
        continue;
      }
      PhaseTimer pt(t.unpack);
      const Piece& pc = r.rpieces[l.step][l.piece];
      st_->land(s.from, dst, pc.off, pc.len);
      if (--s.recv_left == 0) st_->unpack(s.from, dst);
    }
  }

  // Steps with nothing outstanding in MPI leave the window. Returns whether any did.
  static bool retire(Run& r) {
    bool any = false;
    for (int j = 0; j < r.next; ++j) {
      RingStep& s = r.ring[j];
      if (s.retired || s.recv_left > 0 || s.send_left > 0) continue;
      s.retired = true;
      --r.active;
      ++r.retired;
      any = true;
    }
    return any;
  }

  MPI_Comm comm_;
  std::unique_ptr<Stager> st_;
  int chunks_, in_flight_;
};

}  // namespace

std::unique_ptr<Transport> make_p2p_pipelined(MPI_Comm c, const ExchangeSpec& s, Device& d, int chunks,
                                              int in_flight) {
  pipelined::check_tuning(chunks, in_flight);
  return std::make_unique<P2pPipelined>(c, s, d, chunks, in_flight);
}

}  // namespace dfft::detail
