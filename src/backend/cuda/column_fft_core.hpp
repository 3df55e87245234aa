// SPDX-License-Identifier: MIT
// dfft's own batched complex FFT along a strided axis whose batch is contiguous ("columns": point
// k of column c at k * stride + c), the per-thread work of its kernel (column_fft.cu) written as
// __host__ __device__ functions, so that the CPU tests run the same code block by block
// (tests/gpu/column_fft_host_test.cpp).
//
// Why it exists: the inverse that keeps the caller's spectrum splits its c2r into a c2c over the
// leading axis and a c2r of the others (src/exec/keep_input_c2r.hpp). On one GPU no pass over
// the data is dfft's own, so the 1/N normalisation needs a cuFFT callback, and cuFFT's
// callback-linked kernels cost 1.4 ms more than its plain ones at 1024^3 in single precision (one
// H200, docs/results/defaults.md). This kernel does that c2c with the factor folded into its
// stores.
//
// The algorithm: n = R1 * R2 (powers of two) as Cooley-Tukey's four steps inside one thread
// block: a block takes C adjacent columns (so that each row of the tile is one run of C
// elements in memory, read and written coalesced), thread (c, t) loads the R1 points
// x[R2 * n1 + t] of column c, transforms them in registers, multiplies by the twiddles
// W_n^(t * k1) and writes them to shared memory; after a barrier thread (c, k1) reads the R2
// values of its k1, transforms them in registers and stores X[k1 + R1 * k2] times the factor.
// One read and one write of every element; the inverse direction is the forward one on
// conjugated data (the conjugations fold into the load and the scaled store).
#pragma once

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define DFFT_CF_HD __host__ __device__ __forceinline__
#else
#define DFFT_CF_HD inline
#endif
#if defined(__CUDA_ARCH__)
#define DFFT_CF_UNROLL _Pragma("unroll")
#else
#define DFFT_CF_UNROLL
#endif

namespace dfft::detail::column_fft {

template <class T>
struct alignas(2 * sizeof(T)) Cplx {
  T re, im;
};

template <class T>
DFFT_CF_HD Cplx<T> cmul(Cplx<T> a, Cplx<T> b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

/// The lengths the kernel is built for, and their split n = R1 * R2 (R1 <= R2, R2 <= 2 * R1).
constexpr int kMinLog2 = 6, kMaxLog2 = 11;
constexpr int r1_of(int log2n) { return 1 << (log2n / 2); }
constexpr int r2_of(int log2n) { return 1 << (log2n - log2n / 2); }
/// Columns per thread block: the kernel is built for rows of 128 bytes (16 complex floats, 8
/// complex doubles), taken wherever the tile fits in the GPU's shared memory, and of 64 bytes.
/// One H200, the inverse c2c along x of 1024 x 1024 x 513: 2.50 ms against 3.74 in single
/// precision, 5.01 against 8.44 in double (column-fft-bench, docs/results/gpu-single.md).
template <class T>
constexpr int wide_columns() {
  return 128 / static_cast<int>(sizeof(Cplx<T>));
}
template <class T>
constexpr int narrow_columns() {
  return 64 / static_cast<int>(sizeof(Cplx<T>));
}

/// log2(n) where n is a power of two the kernel is built for, else -1.
constexpr int supported_log2(std::int64_t n) {
  for (int l = kMinLog2; l <= kMaxLog2; ++l)
    if (n == (std::int64_t{1} << l)) return l;
  return -1;
}

/// Shared-memory layout of one block's tile between the two passes: value k1 of sub-transform
/// n2 of column c. Rows of one k1 are padded by C elements, so that a warp's reads of four k1
/// in the second pass fall in different banks.
template <int R2, int C>
DFFT_CF_HD int tile_index(int k1, int n2, int c) {
  return k1 * (R2 * C + C) + n2 * C + c;
}
template <int R1, int R2, int C>
constexpr int tile_elems() {
  return R1 * (R2 * C + C);
}
/// Shared memory of one block: the tile and the table of the n twiddles.
constexpr std::int64_t shared_bytes(int log2n, int columns, int elem_bytes) {
  const std::int64_t r1 = std::int64_t{1} << (log2n / 2), r2 = std::int64_t{1} << (log2n - log2n / 2);
  return (r1 * (r2 * columns + columns) + r1 * r2) * elem_bytes;
}

/// The forward root W_m^j = exp(-2 pi i j / m) for j < m / 2, m a power of two <= 64, from the
/// first quadrant q[i] = cos(2 pi i / 64), i in [0, 16]: with k = 64 j / m < 32, cos is q[k] or
/// -q[32 - k] and sin is q[16 - k] or q[k - 16].
template <class T, class Q>
DFFT_CF_HD Cplx<T> root(const Q& q, int j, int m) {
  const int k = j * (64 / m);
  const T c = k <= 16 ? static_cast<T>(q[k]) : -static_cast<T>(q[32 - k]);
  const T s = k <= 16 ? static_cast<T>(q[16 - k]) : static_cast<T>(q[k - 16]);
  return {c, -s};
}

/// W_n^m = exp(-2 pi i m / n), computed in double and rounded to T (the kernel fills its table
/// of them once per thread block).
template <class T>
DFFT_CF_HD Cplx<T> twiddle(int m, int n) {
#if defined(__CUDA_ARCH__)
  double s, c;
  sincospi(2.0 * m / n, &s, &c);
#else
  const long double a = 2.0L * 3.141592653589793238462643383279502884L * m / n;
  const auto c = static_cast<double>(std::cos(a)), s = static_cast<double>(std::sin(a));
#endif
  return {static_cast<T>(c), static_cast<T>(-s)};
}

constexpr int log2_of(int r) { return r <= 1 ? 0 : 1 + log2_of(r / 2); }
constexpr int bit_reverse(int i, int bits) {
  int r = 0;
  for (int b = 0; b < bits; ++b) r |= ((i >> b) & 1) << (bits - 1 - b);
  return r;
}

/// Forward DFT of R points in registers, in place, natural order out (radix-2, decimation in
/// time). Every index is a compile-time constant once the loops are unrolled, so `v` stays in
/// registers; the twiddles 1 and -i cost no multiplication.
template <int R, class T, class Q>
DFFT_CF_HD void dft(Cplx<T> (&v)[R], const Q& q) {
  constexpr int L = log2_of(R);
DFFT_CF_UNROLL
  for (int i = 0; i < R; ++i) {
    const int j = bit_reverse(i, L);
    if (i < j) {
      const Cplx<T> t = v[i];
      v[i] = v[j];
      v[j] = t;
    }
  }
DFFT_CF_UNROLL
  for (int s = 0; s < L; ++s) {
    const int half = 1 << s;
DFFT_CF_UNROLL
    for (int j = 0; j < half; ++j) {
      const Cplx<T> w = root<T>(q, j, 2 * half);
DFFT_CF_UNROLL
      for (int k = 0; k < R; k += 2 * half) {
        const Cplx<T> a = v[k + j];
        const Cplx<T> x = v[k + j + half];
        Cplx<T> b;
        if (j == 0) {
          b = x;
        } else if (2 * j == half) {
          b = {x.im, -x.re};  // times -i
        } else {
          b = cmul(x, w);
        }
        v[k + j] = {a.re + b.re, a.im + b.im};
        v[k + j + half] = {a.re - b.re, a.im - b.im};
      }
    }
  }
}

/// What one launch transforms: `outer` groups of `columns` columns, point k of column c of
/// group o at o * outer_istride + k * istride + c in `in` (the same with the o-strides in
/// `out`). `conj`: -1 for the inverse direction (the data are conjugated on the way in and
/// out), +1 for the forward; `factor` multiplies every output.
struct Geom {
  std::int64_t columns = 0, istride = 0, ostride = 0;
  std::int64_t outer = 1, outer_istride = 0, outer_ostride = 0;
  int conj = 1;
  double factor = 1;
};

/// Tiles of one launch: every group's columns in tiles of C, group by group.
template <int C>
DFFT_CF_HD std::int64_t tile_count(const Geom& g) {
  return (g.columns + C - 1) / C * g.outer;
}

/// Tile `tile` of a launch as (group, tile within the group); one division, and none for the
/// usual single group.
template <int C>
DFFT_CF_HD void tile_in_group(const Geom& g, std::int64_t tile, std::int64_t& group, std::int64_t& within) {
  if (g.outer == 1) {
    group = 0;
    within = tile;
    return;
  }
  const std::int64_t per = (g.columns + C - 1) / C;
  group = tile / per;
  within = tile - group * per;
}

/// *p; with `Uncached` on a GPU through L2 only (ld.global.cg), for data that other thread
/// blocks wrote during the same launch: a line in this SM's L1 may be older than theirs.
template <bool Uncached, class T>
DFFT_CF_HD Cplx<T> load(const Cplx<T>* p) {
#if defined(__CUDA_ARCH__)
  if constexpr (Uncached) {
    if constexpr (sizeof(T) == 4) {
      const float2 v = __ldcg(reinterpret_cast<const float2*>(p));
      return {v.x, v.y};
    } else {
      const double2 v = __ldcg(reinterpret_cast<const double2*>(p));
      return {v.x, v.y};
    }
  }
#endif
  return *p;
}

/// First pass of thread (c, t) of tile `tile` of a group (`in` at the group's start; columns
/// tile * C + c): the R1 points of
/// sub-transform t, their R1-point DFT, times the twiddles tw[m] = W_n^m (n = R1 * R2 entries)
/// into the shared tile `sh`.
template <class T, int R1, int R2, int C, bool Uncached = false, class Q>
DFFT_CF_HD void pass_one(const Cplx<T>* in, Cplx<T>* sh, const Cplx<T>* tw, const Geom& g, std::int64_t tile,
                         int c, int t, const Q& q) {
  if (t >= R2) return;
  const std::int64_t col = tile * C + c;
  const bool live = col < g.columns;
  Cplx<T> v[R1];
  const T s = static_cast<T>(g.conj);
DFFT_CF_UNROLL
  for (int n1 = 0; n1 < R1; ++n1) {
    const Cplx<T> x = live ? load<Uncached>(in + static_cast<std::int64_t>(R2 * n1 + t) * g.istride + col) : Cplx<T>{0, 0};
    v[n1] = {x.re, s * x.im};
  }
  dft<R1>(v, q);
DFFT_CF_UNROLL
  for (int k1 = 0; k1 < R1; ++k1) sh[tile_index<R2, C>(k1, t, c)] = k1 == 0 ? v[0] : cmul(v[k1], tw[t * k1]);
}

/// Second pass of thread (c, k1): the R2 values of k1 from the tile, their R2-point DFT, stored
/// as X[k1 + R1 * k2] times the factor (conjugated back for the inverse).
template <class T, int R1, int R2, int C, class Q>
DFFT_CF_HD void pass_two(const Cplx<T>* sh, Cplx<T>* out, const Geom& g, std::int64_t tile, int c, int k1,
                         const Q& q) {
  if (k1 >= R1) return;
  const std::int64_t col = tile * C + c;
  Cplx<T> v[R2];
DFFT_CF_UNROLL
  for (int n2 = 0; n2 < R2; ++n2) v[n2] = sh[tile_index<R2, C>(k1, n2, c)];
  dft<R2>(v, q);
  if (col >= g.columns) return;
  const T fr = static_cast<T>(g.factor), fi = static_cast<T>(g.factor * g.conj);
DFFT_CF_UNROLL
  for (int k2 = 0; k2 < R2; ++k2)
    out[static_cast<std::int64_t>(k1 + R1 * k2) * g.ostride + col] = {v[k2].re * fr, v[k2].im * fi};
}

}  // namespace dfft::detail::column_fft
