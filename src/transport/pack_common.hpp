// SPDX-License-Identifier: MIT
// Helpers for the transports that pack into contiguous staging buffers (a2a-sync, p2p-sync).
#pragma once

#include <mpi.h>

#include <algorithm>

#include "codec/codec.hpp"
#include "transport/transport.hpp"

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

/// Pack the block for peer k into `stage` (at its staging offset), in wire order.
inline void pack_block(Device& dev, const Blocks& b, int k, const void* src, void* stage) {
  const auto& s = b.spec;
  auto* out = static_cast<char*>(stage) + b.stage_send_off[k];
  if (s.codec != Codec::none)
    dev.encode_box(src, s.src[s.me], b.send[k], s.src[s.me].order, out, s.codec, s.is_double);
  else
    dev.copy_box(src, s.src[s.me], out, b.wire_layout(s.me, b.send[k]), b.send[k], s.elem);
}

/// Unpack the block from peer k out of `stage` into dst.
inline void unpack_block(Device& dev, const Blocks& b, int k, const void* stage, void* dst) {
  const auto& s = b.spec;
  const auto* in = static_cast<const char*>(stage) + b.stage_recv_off[k];
  if (s.codec != Codec::none)
    dev.decode_box(in, s.src[k].order, dst, s.dst[s.me], b.recv[k], s.codec, s.is_double);
  else
    dev.copy_box(in, b.wire_layout(k, b.recv[k]), dst, s.dst[s.me], b.recv[k], s.elem);
}

}  // namespace dfft::detail
