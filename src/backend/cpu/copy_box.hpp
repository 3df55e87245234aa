// SPDX-License-Identifier: MIT
// Host strided box copy between two layouts (pack, unpack, local transpose).
#pragma once

#include <cstddef>

#include "dfft/types.hpp"

namespace dfft::detail {

void host_copy_box(const void* src, const Layout& sl, void* dst, const Layout& dl, const Box& box,
                   std::size_t elem_bytes);

}  // namespace dfft::detail
