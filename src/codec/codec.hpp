// SPDX-License-Identifier: MIT
// Codecs: what an exchanged block looks like on the wire. Local FFTs stay in working
// precision; only the bytes between ranks are narrowed (Cayrols et al., "lossy all-to-all").
//
// A coded block is a 16-byte header (the block's scale, a double, then 8 reserved bytes: zero
// from the host encoder, the block maximum's bits from the GPU one) followed by the elements of
// the block in wire order, each complex value as two reals of the wire format. fp16 scales
// every block by a power of two so that its largest magnitude maps just below 2^15: nothing
// overflows to inf (max half is 65504) and small-valued blocks are not flushed to zero. fp32 and
// bf16 keep the exponent range of float, so their scale is 1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "dfft/types.hpp"

namespace dfft::detail {

constexpr std::int64_t kCodecHeader = 16;

/// Bytes of one complex element on the wire (elem = 8 for complex<float>, 16 for complex<double>).
std::size_t wire_elem_bytes(Codec c, std::size_t elem);
/// Bytes of a coded block of `count` elements (0 for an empty block).
std::int64_t wire_bytes(Codec c, std::size_t elem, std::int64_t count);
/// Cheapest codec whose expected relative error stays below `tolerance` for a transform with
/// `exchanges` exchanges in `is_double` working precision (see docs/compression.md).
Codec codec_for_tolerance(double tolerance, int exchanges, bool is_double);

/// IEEE binary16 bits of `x` rounded to nearest, ties to even, in one rounding (as a cast to
/// _Float16 or CUDA's __double2half): overflow gives inf, NaN a quiet NaN. Integer arithmetic,
/// without the compiler's soft-float call per value (x86-64 has no double-to-half instruction).
std::uint16_t half_from_double(double x);
/// The value of IEEE binary16 bits `h` (exact).
double double_from_half(std::uint16_t h);

class WorkPool;  // backend/cpu/work_pool.hpp

/// Host encode of `box` read from `src` (layout sl) in `wire_order`; writes header + values.
/// With a pool, large blocks are cut along the slowest wire axis and coded by the team.
void host_encode_box(const void* src, const Layout& sl, const Box& box,
                     const std::vector<int>& wire_order, void* dst, Codec c, bool is_double,
                     WorkPool* pool = nullptr);
/// Host decode of a coded block (in `wire_order`) into `dst` (layout dl).
void host_decode_box(const void* src, const std::vector<int>& wire_order, void* dst,
                     const Layout& dl, const Box& box, Codec c, bool is_double,
                     WorkPool* pool = nullptr);

}  // namespace dfft::detail
