// SPDX-License-Identifier: MIT
// Compressed exchanges on the GPU: encode/decode kernels fused with the strided pack/unpack
// (the wire format of src/codec/codec.hpp: 16-byte header with the block's scale, then the
// values in wire order).
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "dfft/types.hpp"

namespace dfft::detail::cuda {

/// Enqueue on `s`: encode `box` of `src` (layout sl) visited in `wire_order` into dst.
cudaError_t encode_box_async(const void* src, const Layout& sl, const Box& box,
                             const std::vector<int>& wire_order, void* dst, Codec c, bool is_double,
                             cudaStream_t s);
/// Enqueue on `s`: decode a coded block (wire order) into `box` of dst (layout dl).
cudaError_t decode_box_async(const void* src, const std::vector<int>& wire_order, void* dst,
                             const Layout& dl, const Box& box, Codec c, bool is_double,
                             cudaStream_t s);

}  // namespace dfft::detail::cuda
