// SPDX-License-Identifier: MIT
// Pieces of the p2p-pipelined transport (src/transport/p2p_pipelined.cpp): how a block is cut
// into chunks, the ring step bookkeeping and the set of outstanding MPI requests.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "transport/pack_common.hpp"
#include "util/check.hpp"

namespace dfft::detail::pipelined {

/// Plan-time check of the tuning knobs (every rank has the same options, so every rank throws).
inline void check_tuning(int chunks, int in_flight) {
  if (chunks < 1) fail("p2p-pipelined: chunks must be >= 1, got ", chunks);
  if (in_flight < 1) fail("p2p-pipelined: in_flight (ring steps outstanding) must be >= 1, got ", in_flight);
}

struct Piece {
  std::int64_t off, len;  // bytes within the packed block
};

/// The chunks of a packed block of `bytes`: `chunks` pieces of equal size rounded up to the
/// block's unit, none above the message limit (then there are more pieces). A block of fewer
/// units than `chunks` gets one piece per unit; an empty block gets none. Sender and receiver
/// compute this from the same byte count, so their messages pair up one to one.
inline std::vector<Piece> pieces_of(std::int64_t bytes, int chunks, const Blocks& b) {
  std::vector<Piece> out;
  if (bytes <= 0) return out;
  const std::int64_t unit = b.unit, limit = chunk_bytes(b);
  std::int64_t len = (bytes + chunks - 1) / chunks;
  len = (len + unit - 1) / unit * unit;
  len = std::clamp(len, unit, limit);
  for (std::int64_t off = 0; off < bytes; off += len) out.push_back({off, std::min(len, bytes - off)});
  return out;
}

/// Ring step j (0-based): send to me+j+1, receive from me-j-1 (the order of ring_peers).
struct Step {
  int to = 0, from = 0;
  int recv_left = 0, send_left = 0;  // messages not yet complete (sends: posted or not)
  bool retired = false;
};

inline Step ring_step(int j, int me, int n) {
  Step s;
  s.to = (me + j + 1) % n;
  s.from = (me - j - 1 + n) % n;
  return s;
}

/// Tag of piece p: pieces between one pair of ranks go in order, so tags may wrap.
inline int piece_tag(std::size_t p) { return static_cast<int>(p % 32768); }

/// Outstanding requests of the ring steps in flight, each labelled with its step.
class Requests {
 public:
  struct Label {
    int step;
    int piece;  // index in the block's pieces_of()
    bool recv;
  };
  Requests() = default;
  Requests(const Requests&) = delete;
  Requests& operator=(const Requests&) = delete;
  /// Normal completion leaves nothing behind. After an error (an exception unwinding through
  /// the transport) the receives still posted are cancelled and freed, so that no message of
  /// the failed exchange lands in memory the caller may reuse; return codes are ignored there
  /// since a second error cannot be reported while the first propagates. Sends are left to MPI
  /// (they cannot be cancelled portably, and freeing them would let MPI read freed buffers).
  ~Requests() {
    for (std::size_t i = 0; i < req_.size(); ++i)
      if (req_[i] != MPI_REQUEST_NULL && label_[i].recv) {
        MPI_Cancel(&req_[i]);
        MPI_Request_free(&req_[i]);
      }
  }

  void irecv(void* p, std::int64_t len, int peer, int tag, MPI_Comm comm, Label l) {
    MPI_Request r;
    DFFT_MPI(MPI_Irecv(p, static_cast<int>(len), MPI_BYTE, peer, tag, comm, &r));
    add(r, l);
  }
  void isend(const void* p, std::int64_t len, int peer, int tag, MPI_Comm comm, Label l) {
    MPI_Request r;
    DFFT_MPI(MPI_Isend(p, static_cast<int>(len), MPI_BYTE, peer, tag, comm, &r));
    add(r, l);
  }
  bool empty() const { return req_.empty(); }

  /// MPI_Waitsome (block) or MPI_Testsome; the labels of completed requests go to `done`.
  void complete(bool block, std::vector<Label>& done) {
    done.clear();
    if (req_.empty()) return;
    idx_.resize(req_.size());
    int count = 0;
    const int n = static_cast<int>(req_.size());
    if (block)
      DFFT_MPI(MPI_Waitsome(n, req_.data(), &count, idx_.data(), MPI_STATUSES_IGNORE));
    else
      DFFT_MPI(MPI_Testsome(n, req_.data(), &count, idx_.data(), MPI_STATUSES_IGNORE));
    if (count == MPI_UNDEFINED || count == 0) return;
    for (int i = 0; i < count; ++i) done.push_back(label_[idx_[i]]);
    // Drop the completed (now null) requests so later calls scan only live ones.
    std::size_t w = 0;
    for (std::size_t i = 0; i < req_.size(); ++i)
      if (req_[i] != MPI_REQUEST_NULL) {
        req_[w] = req_[i];
        label_[w++] = label_[i];
      }
    req_.resize(w);
    label_.resize(w);
  }

 private:
  void add(MPI_Request r, Label l) {
    req_.push_back(r);
    label_.push_back(l);
  }
  std::vector<MPI_Request> req_;
  std::vector<Label> label_;
  std::vector<int> idx_;
};

}  // namespace dfft::detail::pipelined
