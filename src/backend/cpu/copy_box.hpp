// SPDX-License-Identifier: MIT
// Host strided box copy between two layouts (pack, unpack, local transpose).
#pragma once

#include <cstddef>

#include "backend/cpu/work_pool.hpp"
#include "dfft/types.hpp"

namespace dfft::detail {

/// With a pool, blocks large enough are cut along the destination's slowest moving axis and
/// copied by the team (parts_for decides how many parts).
void host_copy_box(const void* src, const Layout& sl, void* dst, const Layout& dl, const Box& box,
                   std::size_t elem_bytes, WorkPool* pool = nullptr);
/// The same copy in exactly `parts` slabs of `box` along `axis` (box_part), run on `pool`.
void host_copy_box_split(const void* src, const Layout& sl, void* dst, const Layout& dl,
                         const Box& box, std::size_t elem_bytes, WorkPool* pool, int axis, int parts);

}  // namespace dfft::detail
