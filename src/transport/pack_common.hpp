// SPDX-License-Identifier: MIT
// Helpers for the transports that pack into contiguous staging buffers (a2a-sync, p2p-sync).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <vector>

#include "codec/codec.hpp"
#include "transport/transport.hpp"
#include "util/check.hpp"

namespace dfft::detail {

/// Accumulates wall time into a phase counter.
class PhaseTimer {
 public:
  explicit PhaseTimer(double& acc) : acc_(acc), t0_(MPI_Wtime()) {}
  ~PhaseTimer() { acc_ += MPI_Wtime() - t0_; }

 private:
  double& acc_;
  double t0_;
};

/// Messages above the limit go as consecutive chunks of `chunk_bytes` (a multiple of elem).
inline std::int64_t chunk_bytes(const Blocks& b) {
  return std::max<std::int64_t>(b.unit, (b.spec.max_message_bytes / b.unit) * b.unit);
}
inline std::int64_t chunks_of(std::int64_t bytes, std::int64_t chunk) {
  return bytes == 0 ? 0 : (bytes + chunk - 1) / chunk;
}

/// Rounds of an all-to-all under the message limit: the most chunks any pair of members
/// exchanges (computed from the global geometry, so the same on every member).
inline std::int64_t a2a_rounds(const ExchangeSpec& s, std::int64_t chunk) {
  std::int64_t r = 0;
  const int n = static_cast<int>(s.src.size());
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j)
        r = std::max(r, chunks_of(wire_bytes(s.codec, s.elem, intersect(s.src[i].box, s.dst[j].box).count()),
                                  chunk));
  return r;
}

/// Copy my own block from src to dst without MPI.
inline void copy_self(Device& dev, const Blocks& b, const void* src, void* dst) {
  const auto& s = b.spec;
  dev.copy_box(src, s.src[s.me], dst, s.dst[s.me], b.send[s.me], s.elem);
}

/// Pack the block for peer k at `out`, in wire order (encoded with a codec).
inline void pack_block_at(Device& dev, const Blocks& b, int k, const void* src, void* out) {
  const auto& s = b.spec;
  if (s.codec != Codec::none)
    dev.encode_box(src, s.src[s.me], b.send[k], s.src[s.me].order, out, s.codec, s.is_double);
  else
    dev.copy_box(src, s.src[s.me], out, b.wire_layout(s.me, b.send[k]), b.send[k], s.elem);
}

/// Unpack the block from peer k found at `in` into dst.
inline void unpack_block_at(Device& dev, const Blocks& b, int k, const void* in, void* dst) {
  const auto& s = b.spec;
  if (s.codec != Codec::none)
    dev.decode_box(in, s.src[k].order, dst, s.dst[s.me], b.recv[k], s.codec, s.is_double);
  else
    dev.copy_box(in, b.wire_layout(k, b.recv[k]), dst, s.dst[s.me], b.recv[k], s.elem);
}

/// Pack the block for peer k into `stage` (at its staging offset), in wire order.
inline void pack_block(Device& dev, const Blocks& b, int k, const void* src, void* stage) {
  pack_block_at(dev, b, k, src, static_cast<char*>(stage) + b.stage_send_off[k]);
}

/// Where the block for peer k is sent from: straight from src where it needs no packing, else
/// packed into `stage` first (the packing timed into `pack_time`).
inline const char* send_block(Device& dev, const Blocks& b, int k, const void* src, void* stage,
                              double& pack_time) {
  if (b.direct_send[k]) return static_cast<const char*>(src) + b.src_offset[k];
  PhaseTimer pt(pack_time);
  pack_block(dev, b, k, src, stage);
  return static_cast<const char*>(stage) + b.stage_send_off[k];
}

/// Unpack the block from peer k out of `stage` into dst.
inline void unpack_block(Device& dev, const Blocks& b, int k, const void* stage, void* dst) {
  unpack_block_at(dev, b, k, static_cast<const char*>(stage) + b.stage_recv_off[k], dst);
}

/// Posts `bytes` at `base` to or from `peer` as messages of at most `chunk` bytes and returns
/// how many. tag < 0: each message's tag is its chunk index (mod 32768); else every message
/// carries `tag` (MPI keeps messages of one sender, tag and communicator in order).
inline int post_chunks(char* base, std::int64_t bytes, int peer, int tag, std::int64_t chunk,
                       MPI_Comm comm, std::vector<MPI_Request>& reqs, bool recv) {
  int n = 0;
  for (std::int64_t off = 0; off < bytes; ++n, off += chunk) {
    const int len = static_cast<int>(std::min(chunk, bytes - off));
    const int t = tag >= 0 ? tag : n % 32768;
    MPI_Request r;
    if (recv)
      DFFT_MPI(MPI_Irecv(base + off, len, MPI_BYTE, peer, t, comm, &r));
    else
      DFFT_MPI(MPI_Isend(base + off, len, MPI_BYTE, peer, t, comm, &r));
    reqs.push_back(r);
  }
  return n;
}

/// Receives of messages cut into chunks, each message owned by a number (a peer, or a message
/// index of the schedule): each() hands an owner over once all its chunks have landed.
class ChunkedReceives {
 public:
  /// Posts `bytes` at `base` from `peer` (post_chunks); returns whether there was anything.
  bool post(int owner, char* base, std::int64_t bytes, int peer, int tag, std::int64_t chunk, MPI_Comm comm) {
    const int n = post_chunks(base, bytes, peer, tag, chunk, comm, req_, true);
    if (static_cast<std::size_t>(owner) >= left_.size()) left_.resize(static_cast<std::size_t>(owner) + 1, 0);
    left_[owner] += n;
    owner_.resize(req_.size(), owner);
    return n > 0;
  }
  /// Waits for every posted chunk (the time blocked goes to `wait`); `arrived(owner)` runs as
  /// soon as an owner's last chunk is in.
  template <class F>
  void each(double& wait, F arrived) {
    for (std::size_t done = 0; done < req_.size(); ++done) {
      int idx = MPI_UNDEFINED;
      {
        PhaseTimer pt(wait);
        DFFT_MPI(MPI_Waitany(static_cast<int>(req_.size()), req_.data(), &idx, MPI_STATUS_IGNORE));
      }
      const int o = owner_[idx];
      if (--left_[o] == 0) arrived(o);
    }
  }

 private:
  std::vector<MPI_Request> req_;
  std::vector<int> owner_;
  std::vector<std::int64_t> left_;
};

}  // namespace dfft::detail
