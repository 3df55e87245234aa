// SPDX-License-Identifier: MIT
// Independent layout arithmetic for the unit tests (not Layout::offset_of or strides): element
// offsets with padding, array lengths, random memory orders.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "dfft/types.hpp"

namespace dfft_unit {

using V = std::vector<std::int64_t>;

inline std::int64_t extent_in_memory(const dfft::Layout& l, int ax) {
  return l.padded.empty() ? l.box.hi[ax] - l.box.lo[ax] : l.padded[ax];
}
inline std::int64_t offset(const dfft::Layout& l, const V& idx) {
  std::int64_t off = 0;
  for (int ax : l.order) off = off * extent_in_memory(l, ax) + (idx[ax] - l.box.lo[ax]);
  return off;
}
inline std::size_t elements(const dfft::Layout& l) {
  std::int64_t n = 1;
  for (int ax = 0; ax < l.box.dims(); ++ax) n *= extent_in_memory(l, ax);
  return static_cast<std::size_t>(n);
}
inline std::vector<int> random_order(int d, std::mt19937& rng) {
  std::vector<int> o(d);
  std::iota(o.begin(), o.end(), 0);
  std::shuffle(o.begin(), o.end(), rng);
  return o;
}

}  // namespace dfft_unit
