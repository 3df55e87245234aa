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
  // Merge neighbours that are contiguous in the array (the outer stride is the inner extent
  // times the inner stride): a slab block of rows of whole planes becomes one axis per row, so
  // the kernels divide once per element or not at all.
  for (int k = w.dims - 2; k >= 0; --k)
    if (w.st[k] == w.ext[k + 1] * w.st[k + 1]) {
      w.ext[k] *= w.ext[k + 1];
      w.st[k] = w.st[k + 1];
      for (int j = k + 1; j + 1 < w.dims; ++j) {
        w.ext[j] = w.ext[j + 1];
        w.st[j] = w.st[j + 1];
      }
      --w.dims;
    }
  w.count = box.count();
  w.base = l.offset_of(box.lo);
  return w;
}

// Element offset (in complex elements, from w.base) of the i-th element in wire order. Index:
// 32-bit arithmetic where the count allows (64-bit division costs several times more).
template <class Index>
__device__ __forceinline__ std::int64_t offset(const Walk& w, Index i) {
  if (w.dims <= 1) return static_cast<std::int64_t>(i) * (w.dims ? w.st[0] : 1);
  std::int64_t off = 0;
#pragma unroll
  for (int k = kDims - 1; k >= 0; --k)
    if (k < w.dims) {
      const auto e = static_cast<Index>(w.ext[k]);
      const Index q = i / e;
      off += static_cast<std::int64_t>(i - q * e) * w.st[k];
      i = q;
    }
  return off;
}

// One complex value as a pair, with one 2-element vector access where the array is aligned
// to it (Vec) and two scalar ones otherwise.
template <class R>
struct Pair;
template <>
struct Pair<double> {
  using type = double2;
};
template <>
struct Pair<float> {
  using type = float2;
};
template <class R, bool Vec>
__device__ __forceinline__ void load2(const R* v, R& a, R& b) {
  if constexpr (Vec) {
    const auto p = *reinterpret_cast<const typename Pair<R>::type*>(v);
    a = p.x;
    b = p.y;
  } else {
    a = v[0];
    b = v[1];
  }
}
template <class R, bool Vec>
__device__ __forceinline__ void store2(R* v, R a, R b) {
  if constexpr (Vec) {
    typename Pair<R>::type p;
    p.x = a;
    p.y = b;
    *reinterpret_cast<typename Pair<R>::type*>(v) = p;
  } else {
    v[0] = a;
    v[1] = b;
  }
}

// Largest magnitude of the block, as float bits (non-negative floats order like their bits).
template <class R, class Index>
__global__ void block_max(const R* src, Walk w, unsigned* out) {
  float m = 0;
  const auto n = static_cast<Index>(w.count);
  for (Index i = blockIdx.x * Index(blockDim.x) + threadIdx.x; i < n; i += Index(gridDim.x) * blockDim.x) {
    const R* v = src + 2 * (w.base + offset(w, i));
    float a = fabsf(static_cast<float>(v[0])), b = fabsf(static_cast<float>(v[1]));
    if (!(a <= b)) b = a;  // also lets NaN through... ignored below like the host (fmax)
    if (b == b) m = fmaxf(m, b);
  }
  atomicMax(out, __float_as_uint(m));
}

__device__ double block_scale(unsigned bits) {
  const float m = __uint_as_float(bits);
  if (!(m > 0) || isinf(m)) return 1.0;
  return ldexp(1.0, ilogb(static_cast<double>(m)) - 14);
}

template <class R, int C, class Index, bool Vec>
__global__ void encode(const R* src, Walk w, char* dst) {
  double scale = 1.0;
  if (C == static_cast<int>(Codec::fp16)) scale = block_scale(*reinterpret_cast<unsigned*>(dst + 8));
  if (blockIdx.x == 0 && threadIdx.x == 0) *reinterpret_cast<double*>(dst) = scale;
  const double inv = 1.0 / scale;
  char* body = dst + kCodecHeader;
  const auto n = static_cast<Index>(w.count);
  for (Index i = blockIdx.x * Index(blockDim.x) + threadIdx.x; i < n; i += Index(gridDim.x) * blockDim.x) {
    R re, im;
    load2<R, Vec>(src + 2 * (w.base + offset(w, i)), re, im);
    if constexpr (C == static_cast<int>(Codec::fp32)) {
      reinterpret_cast<float2*>(body)[i] = make_float2(static_cast<float>(re), static_cast<float>(im));
    } else if constexpr (C == static_cast<int>(Codec::fp16)) {
      reinterpret_cast<__half2*>(body)[i] =
          __halves2half2(__double2half(static_cast<double>(re) * inv), __double2half(static_cast<double>(im) * inv));
    } else {
      reinterpret_cast<__nv_bfloat162*>(body)[i] = __halves2bfloat162(
          __float2bfloat16_rn(static_cast<float>(re)), __float2bfloat16_rn(static_cast<float>(im)));
    }
  }
}

template <class R, int C, class Index, bool Vec>
__global__ void decode(const char* src, Walk w, R* dst) {
  const double scale = *reinterpret_cast<const double*>(src);
  const char* body = src + kCodecHeader;
  const auto n = static_cast<Index>(w.count);
  for (Index i = blockIdx.x * Index(blockDim.x) + threadIdx.x; i < n; i += Index(gridDim.x) * blockDim.x) {
    R* v = dst + 2 * (w.base + offset(w, i));
    if constexpr (C == static_cast<int>(Codec::fp32)) {
      const float2 f = reinterpret_cast<const float2*>(body)[i];
      store2<R, Vec>(v, static_cast<R>(f.x), static_cast<R>(f.y));
    } else if constexpr (C == static_cast<int>(Codec::fp16)) {
      const __half2 h = reinterpret_cast<const __half2*>(body)[i];
      store2<R, Vec>(v, static_cast<R>(static_cast<double>(__low2float(h)) * scale),
                     static_cast<R>(static_cast<double>(__high2float(h)) * scale));
    } else {
      const __nv_bfloat162 h = reinterpret_cast<const __nv_bfloat162*>(body)[i];
      store2<R, Vec>(v, static_cast<R>(__low2float(h)), static_cast<R>(__high2float(h)));
    }
  }
}

int blocks_for(std::int64_t n) {
  std::int64_t b = (n + 255) / 256;
  return static_cast<int>(b < 1 ? 1 : (b > 65535 ? 65535 : b));
}

// The kernel variant for this walk: 32-bit element indices (and divisions) when the count
// allows (offsets stay 64-bit), vector accesses when the array's complex elements are aligned
// to a 2-element vector.
bool small(const Walk& w) { return w.count < (std::int64_t{1} << 31); }
template <class R>
bool aligned(const R* p) {
  return reinterpret_cast<std::uintptr_t>(p) % (2 * sizeof(R)) == 0;
}

template <class R, int C>
void encode_launch(const R* src, const Walk& w, char* dst, cudaStream_t s) {
  const int nb = blocks_for(w.count);
  const bool vec = aligned(src);
  if (small(w)) {
    if (vec) encode<R, C, std::uint32_t, true><<<nb, 256, 0, s>>>(src, w, dst);
    else encode<R, C, std::uint32_t, false><<<nb, 256, 0, s>>>(src, w, dst);
  } else {
    if (vec) encode<R, C, std::uint64_t, true><<<nb, 256, 0, s>>>(src, w, dst);
    else encode<R, C, std::uint64_t, false><<<nb, 256, 0, s>>>(src, w, dst);
  }
}

template <class R, int C>
void decode_launch(const char* src, const Walk& w, R* dst, cudaStream_t s) {
  const int nb = blocks_for(w.count);
  const bool vec = aligned(dst);
  if (small(w)) {
    if (vec) decode<R, C, std::uint32_t, true><<<nb, 256, 0, s>>>(src, w, dst);
    else decode<R, C, std::uint32_t, false><<<nb, 256, 0, s>>>(src, w, dst);
  } else {
    if (vec) decode<R, C, std::uint64_t, true><<<nb, 256, 0, s>>>(src, w, dst);
    else decode<R, C, std::uint64_t, false><<<nb, 256, 0, s>>>(src, w, dst);
  }
}

template <class R>
cudaError_t encode_as(const R* src, const Walk& w, char* dst, Codec c, cudaStream_t s) {
  switch (c) {
    case Codec::fp32: encode_launch<R, int(Codec::fp32)>(src, w, dst, s); break;
    case Codec::fp16: {
      cudaError_t e = cudaMemsetAsync(dst + 8, 0, 4, s);
      if (e != cudaSuccess) return e;
      if (small(w))
        block_max<R, std::uint32_t><<<blocks_for(w.count), 256, 0, s>>>(src, w, reinterpret_cast<unsigned*>(dst + 8));
      else
        block_max<R, std::uint64_t><<<blocks_for(w.count), 256, 0, s>>>(src, w, reinterpret_cast<unsigned*>(dst + 8));
      encode_launch<R, int(Codec::fp16)>(src, w, dst, s);
      break;
    }
    case Codec::bf16: encode_launch<R, int(Codec::bf16)>(src, w, dst, s); break;
    case Codec::none: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

template <class R>
cudaError_t decode_as(const char* src, const Walk& w, R* dst, Codec c, cudaStream_t s) {
  switch (c) {
    case Codec::fp32: decode_launch<R, int(Codec::fp32)>(src, w, dst, s); break;
    case Codec::fp16: decode_launch<R, int(Codec::fp16)>(src, w, dst, s); break;
    case Codec::bf16: decode_launch<R, int(Codec::bf16)>(src, w, dst, s); break;
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
