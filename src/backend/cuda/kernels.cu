// SPDX-License-Identifier: MIT
// Box copy (pack, unpack, local transpose) and scale (in place or while copying) kernels.
//
// Two copy kernels. When source and destination share their fastest axis (after the host has
// merged axes contiguous in both), a flat kernel walks the box in destination order: reads and
// writes are both coalesced. Otherwise a tiled kernel transposes the plane spanned by the
// source's and the destination's fastest axes through shared memory, so that both the reads
// and the writes of a warp touch consecutive addresses.
#include <algorithm>
#include <cstdint>

#include "backend/cuda/kernels.hpp"

namespace dfft::detail::cuda {

namespace {

template <int N>
struct ElemOf;
template <>
struct ElemOf<4> {
  using type = unsigned int;
};
template <>
struct ElemOf<8> {
  using type = uint2;
};
template <>
struct ElemOf<16> {
  using type = uint4;
};

template <class T, class Index>
__global__ void copy_flat(const T* __restrict__ src, T* __restrict__ dst, const CopyGeom g) {
  const auto n = static_cast<std::uint64_t>(g.count);
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    std::int64_t so, dof;
    flat_offsets<Index>(g, static_cast<Index>(i), so, dof);
    dst[dof] = src[so];
  }
}

constexpr int kTile = 32;
constexpr int kRows = 8;

// Plane (a = source-fast axis, c = destination-fast axis = last); all other axes are "rows".
template <class T>
__global__ void copy_transpose(const T* __restrict__ src, T* __restrict__ dst, const CopyGeom g,
                               std::int64_t rows) {
  __shared__ T tile[kTile][kTile + 1];
  const int a = g.src_fast, c = g.dims - 1;
  const std::int64_t na = g.ext[a], nc = g.ext[c];
  const std::int64_t tiles_a = (na + kTile - 1) / kTile;
  const std::int64_t a0 = (blockIdx.x % tiles_a) * kTile, c0 = (blockIdx.x / tiles_a) * kTile;
  for (std::int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    std::int64_t so, dof;
    row_offsets(g, row, so, dof);
    for (int j = threadIdx.y; j < kTile; j += kRows) {
      const std::int64_t ia = a0 + threadIdx.x, ic = c0 + j;
      if (ia < na && ic < nc) tile[j][threadIdx.x] = src[so + ia * g.ss[a] + ic * g.ss[c]];
    }
    __syncthreads();
    for (int j = threadIdx.y; j < kTile; j += kRows) {
      const std::int64_t ic = c0 + threadIdx.x, ia = a0 + j;
      if (ia < na && ic < nc) dst[dof + ia * g.ds[a] + ic * g.ds[c]] = tile[threadIdx.x][j];
    }
    __syncthreads();
  }
}

template <int N>
cudaError_t copy_typed(const void* src, void* dst, const CopyGeom& g, cudaStream_t s) {
  using T = typename ElemOf<N>::type;
  const auto* sp = static_cast<const T*>(src);
  auto* dp = static_cast<T*>(dst);
  if (g.src_fast >= 0) {
    const std::int64_t na = g.ext[g.src_fast], nc = g.ext[g.dims - 1];
    const std::int64_t tiles = ((na + kTile - 1) / kTile) * ((nc + kTile - 1) / kTile);
    const std::int64_t rows = g.count / (na * nc);
    if (tiles < (std::int64_t{1} << 31)) {
      dim3 grid(static_cast<unsigned>(tiles), static_cast<unsigned>(std::min<std::int64_t>(rows, 65535)));
      copy_transpose<T><<<grid, dim3(kTile, kRows), 0, s>>>(sp, dp, g, rows);
      return cudaGetLastError();
    }
  }
  const int threads = 256;
  const auto blocks = static_cast<unsigned>(
      std::min<std::int64_t>((g.count + threads - 1) / threads, std::int64_t{1} << 20));
  if (g.count < (std::int64_t{1} << 32))
    copy_flat<T, std::uint32_t><<<blocks, threads, 0, s>>>(sp, dp, g);
  else
    copy_flat<T, std::uint64_t><<<blocks, threads, 0, s>>>(sp, dp, g);
  return cudaGetLastError();
}

// dst[i] = src[i] * f; src == dst scales in place (so no __restrict__).
template <class T>
__global__ void scale_kernel(const T* src, T* dst, std::int64_t n, T f) {
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    dst[i] = src[i] * f;
}

}  // namespace

cudaError_t launch_copy(const void* src, void* dst, const CopyGeom& g, int elem_bytes,
                        cudaStream_t s) {
  if (g.count == 0) return cudaSuccess;
  switch (elem_bytes) {
    case 4: return copy_typed<4>(src, dst, g, s);
    case 8: return copy_typed<8>(src, dst, g, s);
    case 16: return copy_typed<16>(src, dst, g, s);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t launch_scale(void* data, std::int64_t n, double factor, bool is_double,
                         cudaStream_t s) {
  return launch_scale_copy(data, data, n, factor, is_double, s);
}

cudaError_t launch_scale_copy(const void* src, void* dst, std::int64_t n, double factor,
                              bool is_double, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  const int threads = 256;
  const auto blocks =
      static_cast<unsigned>(std::min<std::int64_t>((n + threads - 1) / threads, 65536));
  if (is_double)
    scale_kernel<double><<<blocks, threads, 0, s>>>(static_cast<const double*>(src),
                                                    static_cast<double*>(dst), n, factor);
  else
    scale_kernel<float><<<blocks, threads, 0, s>>>(static_cast<const float*>(src),
                                                   static_cast<float*>(dst), n,
                                                   static_cast<float>(factor));
  return cudaGetLastError();
}

}  // namespace dfft::detail::cuda
