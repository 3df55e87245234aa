// SPDX-License-Identifier: MIT
// p2p-pipelined on host memory: a ring schedule (step j sends to me+j and receives from me-j)
// with every peer block cut into `chunks` messages and at most `in_flight` steps outstanding.
// Entering a step posts its receives, packs (or encodes) its send block and sends the pieces;
// a step whose receives have all landed is unpacked at once while later steps are still on
// the wire, and leaves the window when its sends are complete too. Packing step j+1 thus
// overlaps the transfers of step j, and unpacking overlaps the transfers still in flight.
#include <vector>

#include "transport/pipelined.hpp"

namespace dfft::detail {

namespace {

using pipelined::Requests;
using pipelined::Step;

class P2pPipelined final : public Transport {
 public:
  P2pPipelined(MPI_Comm comm, const ExchangeSpec& s, Device& dev, int chunks, int in_flight)
      : comm_(comm), b_(s), dev_(dev), chunks_(chunks), in_flight_(in_flight) {
    if (b_.any_pack) send_stage_ = Buffer(dev, static_cast<std::size_t>(b_.stage_send_bytes));
    if (b_.any_unpack) recv_stage_ = Buffer(dev, static_cast<std::size_t>(b_.stage_recv_bytes));
  }

  void execute(const void* src, void* dst, StageTiming& t) override {
    const int n = b_.size(), me = b_.spec.me, steps = n - 1;
    std::vector<Step> ring(static_cast<std::size_t>(std::max(steps, 0)));
    Requests reqs;
    std::vector<Requests::Label> done;
    int next = 0, active = 0, retired = 0;
    bool self_copied = false;
    while (retired < steps) {
      while (active < in_flight_ && next < steps) {
        ring[next] = pipelined::ring_step(next, me, n);
        begin(next, ring[next], src, dst, reqs, t);
        ++next;
        ++active;
      }
      if (!self_copied) {  // overlaps the first window's transfers
        PhaseTimer pt(t.unpack);
        copy_self(dev_, b_, src, dst);
        self_copied = true;
      }
      if (retire(ring, next, active, retired)) continue;
      {
        // Packing and unpacking run between the waits while messages move, so comm is the
        // time spent blocked on MPI, not the transfer time.
        PhaseTimer pt(t.comm);
        reqs.complete(true, done);
      }
      if (done.empty()) fail_internal("p2p-pipelined waits with nothing outstanding");
      for (const auto& l : done) {
        Step& s = ring[l.step];
        if (!l.recv) {
          --s.send_left;
        } else if (--s.recv_left == 0 && !b_.direct_recv[s.from]) {
          PhaseTimer pt(t.unpack);
          unpack_block(dev_, b_, s.from, recv_stage_.get(), dst);
        }
      }
    }
    if (!self_copied) {
      PhaseTimer pt(t.unpack);
      copy_self(dev_, b_, src, dst);
    }
  }

 private:
  // Enter ring step j: post its receives, pack its block and send its pieces.
  void begin(int j, Step& s, const void* src, void* dst, Requests& reqs, StageTiming& t) {
    {
      PhaseTimer pt(t.comm);
      char* rbase = b_.direct_recv[s.from]
                        ? static_cast<char*>(dst) + b_.dst_offset[s.from]
                        : static_cast<char*>(recv_stage_.get()) + b_.stage_recv_off[s.from];
      const auto pieces = pipelined::pieces_of(b_.recv_bytes[s.from], chunks_, b_);
      for (std::size_t p = 0; p < pieces.size(); ++p)
        reqs.irecv(rbase + pieces[p].off, pieces[p].len, s.from, pipelined::piece_tag(p), comm_,
                   {j, static_cast<int>(p), true});
      s.recv_left = static_cast<int>(pieces.size());
    }
    const auto pieces = pipelined::pieces_of(b_.send_bytes[s.to], chunks_, b_);
    s.send_left = static_cast<int>(pieces.size());
    if (pieces.empty()) return;
    const char* sbase;
    if (b_.direct_send[s.to]) {
      sbase = static_cast<const char*>(src) + b_.src_offset[s.to];
    } else {
      PhaseTimer pt(t.pack);
      pack_block(dev_, b_, s.to, src, send_stage_.get());
      sbase = static_cast<const char*>(send_stage_.get()) + b_.stage_send_off[s.to];
    }
    PhaseTimer pt(t.comm);
    for (std::size_t p = 0; p < pieces.size(); ++p)
      reqs.isend(sbase + pieces[p].off, pieces[p].len, s.to, pipelined::piece_tag(p), comm_,
                 {j, static_cast<int>(p), false});
  }

  // Steps with nothing outstanding leave the window (their unpack already ran, or they had
  // nothing to receive). Returns whether any did.
  static bool retire(std::vector<Step>& ring, int next, int& active, int& retired) {
    bool any = false;
    for (int j = 0; j < next; ++j) {
      Step& s = ring[j];
      if (s.retired || s.recv_left > 0 || s.send_left > 0) continue;
      s.retired = true;
      --active;
      ++retired;
      any = true;
    }
    return any;
  }

  MPI_Comm comm_;
  Blocks b_;
  Device& dev_;
  int chunks_, in_flight_;
  Buffer send_stage_, recv_stage_;
};

}  // namespace

std::unique_ptr<Transport> make_p2p_pipelined(MPI_Comm c, const ExchangeSpec& s, Device& d, int chunks,
                                              int in_flight) {
  pipelined::check_tuning(chunks, in_flight);
  return std::make_unique<P2pPipelined>(c, s, d, chunks, in_flight);
}

}  // namespace dfft::detail
