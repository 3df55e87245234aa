// SPDX-License-Identifier: MIT
// dfft's plane kernel: the r2c (or c2r) of the two fast axes of every plane of an array in one
// pass over device memory, written as __host__ __device__ block steps so that the CPU tests run
// the same code (tests/gpu/plane_fft_host_test.cpp); plane_fft.cu launches it.
//
// Why: cuFFT runs such a batch as two or three kernels over the whole batch, each reading and
// writing device memory (2.2 passes at 1024 x 1024 planes on an H100, docs/results/gpu-single.md),
// and calling it on groups of planes small enough for the L2 cache gains at most 4% there: its
// kernels on a few planes are too short to keep the GPU busy. Here a cluster of thread blocks
// (Hopper's thread block clusters) owns a plane: its blocks transform the plane's rows, reading
// device memory once and writing the rows' spectra, which stay in the L2; after the cluster's
// barrier they transform the plane's columns from there and write the result. The clusters in
// flight hold a few planes, so the row results are read back from the L2, not from memory.
//
// A row of Nx reals is Nx/2 = M complex values z[n] = x[2n] + i x[2n+1]; their M-point DFT Z
// gives the row's spectrum X[k] = (Z[k] + conj Z[M-k]) / 2 - i W_Nx^k (Z[k] - conj Z[M-k]) / 2
// for k in [0, M] (Z[M] = Z[0]); the c2r inverts those steps: Z[k] = (X[k] + conj X[M-k]) +
// i conj(W_Nx^k) (X[k] - conj X[M-k]), then the inverse M-point DFT, which gives Nx times the
// row, as an unnormalised c2r does. The M-point DFTs of a batch of C rows, and the Ny-point DFTs of
// the columns, are the column FFT's two passes (column_fft_core.hpp): rows are first copied
// into a padded shared-memory tile in which they are columns.
#pragma once

#include "backend/cuda/column_fft_core.hpp"

namespace dfft::detail::plane_fft {

using column_fft::Cplx;

/// The arrays of one launch: `planes` planes of ny rows; the real side's rows hold nx reals
/// (`real_row` apart, in reals; planes `real_plane` apart), the complex side's hold nx/2 + 1
/// values (`cplx_row`, `cplx_plane`, in complex elements). `factor` multiplies the result.
struct Geom {
  std::int64_t planes = 0, real_row = 0, real_plane = 0, cplx_row = 0, cplx_plane = 0;
  double factor = 1;
};

/// Lengths built: square planes of 2^kMinLog2 to 2^kMaxLog2 per axis.
constexpr int kMinLog2 = 8, kMaxLog2 = 10;

/// Rows (or columns) per batch of a block: rows of 128 bytes in the column steps, as the column
/// kernel's wide tiles; threads per block: C * 32 (the widest sub-transform of the lengths built).
template <class T>
constexpr int columns() {
  return column_fft::wide_columns<T>();
}
template <class T>
constexpr int threads() {
  return columns<T>() * 32;
}

/// Shared memory of a block, in complex elements: the three tables (the M-point DFT's
/// twiddles, the r2c's W_Nx^k for k in [0, M], the column DFT's), then one region that the row
/// step uses as its padded batch and the column FFT's tile, and the column step as its tile.
template <int L, int C>
struct Shared {
  static constexpr int N = 1 << L, M = N / 2;
  static constexpr int rows_tile = column_fft::tile_elems<column_fft::r1_of(L - 1), column_fft::r2_of(L - 1), C>();
  static constexpr int cols_tile = column_fft::tile_elems<column_fft::r1_of(L), column_fft::r2_of(L), C>();
  static constexpr int batch = M * (C + 1);  // value n of batch row r at n * (C + 1) + r
  static constexpr int tw_rows = 0, tw_r2c = M, tw_cols = 2 * M + 1, region = 2 * M + 1 + N;
  static constexpr int row_tile = region + batch;
  static constexpr int elems = region + (batch + rows_tile > cols_tile ? batch + rows_tile : cols_tile);
};

/// The tables, filled by every thread of a block (`tid` of `nthreads`).
template <class T, int L, int C>
DFFT_CF_HD void fill_tables(Cplx<T>* sh, int tid, int nthreads) {
  using S = Shared<L, C>;
  for (int m = tid; m < S::M; m += nthreads) sh[S::tw_rows + m] = column_fft::twiddle<T>(m, S::M);
  for (int k = tid; k <= S::M; k += nthreads) sh[S::tw_r2c + k] = column_fft::twiddle<T>(k, S::N);
  for (int m = tid; m < S::N; m += nthreads) sh[S::tw_cols + m] = column_fft::twiddle<T>(m, S::N);
}

/// The batch's geometry as the column FFT sees it: C rows as columns of a padded tile.
template <int C>
DFFT_CF_HD column_fft::Geom batch_geom(int conj, double factor) {
  column_fft::Geom b;
  b.columns = C;
  b.istride = b.ostride = C + 1;
  b.conj = conj;
  b.factor = factor;
  return b;
}

/// Elements of a batch of C rows of M values that each of `Threads` threads moves: a thread
/// issues all its loads before its first store, so that many are in flight (one block fills an
/// SM's shared memory, so the loads of one block must keep device memory busy).
template <int L, int C, int Threads>
constexpr int per_thread() {
  return C * ((1 << L) / 2) / Threads;
}

/// Forward, first step, in two halves: fetch_real_rows reads this thread's share of rows row0
/// .. row0 + C - 1 of the plane at `real` (each row as M complex values, `tid` of `Threads`,
/// which divide the batch) into registers; put_rows writes them into the batch, a row C + 1 apart.
/// The kernel fetches the next batch before transforming this one, so that its reads are in
/// flight meanwhile.
template <class T, int L, int C, int Threads>
DFFT_CF_HD void fetch_real_rows(const T* real, const Geom& g, int row0, Cplx<T> (&v)[per_thread<L, C, Threads>()],
                                int tid) {
  constexpr int M = (1 << L) / 2, P = per_thread<L, C, Threads>();
  static_assert(P * Threads == C * M, "the threads divide the batch");
DFFT_CF_UNROLL
  for (int j = 0; j < P; ++j) {
    const int i = tid + j * Threads, r = i / M, n = i - r * M;
    v[j] = reinterpret_cast<const Cplx<T>*>(real + (row0 + r) * g.real_row)[n];
  }
}
template <class T, int L, int C, int Threads>
DFFT_CF_HD void put_rows(const Cplx<T> (&v)[per_thread<L, C, Threads>()], Cplx<T>* sh, int tid) {
  using S = Shared<L, C>;
  Cplx<T>* b = sh + S::region;
DFFT_CF_UNROLL
  for (int j = 0; j < per_thread<L, C, Threads>(); ++j) {
    const int i = tid + j * Threads, r = i / S::M, n = i - r * S::M;
    b[n * (C + 1) + r] = v[j];
  }
}

/// Forward, last step: the rows' spectra from the batch's DFTs Z into the plane at `cplx`.
template <class T, int L, int C>
DFFT_CF_HD void store_spectra(const Cplx<T>* sh, Cplx<T>* cplx, const Geom& g, int row0, int tid, int nthreads) {
  using S = Shared<L, C>;
  const Cplx<T>* b = sh + S::region;
  for (int i = tid; i < C * (S::M + 1); i += nthreads) {
    const int r = i / (S::M + 1), k = i - r * (S::M + 1);
    const Cplx<T> z = b[(k == S::M ? 0 : k) * (C + 1) + r], zm = b[(k == 0 ? 0 : S::M - k) * (C + 1) + r];
    const T er = (z.re + zm.re) / 2, ei = (z.im - zm.im) / 2;  // (Z[k] + conj Z[M-k]) / 2
    const T dr = (z.re - zm.re) / 2, di = (z.im + zm.im) / 2;  // (Z[k] - conj Z[M-k]) / 2
    const Cplx<T> w = sh[S::tw_r2c + k];
    const Cplx<T> wd = column_fft::cmul(w, Cplx<T>{dr, di});
    cplx[(row0 + r) * g.cplx_row + k] = {er + wd.im, ei - wd.re};  // E - i W D
  }
}

/// Inverse, first row step: the rows' values Z for the c2r's M-point DFT from their spectra
/// at `cplx` (written by other blocks in the same launch: read through L2).
template <class T, int L, int C, int Threads>
DFFT_CF_HD void load_spectra(const Cplx<T>* cplx, const Geom& g, int row0, Cplx<T>* sh, int tid) {
  using S = Shared<L, C>;
  constexpr int P = per_thread<L, C, Threads>();
  static_assert(P * Threads == C * S::M, "the threads divide the batch");
  Cplx<T>* b = sh + S::region;
  Cplx<T> x[P], xm[P];
DFFT_CF_UNROLL
  for (int j = 0; j < P; ++j) {
    const int i = tid + j * Threads, r = i / S::M, k = i - r * S::M;
    const Cplx<T>* row = cplx + (row0 + r) * g.cplx_row;
    x[j] = column_fft::load<true>(row + k);
    xm[j] = column_fft::load<true>(row + (S::M - k));
  }
DFFT_CF_UNROLL
  for (int j = 0; j < P; ++j) {
    const int i = tid + j * Threads, r = i / S::M, k = i - r * S::M;
    const T sr = x[j].re + xm[j].re, si = x[j].im - xm[j].im;  // X[k] + conj X[M-k]
    const T dr = x[j].re - xm[j].re, di = x[j].im + xm[j].im;  // X[k] - conj X[M-k]
    const Cplx<T> w = sh[S::tw_r2c + k];
    const Cplx<T> wd = column_fft::cmul(Cplx<T>{w.re, -w.im}, Cplx<T>{dr, di});
    b[k * (C + 1) + r] = {sr - wd.im, si + wd.re};  // S + i conj(W) D
  }
}

/// Inverse, last step: the rows' M-point results into the plane at `real` as Nx reals each.
template <class T, int L, int C>
DFFT_CF_HD void store_real_rows(const Cplx<T>* sh, T* real, const Geom& g, int row0, int tid, int nthreads) {
  using S = Shared<L, C>;
  const Cplx<T>* b = sh + S::region;
  for (int i = tid; i < C * S::M; i += nthreads) {
    const int r = i / S::M, n = i - r * S::M;
    reinterpret_cast<Cplx<T>*>(real + (row0 + r) * g.real_row)[n] = b[n * (C + 1) + r];
  }
}

/// The column step's geometry on one plane: the nx/2 + 1 columns of ny points, in place.
template <int L>
DFFT_CF_HD column_fft::Geom column_geom(const Geom& g, int conj, double factor) {
  column_fft::Geom c;
  c.columns = (1 << L) / 2 + 1;
  c.istride = c.ostride = g.cplx_row;
  c.conj = conj;
  c.factor = factor;
  return c;
}

/// Batches of rows and tiles of columns of one plane.
template <int L, int C>
constexpr int row_batches() {
  return (1 << L) / C;
}
template <int L, int C>
constexpr int column_tiles() {
  return ((1 << L) / 2 + 1 + C - 1) / C;
}

}  // namespace dfft::detail::plane_fft
