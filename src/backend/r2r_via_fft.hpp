// SPDX-License-Identifier: MIT
// DCT/DST of types I-IV through one FFT per line, unnormalised like FFTW's REDFT00/10/01/11 and
// RODFT00/10/01/11:
//  - type II, length N, one real FFT of length N (Makhoul, 1980): reorder the input (even
//    elements ascending, odd ones descending), real-to-complex FFT, then
//    y[k] = 2 Re(exp(-i pi k / 2N) V[k]);
//  - type III: the exact inverse procedure: W[k] = exp(i pi k / 2N) (X[k] - i X[N-k]) (X[N] = 0)
//    is the Hermitian half spectrum of a real sequence; complex-to-real FFT, undo the reorder;
//  - DST-II(x)[k] = DCT-II((-1)^j x_j)[N-1-k] and DST-III(X) = (-1)^j DCT-III(X reversed)[j];
//  - type I: the symmetric extension, one real FFT of length L = 2(N-1) (DCT: even, x mirrored
//    about both ends) or 2(N+1) (DST: odd, zeros at 0 and N+1); y[k] = Re V[k] (DCT) or
//    -Im V[k+1] (DST);
//  - type IV: y[k] = 2 Re(exp(-i pi (2k+1) / 4N) W[k]), W the complex FFT of length 2N of
//    z[j] = x[j] exp(-i pi j / 2N) (zero for j >= N); DST-IV(x)[k] = (-1)^k DCT-IV(x reversed)[k].
//
// Everything here is __host__ __device__ and free of any device's headers: it is the algorithm of
// any backend whose FFT library has no real-to-real kinds (cuFFT today), not part of one backend.
// The kernels of backend/cuda/r2r.cu call these functions, and tests/gpu/cuda_r2r_host_test.cpp
// calls the same ones on the CPU with FFTW standing in for cuFFT. A "line" is one 1-D transform;
// the data of a step are many lines.
#pragma once

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define DFFT_R2R_HD __host__ __device__ inline
#else
#define DFFT_R2R_HD inline
#endif

namespace dfft::detail::r2r {

constexpr int kMaxLineDims = 8;
enum Trig : int { kCos = 0, kSin = 1 };

/// Geometry of all lines of one axis of a step. Strides and offsets count reals (a complex
/// element is two reals; its real and imaginary parts are two lines, `parts` = 2).
struct LineGeom {
  int dims = 0;  // batch axes, slowest first (the last one varies fastest over lines)
  std::int64_t ext[kMaxLineDims] = {};
  std::int64_t is[kMaxLineDims] = {};  // source strides
  std::int64_t os[kMaxLineDims] = {};  // destination strides
  std::int64_t parts = 1;              // 2: complex data (parts at offsets 0 and 1)
  std::int64_t lines = 0;              // parts * product of ext
  std::int64_t n = 0;                  // transform length
  std::int64_t xs = 0, ys = 0;         // source / destination stride along the transformed axis
  /// Work buffers: true: each line contiguous (line-major); false: interleaved, element n of
  /// line l at n * lines + l (chosen when the transformed axis is not the fastest in memory, so
  /// that neighbouring threads touch neighbouring lines, i.e. neighbouring addresses).
  bool rows = true;
  int trig = kCos;
  int type = 2;  // 1..4: the DCT/DST type this axis applies
};

/// Length of the FFT that runs one line.
DFFT_R2R_HD std::int64_t fft_length(const LineGeom& g) {
  if (g.type == 1) return 2 * (g.trig == kSin ? g.n + 1 : g.n - 1);
  return g.type == 4 ? 2 * g.n : g.n;
}
/// Reals per line of the real work buffer (type IV has none: its FFT is complex to complex).
DFFT_R2R_HD std::int64_t real_length(const LineGeom& g) { return g.type == 4 ? 0 : fft_length(g); }
/// Complex elements per line of the complex work buffer (a half spectrum, or the whole one).
DFFT_R2R_HD std::int64_t complex_length(const LineGeom& g) {
  return g.type == 4 ? fft_length(g) : fft_length(g) / 2 + 1;
}
/// Types II and III of length 1 need no FFT (length1_at); the others always run one.
DFFT_R2R_HD bool needs_fft(const LineGeom& g) { return g.n > 1 || g.type == 1 || g.type == 4; }
/// The pre kernel fills the real work buffer (types I, II; the FFT is real to complex), else the
/// complex one; the post kernel reads the other one (type IV: in place in the complex buffer).
DFFT_R2R_HD bool pre_writes_real(const LineGeom& g) { return g.type <= 2; }
DFFT_R2R_HD bool post_reads_real(const LineGeom& g) { return g.type == 3; }

/// Position in Makhoul's reordered sequence v: v[n] = x[makhoul_index(n)].
DFFT_R2R_HD std::int64_t makhoul_index(std::int64_t n, std::int64_t N) {
  return 2 * n < N ? 2 * n : 2 * (N - 1 - n) + 1;
}
/// Inverse of makhoul_index: where x[j] sits in v.
DFFT_R2R_HD std::int64_t makhoul_inverse(std::int64_t j, std::int64_t N) {
  return j % 2 == 0 ? j / 2 : N - 1 - j / 2;
}

/// cos and sin of pi m / (2N), in double whatever the data precision (the twiddles dominate
/// the rounding error of a float transform otherwise).
DFFT_R2R_HD void quarter_twiddle(std::int64_t m, std::int64_t N, double& c, double& s) {
  const double th = 3.14159265358979323846 * static_cast<double>(m) / (2.0 * static_cast<double>(N));
  c = ::cos(th);
  s = ::sin(th);
}

/// Type II, before the FFT: element n of the real FFT input of a line whose data start at x
/// (stride xs).
template <class T>
DFFT_R2R_HD T pre2(const T* x, std::int64_t xs, std::int64_t n, std::int64_t N, int trig) {
  const std::int64_t j = makhoul_index(n, N);
  const T v = x[j * xs];
  return trig == kSin && j % 2 == 1 ? -v : v;
}

/// Type II, after the FFT: output k from the half spectrum F (interleaved complex, element m
/// at F[2 m fs], m = 0..N/2).
template <class T>
DFFT_R2R_HD T post2(const T* F, std::int64_t fs, std::int64_t k, std::int64_t N, int trig) {
  const std::int64_t m = trig == kSin ? N - 1 - k : k;
  double re, im;
  if (2 * m <= N) {
    re = static_cast<double>(F[2 * m * fs]);
    im = static_cast<double>(F[2 * m * fs + 1]);
  } else {  // V[m] = conj(V[N - m]) for the FFT of a real sequence
    re = static_cast<double>(F[2 * (N - m) * fs]);
    im = -static_cast<double>(F[2 * (N - m) * fs + 1]);
  }
  double c, s;
  quarter_twiddle(m, N, c, s);
  return static_cast<T>(2.0 * (c * re + s * im));
}

/// Element q of the type-III input as the DCT-III sees it (reversed for the DST), 0 at q = N.
template <class T>
DFFT_R2R_HD double type3_input(const T* x, std::int64_t xs, std::int64_t q, std::int64_t N,
                               int trig) {
  if (q >= N) return 0.0;
  return static_cast<double>(x[(trig == kSin ? N - 1 - q : q) * xs]);
}

/// Type III, before the FFT: element k (0..N/2) of the half spectrum W.
template <class T>
DFFT_R2R_HD void pre3(const T* x, std::int64_t xs, std::int64_t k, std::int64_t N, int trig,
                      T& re, T& im) {
  const double a = type3_input(x, xs, k, N, trig);
  const double b = type3_input(x, xs, N - k, N, trig);
  double c, s;
  quarter_twiddle(k, N, c, s);
  re = static_cast<T>(c * a + s * b);  // (c + i s)(a - i b)
  im = static_cast<T>(s * a - c * b);
}

/// Type III, after the complex-to-real FFT w (stride ws): output j.
template <class T>
DFFT_R2R_HD T post3(const T* w, std::int64_t ws, std::int64_t j, std::int64_t N, int trig) {
  const T v = w[makhoul_inverse(j, N) * ws];
  return trig == kSin && j % 2 == 1 ? -v : v;
}

/// Type I, before the FFT: element m (0..L-1) of the symmetric extension.
template <class T>
DFFT_R2R_HD T pre1(const T* x, std::int64_t xs, std::int64_t m, std::int64_t N, int trig) {
  if (trig == kCos) {
    const std::int64_t L = 2 * (N - 1);
    return x[(m < N ? m : L - m) * xs];
  }
  const std::int64_t L = 2 * (N + 1);
  if (m == 0 || m == N + 1) return T(0);
  return m <= N ? x[(m - 1) * xs] : -x[(L - m - 1) * xs];
}

/// Type I, after the FFT: output k from the half spectrum F (as post2).
template <class T>
DFFT_R2R_HD T post1(const T* F, std::int64_t fs, std::int64_t k, int trig) {
  return trig == kCos ? F[2 * k * fs] : -F[2 * (k + 1) * fs + 1];
}

/// Type IV, before the FFT: element j (0..2N-1) of the complex FFT input.
template <class T>
DFFT_R2R_HD void pre4(const T* x, std::int64_t xs, std::int64_t j, std::int64_t N, int trig,
                      T& re, T& im) {
  if (j >= N) {
    re = im = T(0);
    return;
  }
  const double v = static_cast<double>(x[(trig == kSin ? N - 1 - j : j) * xs]);
  double c, s;
  quarter_twiddle(j, N, c, s);
  re = static_cast<T>(v * c);
  im = static_cast<T>(-v * s);
}

/// Type IV, after the FFT: output k from the full spectrum F (element m at F[2 m fs]).
template <class T>
DFFT_R2R_HD T post4(const T* F, std::int64_t fs, std::int64_t k, std::int64_t N, int trig) {
  double c, s;
  quarter_twiddle(2 * k + 1, 2 * N, c, s);
  const double y = 2.0 * (c * static_cast<double>(F[2 * k * fs]) +
                          s * static_cast<double>(F[2 * k * fs + 1]));
  return static_cast<T>(trig == kSin && k % 2 == 1 ? -y : y);
}

// ---- Lines and work buffers --------------------------------------------------------------

/// Source and destination offsets (reals) of line `line`.
DFFT_R2R_HD void line_offsets(const LineGeom& g, std::int64_t line, std::int64_t& xo,
                              std::int64_t& yo) {
  xo = yo = line % g.parts;
  line /= g.parts;
  for (int k = g.dims - 1; k >= 0; --k) {
    const std::int64_t r = line % g.ext[k];
    line /= g.ext[k];
    xo += r * g.is[k];
    yo += r * g.os[k];
  }
}

/// Element strides and line distances of the work buffers (reals for the real buffer, complex
/// elements for the complex one): the cuFFT plan's advanced layout.
struct WorkLayout {
  std::int64_t rstride, rdist, cstride, cdist;
};
DFFT_R2R_HD WorkLayout work_layout(const LineGeom& g) {
  if (g.rows) return {1, real_length(g), 1, complex_length(g)};
  return {g.lines, 1, g.lines, 1};
}

/// Flat index i over `len` positions of every line -> (line, position); the order matches the
/// work buffers' so that consecutive threads write consecutive work addresses.
DFFT_R2R_HD void split_index(const LineGeom& g, std::int64_t i, std::int64_t len,
                             std::int64_t& line, std::int64_t& pos) {
  if (g.rows) {
    line = i / len;
    pos = i - line * len;
  } else {
    pos = i / g.lines;
    line = i - pos * g.lines;
  }
}

/// Work buffer positions the pre kernel writes per line.
DFFT_R2R_HD std::int64_t pre_length(const LineGeom& g) {
  return pre_writes_real(g) ? real_length(g) : complex_length(g);
}
/// Threads of the pre kernel: one per element it writes.
DFFT_R2R_HD std::int64_t pre_count(const LineGeom& g) { return g.lines * pre_length(g); }
/// Threads of the post kernel: one per output element.
DFFT_R2R_HD std::int64_t post_count(const LineGeom& g) { return g.lines * g.n; }

// One thread's work in the two kernels; i runs over pre_count / post_count. `work` is the
// real work buffer or the complex one (interleaved reals), as pre_writes_real / post_reads_real
// say.
template <class T>
DFFT_R2R_HD void pre_at(const LineGeom& g, const T* x, T* work, std::int64_t i) {
  std::int64_t line, n, xo, yo;
  split_index(g, i, pre_length(g), line, n);
  line_offsets(g, line, xo, yo);
  const WorkLayout w = work_layout(g);
  if (pre_writes_real(g)) {
    T& r = work[line * w.rdist + n * w.rstride];
    r = g.type == 1 ? pre1(x + xo, g.xs, n, g.n, g.trig) : pre2(x + xo, g.xs, n, g.n, g.trig);
    return;
  }
  const std::int64_t at = 2 * (line * w.cdist + n * w.cstride);
  if (g.type == 3) pre3(x + xo, g.xs, n, g.n, g.trig, work[at], work[at + 1]);
  else pre4(x + xo, g.xs, n, g.n, g.trig, work[at], work[at + 1]);
}
template <class T>
DFFT_R2R_HD void post_at(const LineGeom& g, const T* work, T* y, std::int64_t i) {
  std::int64_t line, k, xo, yo;
  split_index(g, i, g.n, line, k);
  line_offsets(g, line, xo, yo);
  const WorkLayout w = work_layout(g);
  T& out = y[yo + k * g.ys];
  if (post_reads_real(g)) {
    out = post3(work + line * w.rdist, w.rstride, k, g.n, g.trig);
    return;
  }
  const T* c = work + 2 * line * w.cdist;
  if (g.type == 1) out = post1(c, w.cstride, k, g.trig);
  else if (g.type == 2) out = post2(c, w.cstride, k, g.n, g.trig);
  else out = post4(c, w.cstride, k, g.n, g.trig);
}

/// Types II and III of length 1 (no FFT: the FFT of one element is itself): line i, through
/// the same pre/post.
template <class T>
DFFT_R2R_HD void length1_at(const LineGeom& g, const T* x, T* y, std::int64_t i) {
  std::int64_t xo, yo;
  line_offsets(g, i, xo, yo);
  if (g.type == 2) {
    const T f[2] = {pre2(x + xo, g.xs, 0, 1, g.trig), T(0)};
    y[yo] = post2(f, 1, 0, 1, g.trig);
  } else {
    T re, im;
    pre3(x + xo, g.xs, 0, 1, g.trig, re, im);
    y[yo] = post3(&re, 1, 0, 1, g.trig);
  }
}

}  // namespace dfft::detail::r2r
