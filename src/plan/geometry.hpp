// SPDX-License-Identifier: MIT
// Geometry: balanced block decomposition, process grids, distributions, contiguity.
// Pure functions of sizes and indices: nothing here knows MPI or a device.
#pragma once

#include <cstdint>
#include <vector>

#include "dfft/types.hpp"

namespace dfft::detail {

/// Part p of `n` elements split into `parts`: the first n % parts parts get one extra.
struct Range {
  std::int64_t lo, hi;
};
Range decompose(std::int64_t n, int parts, int p);
/// Part p of `parts` of [0, n): balanced as decompose(), or with `taper` (parts >= 3) weights
/// 1, 2, ..., 2, 1, so the first and the last part are half the others (a pipeline's fill and
/// drain). Parts tile [0, n) in order either way.
Range split_range(std::int64_t n, int parts, int p, bool taper);
/// A 0/1 switch from the environment: 0 when unset or "0", 1 for "1", -1 for anything else.
int env_switch(const char* name);

/// Near-square factorisation of `p` into `dims` factors, largest first (12 -> 4x3).
std::vector<int> factor_grid(int p, int dims);

/// Row-major coordinates of `rank` in `grid`, and back.
std::vector<int> grid_coords(const std::vector<int>& grid, int rank);
int grid_rank(const std::vector<int>& grid, const std::vector<int>& coords);
/// The ranks that differ from `rank` only in coordinate g (the sub-communicator of grid
/// dimension g), ordered by that coordinate.
std::vector<int> grid_line(const std::vector<int>& grid, int rank, int g);

/// A distribution says which global axis each grid dimension splits (-1: none).
using Distribution = std::vector<int>;

/// The box of the rank at `coords` when `shape` is distributed as `dist` over `grid`.
Box box_of(const std::vector<std::int64_t>& shape, const Distribution& dist,
           const std::vector<int>& grid, const std::vector<int>& coords);

std::vector<int> natural_order(int dims);

/// `l` as seen from its box's first element, which sits box_start(l) elements into the array:
/// the same strides, no offset. Plans and Reshape run on such layouts and move the caller's
/// pointer by box_start (0 for an empty box, whose array is never read).
Layout from_box_start(const Layout& l);
std::int64_t box_start(const Layout& l);
/// True when any axis of `l` has a nonzero offset.
bool has_offset(const Layout& l);

/// True when `sub` (inside layout.box) occupies one contiguous run of layout's memory.
bool is_contiguous(const Box& sub, const Layout& layout);

/// True when the elements of `sub`, read in memory order of a packed array of order
/// `wire_order`, sit at consecutive addresses of `layout` in the same sequence, so a message in
/// that wire order can be received straight into `layout`'s memory.
bool same_image(const Box& sub, const std::vector<int>& wire_order, const Layout& layout);

/// Split `box` into pieces of at most `max_elems` elements (at least 1 element each), cutting
/// the longest axes first. Both ends of a message compute the same pieces from the same box.
std::vector<Box> split_box(const Box& box, std::int64_t max_elems);

}  // namespace dfft::detail
