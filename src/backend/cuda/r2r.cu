// SPDX-License-Identifier: MIT
// The pre/post-processing kernels of the DCT/DST steps (and the length-1 one): grid-stride
// loops around the per-element functions of backend/r2r_via_fft.hpp, which the CPU tests check.
#include <algorithm>
#include <cstdint>

#include "backend/cuda/r2r.hpp"

namespace dfft::detail::cuda {

namespace {

using r2r::LineGeom;

enum class Op { pre, post };

template <class T, Op op>
__global__ void r2r_kernel(const LineGeom g, const T* __restrict__ src, T* __restrict__ dst,
                           std::int64_t total) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < total; i += step) {
    if constexpr (op == Op::pre) r2r::pre_at(g, src, dst, i);
    else r2r::post_at(g, src, dst, i);
  }
}

template <class T>
__global__ void length1_kernel(const LineGeom g, const T* src, T* dst) {
  // No __restrict__: later axes of a step run in place (src == dst).
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < g.lines; i += step)
    r2r::length1_at(g, src, dst, i);
}

constexpr int kThreads = 256;

unsigned blocks_for(std::int64_t total) {
  return static_cast<unsigned>(
      std::min<std::int64_t>((total + kThreads - 1) / kThreads, std::int64_t{1} << 20));
}

template <Op op>
cudaError_t launch(const LineGeom& g, const void* src, void* dst, std::int64_t total,
                   bool is_double, cudaStream_t s) {
  if (total == 0) return cudaSuccess;
  if (is_double)
    r2r_kernel<double, op><<<blocks_for(total), kThreads, 0, s>>>(
        g, static_cast<const double*>(src), static_cast<double*>(dst), total);
  else
    r2r_kernel<float, op><<<blocks_for(total), kThreads, 0, s>>>(
        g, static_cast<const float*>(src), static_cast<float*>(dst), total);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_r2r_pre(const r2r::LineGeom& g, const void* src, void* work, bool is_double,
                           cudaStream_t s) {
  return launch<Op::pre>(g, src, work, r2r::pre_count(g), is_double, s);
}

cudaError_t launch_r2r_post(const r2r::LineGeom& g, const void* work, void* dst, bool is_double,
                            cudaStream_t s) {
  return launch<Op::post>(g, work, dst, r2r::post_count(g), is_double, s);
}

cudaError_t launch_r2r_length1(const r2r::LineGeom& g, const void* src, void* dst,
                               bool is_double, cudaStream_t s) {
  if (g.lines == 0) return cudaSuccess;
  if (is_double)
    length1_kernel<double><<<blocks_for(g.lines), kThreads, 0, s>>>(
        g, static_cast<const double*>(src), static_cast<double*>(dst));
  else
    length1_kernel<float><<<blocks_for(g.lines), kThreads, 0, s>>>(
        g, static_cast<const float*>(src), static_cast<float*>(dst));
  return cudaGetLastError();
}

}  // namespace dfft::detail::cuda
