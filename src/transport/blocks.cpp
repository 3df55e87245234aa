// SPDX-License-Identifier: MIT
#include <algorithm>

#include "codec/codec.hpp"
#include "plan/geometry.hpp"
#include "transport/transport.hpp"
#include "util/check.hpp"

namespace dfft::detail {

Blocks::Blocks(const ExchangeSpec& s) : spec(s) {
  const int n = static_cast<int>(s.src.size());
  const auto& mine_src = s.src[s.me];
  const auto& mine_dst = s.dst[s.me];
  const auto e = static_cast<std::int64_t>(s.elem);
  const bool coded = s.codec != Codec::none;
  // Coded blocks are multiples of 4 bytes (16-byte header, 4- or 8-byte values).
  unit = coded ? 4 : e;
  for (int k = 0; k < n; ++k) {
    send.push_back(intersect(mine_src.box, s.dst[k].box));
    recv.push_back(intersect(s.src[k].box, mine_dst.box));
    if (!s.peers.empty() && !s.peers[k]) {  // left out: empty boxes at the block's corner
      send.back().hi = send.back().lo;
      recv.back().hi = recv.back().lo;
    }
    send_bytes.push_back(wire_bytes(s.codec, s.elem, send[k].count()));
    recv_bytes.push_back(wire_bytes(s.codec, s.elem, recv[k].count()));
    direct_send.push_back(!coded && is_contiguous(send[k], mine_src));
    direct_recv.push_back(!coded && same_image(recv[k], s.src[k].order, mine_dst));
    src_offset.push_back(send[k].empty() ? 0 : mine_src.offset_of(send[k].lo) * e);
    dst_offset.push_back(recv[k].empty() ? 0 : mine_dst.offset_of(recv[k].lo) * e);
    stage_send_off.push_back(stage_send_bytes);
    stage_recv_off.push_back(stage_recv_bytes);
    if (k != s.me) {
      stage_send_bytes += stage_span(s, send_bytes[k]);
      stage_recv_bytes += stage_span(s, recv_bytes[k]);
      any_pack |= !direct_send[k];
      any_unpack |= !direct_recv[k];
    }
  }
}

std::int64_t Blocks::sent_bytes() const {
  std::int64_t b = 0;
  for (int k = 0; k < size(); ++k)
    if (k != spec.me) b += send_bytes[k];
  return b;
}

std::vector<Box> slabs_of(const Box& box, const std::vector<int>& order, std::int64_t parts, bool taper) {
  if (box.empty()) return {};
  const auto ax = std::find_if(order.begin(), order.end(), [&](int a) { return box.extent(a) > 1; });
  if (ax == order.end()) return {box};
  const std::int64_t n = std::min(parts, box.extent(*ax));
  // Tapering needs an extent of at least 2n - 2 so that no slab comes out empty.
  const bool tapered = taper && box.extent(*ax) >= 2 * n - 2;
  std::vector<Box> out;
  for (std::int64_t i = 0; i < n; ++i) {
    const Range r = split_range(box.extent(*ax), static_cast<int>(n), static_cast<int>(i), tapered);
    Box b = box;
    b.lo[*ax] = box.lo[*ax] + r.lo;
    b.hi[*ax] = box.lo[*ax] + r.hi;
    out.push_back(b);
  }
  return out;
}

std::vector<int> ring_peers(int me, int n) {
  std::vector<int> p;
  for (int j = 1; j < n; ++j) p.push_back((me + j) % n);
  return p;
}

}  // namespace dfft::detail
