// SPDX-License-Identifier: MIT
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "backend/cuda/codec.hpp"
#include "codec/codec.hpp"

namespace dfft::detail::cuda {

namespace {

constexpr int kDims = 8;

// The box in wire order: extents and the strided array's strides (elements), extent-1 axes
// dropped; base offset of the box's first element.
struct Walk {
  int dims = 0;
  std::int64_t ext[kDims] = {}, st[kDims] = {};
  std::int64_t count = 0, base = 0;
};

Walk make_walk(const Layout& l, const Box& box, const std::vector<int>& order) {
  Walk w;
  auto st = l.strides();
  for (int a : order)
    if (box.extent(a) > 1 && w.dims < kDims) {
      w.ext[w.dims] = box.extent(a);
      w.st[w.dims] = st[a];
      ++w.dims;
    }
  w.count = box.count();
  w.base = l.offset_of(box.lo);
  return w;
}

__device__ __forceinline__ std::int64_t offset(const Walk& w, std::int64_t i) {
  std::int64_t off = 0;
#pragma unroll
  for (int k = kDims - 1; k >= 0; --k)
    if (k < w.dims) {
      const std::int64_t q = i / w.ext[k];
      off += (i - q * w.ext[k]) * w.st[k];
      i = q;
    }
  return off;
}

// Largest magnitude of the block, as the bits of a double (non-negative doubles order like their
// bits), taken in the data's own precision: double data far outside float's range (1e60, 1e-60)
// must still get a scale that brings it into half's range, as the host codec does.
template <class R>
__global__ void block_max(const R* src, Walk w, unsigned long long* out) {
  double m = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < w.count;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const R* v = src + 2 * (w.base + offset(w, i));
    double a = fabs(static_cast<double>(v[0])), b = fabs(static_cast<double>(v[1]));
    if (!(a <= b)) b = a;  // also lets NaN through... ignored below like the host (fmax)
    if (b == b) m = fmax(m, b);
  }
  atomicMax(out, static_cast<unsigned long long>(__double_as_longlong(m)));
}

__device__ double block_scale(unsigned long long bits) {
  const double m = __longlong_as_double(static_cast<long long>(bits));
  if (!(m > 0) || isinf(m)) return 1.0;
  return ldexp(1.0, ilogb(m) - 14);
}

template <class R, int C>
__global__ void encode(const R* src, Walk w, char* dst) {
  double scale = 1.0;
  if (C == static_cast<int>(Codec::fp16)) scale = block_scale(*reinterpret_cast<unsigned long long*>(dst + 8));
  if (blockIdx.x == 0 && threadIdx.x == 0) *reinterpret_cast<double*>(dst) = scale;
  const double inv = 1.0 / scale;
  char* body = dst + kCodecHeader;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < w.count;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const R* v = src + 2 * (w.base + offset(w, i));
    if constexpr (C == static_cast<int>(Codec::fp32)) {
      reinterpret_cast<float2*>(body)[i] = make_float2(static_cast<float>(v[0]), static_cast<float>(v[1]));
    } else if constexpr (C == static_cast<int>(Codec::fp16)) {
      reinterpret_cast<__half2*>(body)[i] =
          __halves2half2(__double2half(static_cast<double>(v[0]) * inv), __double2half(static_cast<double>(v[1]) * inv));
    } else {
      reinterpret_cast<__nv_bfloat162*>(body)[i] = __halves2bfloat162(
          __float2bfloat16_rn(static_cast<float>(v[0])), __float2bfloat16_rn(static_cast<float>(v[1])));
    }
  }
}

template <class R, int C>
__global__ void decode(const char* src, Walk w, R* dst) {
  const double scale = *reinterpret_cast<const double*>(src);
  const char* body = src + kCodecHeader;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < w.count;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    R* v = dst + 2 * (w.base + offset(w, i));
    if constexpr (C == static_cast<int>(Codec::fp32)) {
      float2 f = reinterpret_cast<const float2*>(body)[i];
      v[0] = static_cast<R>(f.x);
      v[1] = static_cast<R>(f.y);
    } else if constexpr (C == static_cast<int>(Codec::fp16)) {
      __half2 h = reinterpret_cast<const __half2*>(body)[i];
      v[0] = static_cast<R>(static_cast<double>(__low2float(h)) * scale);
      v[1] = static_cast<R>(static_cast<double>(__high2float(h)) * scale);
    } else {
      __nv_bfloat162 h = reinterpret_cast<const __nv_bfloat162*>(body)[i];
      v[0] = static_cast<R>(__low2float(h));
      v[1] = static_cast<R>(__high2float(h));
    }
  }
}

int blocks_for(std::int64_t n) {
  std::int64_t b = (n + 255) / 256;
  return static_cast<int>(b < 1 ? 1 : (b > 65535 ? 65535 : b));
}

template <class R>
cudaError_t encode_as(const R* src, const Walk& w, char* dst, Codec c, cudaStream_t s) {
  const int nb = blocks_for(w.count);
  switch (c) {
    case Codec::fp32: encode<R, int(Codec::fp32)><<<nb, 256, 0, s>>>(src, w, dst); break;
    case Codec::fp16: {
      cudaError_t e = cudaMemsetAsync(dst + 8, 0, 8, s);
      if (e != cudaSuccess) return e;
      block_max<R><<<nb, 256, 0, s>>>(src, w, reinterpret_cast<unsigned long long*>(dst + 8));
      encode<R, int(Codec::fp16)><<<nb, 256, 0, s>>>(src, w, dst);
      break;
    }
    case Codec::bf16: encode<R, int(Codec::bf16)><<<nb, 256, 0, s>>>(src, w, dst); break;
    case Codec::none: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

template <class R>
cudaError_t decode_as(const char* src, const Walk& w, R* dst, Codec c, cudaStream_t s) {
  const int nb = blocks_for(w.count);
  switch (c) {
    case Codec::fp32: decode<R, int(Codec::fp32)><<<nb, 256, 0, s>>>(src, w, dst); break;
    case Codec::fp16: decode<R, int(Codec::fp16)><<<nb, 256, 0, s>>>(src, w, dst); break;
    case Codec::bf16: decode<R, int(Codec::bf16)><<<nb, 256, 0, s>>>(src, w, dst); break;
    case Codec::none: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t encode_box_async(const void* src, const Layout& sl, const Box& box,
                             const std::vector<int>& order, void* dst, Codec c, bool is_double,
                             cudaStream_t s) {
  if (box.empty()) return cudaSuccess;
  Walk w = make_walk(sl, box, order);
  if (is_double) return encode_as(static_cast<const double*>(src), w, static_cast<char*>(dst), c, s);
  return encode_as(static_cast<const float*>(src), w, static_cast<char*>(dst), c, s);
}

cudaError_t decode_box_async(const void* src, const std::vector<int>& order, void* dst,
                             const Layout& dl, const Box& box, Codec c, bool is_double,
                             cudaStream_t s) {
  if (box.empty()) return cudaSuccess;
  Walk w = make_walk(dl, box, order);
  if (is_double) return decode_as(static_cast<const char*>(src), w, static_cast<double*>(dst), c, s);
  return decode_as(static_cast<const char*>(src), w, static_cast<float*>(dst), c, s);
}

}  // namespace dfft::detail::cuda
