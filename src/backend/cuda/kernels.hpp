// SPDX-License-Identifier: MIT
// Device kernels of the CUDA backend, behind plain launchers so that host code needs no nvcc.
// Launchers return the launch error (cudaSuccess when queued); callers check it.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace dfft::detail::cuda {

constexpr int kMaxDims = 8;

/// A strided box copy, already reduced by the host: `dims` axes listed slowest to fastest in
/// the destination's memory order; strides in elements. The caller has merged axes that are
/// contiguous in both arrays and dropped axes of extent 1.
struct CopyGeom {
  int dims = 0;
  std::int64_t ext[kMaxDims] = {};
  std::int64_t ss[kMaxDims] = {};  // source strides
  std::int64_t ds[kMaxDims] = {};  // destination strides
  std::int64_t count = 0;          // product of ext
  /// Transpose case: index of the axis that is contiguous in the source (ss == 1) when it is
  /// not the destination's fastest axis; -1 otherwise.
  int src_fast = -1;
};

#if defined(__CUDACC__)
#define DFFT_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define DFFT_HOST_DEVICE inline
#endif
#if defined(__CUDA_ARCH__)
#define DFFT_UNROLL _Pragma("unroll")
#else
#define DFFT_UNROLL
#endif

/// Offsets in source and destination of linear index i (destination order). Index is 32-bit
/// when the box has fewer than 2^32 elements (the divisions dominate the cost otherwise).
template <class Index>
DFFT_HOST_DEVICE void flat_offsets(const CopyGeom& g, Index i, std::int64_t& so, std::int64_t& dof) {
  so = 0;
  dof = 0;
DFFT_UNROLL
  for (int k = kMaxDims - 1; k >= 0; --k) {
    if (k < g.dims) {
      const Index e = static_cast<Index>(g.ext[k]);
      const Index q = i / e;
      const auto r = static_cast<std::int64_t>(i - q * e);
      so += r * g.ss[k];
      dof += r * g.ds[k];
      i = q;
    }
  }
}

/// Transpose kernel: offsets of "row" `row` (all axes but the source-fast one, g.src_fast, and
/// the destination-fast one, the last).
DFFT_HOST_DEVICE void row_offsets(const CopyGeom& g, std::int64_t row, std::int64_t& so,
                                  std::int64_t& dof) {
  so = 0;
  dof = 0;
  for (int k = g.dims - 1; k >= 0; --k) {
    if (k == g.src_fast || k == g.dims - 1) continue;
    const std::int64_t r = row % g.ext[k];
    row /= g.ext[k];
    so += r * g.ss[k];
    dof += r * g.ds[k];
  }
}

cudaError_t launch_copy(const void* src, void* dst, const CopyGeom& g, int elem_bytes,
                        cudaStream_t s);
cudaError_t launch_scale(void* data, std::int64_t n, double factor, bool is_double,
                         cudaStream_t s);
/// dst[i] = src[i] * factor for n reals: a copy that normalises on the way.
cudaError_t launch_scale_copy(const void* src, void* dst, std::int64_t n, double factor,
                              bool is_double, cudaStream_t s);

}  // namespace dfft::detail::cuda
