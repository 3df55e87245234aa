// SPDX-License-Identifier: MIT
// The CUDA backend's plane kernel (src/backend/cuda/plane_fft_core.hpp), run on the CPU: the
// same block steps the kernel runs, block by block of a cluster with the barriers between them,
// against FFTW's serial 2-D r2c and c2r of every plane, for every length built, both precisions,
// rows padded (an in-place layout) and not, in place and out of place, several cluster sizes.
#include <fftw3.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "backend/cuda/plane_fft.hpp"
#include "backend/cuda/plane_fft_core.hpp"
#include "host_quadrant.hpp"

namespace {
namespace plane_fft_host {  // names of its own in a unity build

namespace cf = dfft::detail::column_fft;
namespace pf = dfft::detail::plane_fft;

using dfft_host_kernels::HostQuadrant;

// One launch, emulated as plane_fft.cu runs it: the planes of a cluster of `blocks` blocks, each
// block's rows (or columns) thread by thread between the barriers.
template <class T, int L, bool Forward>
void emulate(T* real, cf::Cplx<T>* cplx, const pf::Geom& g, int blocks) {
  constexpr int C = pf::columns<T>(), threads = pf::threads<T>();
  using S = pf::Shared<L, C>;
  constexpr int XR1 = cf::r1_of(L - 1), XR2 = cf::r2_of(L - 1), YR1 = cf::r1_of(L), YR2 = cf::r2_of(L);
  const HostQuadrant q;
  std::vector<cf::Cplx<T>> shv(S::elems);
  cf::Cplx<T>* sh = shv.data();
  for (int tid = 0; tid < threads; ++tid) pf::fill_tables<T, L, C>(sh, tid, threads);
  auto batch_dft = [&](int conj, double factor) {
    const cf::Geom b = pf::batch_geom<C>(conj, factor);
    for (int id = 0; id < threads; ++id)
      cf::pass_one<T, XR1, XR2, C>(sh + S::region, sh + S::row_tile, sh + S::tw_rows, b, 0, id % C, id / C, q);
    for (int id = 0; id < threads; ++id) cf::pass_two<T, XR1, XR2, C>(sh + S::row_tile, sh + S::region, b, 0, id % C, id / C, q);
  };
  auto columns = [&](cf::Cplx<T>* cp, int conj, double factor) {
    const cf::Geom cg = pf::column_geom<L>(g, conj, factor);
    for (int rank = 0; rank < blocks; ++rank)
      for (int tile = rank; tile < pf::column_tiles<L, C>(); tile += blocks) {
        for (int id = 0; id < threads; ++id)
          cf::pass_one<T, YR1, YR2, C>(cp, sh + S::region, sh + S::tw_cols, cg, tile, id % C, id / C, q);
        for (int id = 0; id < threads; ++id) cf::pass_two<T, YR1, YR2, C>(sh + S::region, cp, cg, tile, id % C, id / C, q);
      }
  };
  for (std::int64_t p = 0; p < g.planes; ++p) {
    T* rp = real + p * g.real_plane;
    cf::Cplx<T>* cp = cplx + p * g.cplx_plane;
    if (Forward) {
      for (int rank = 0; rank < blocks; ++rank)
        for (int j = rank; j < pf::row_batches<L, C>(); j += blocks) {
          for (int tid = 0; tid < threads; ++tid) {
            cf::Cplx<T> v[pf::per_thread<L, C, threads>()];
            pf::fetch_real_rows<T, L, C, threads>(rp, g, j * C, v, tid);
            pf::put_rows<T, L, C, threads>(v, sh, tid);
          }
          batch_dft(1, 1.0);
          for (int tid = 0; tid < threads; ++tid) pf::store_spectra<T, L, C>(sh, cp, g, j * C, tid, threads);
        }
      columns(cp, 1, g.factor);
    } else {
      columns(cp, -1, 1.0);
      for (int rank = 0; rank < blocks; ++rank)
        for (int j = rank; j < pf::row_batches<L, C>(); j += blocks) {
          for (int tid = 0; tid < threads; ++tid) pf::load_spectra<T, L, C, threads>(cp, g, j * C, sh, tid);
          batch_dft(-1, g.factor);
          for (int tid = 0; tid < threads; ++tid) pf::store_real_rows<T, L, C>(sh, rp, g, j * C, tid, threads);
        }
    }
  }
}

// r2c then c2r of `planes` planes of 2^L x 2^L reals against FFTW in double, `padded`: rows of
// 2 (n/2 + 1) reals (and, `in_place`, the spectrum over the same array).
template <class T, int L>
void check(int planes, bool padded, bool in_place, int blocks) {
  constexpr int N = 1 << L, H = N / 2 + 1;
  pf::Geom g;
  g.planes = planes;
  g.real_row = padded ? 2 * H : N;
  g.real_plane = g.real_row * N + (in_place ? 0 : 6);
  g.cplx_row = H + (in_place ? 0 : 3);
  g.cplx_plane = in_place ? g.real_plane / 2 : g.cplx_row * N + 5;
  g.factor = 0.25;
  std::vector<T> real(static_cast<std::size_t>(planes * g.real_plane));
  std::vector<cf::Cplx<T>> own(in_place ? 0 : static_cast<std::size_t>(planes * g.cplx_plane));
  cf::Cplx<T>* cplx = in_place ? reinterpret_cast<cf::Cplx<T>*>(real.data()) : own.data();
  std::mt19937 gen(L * 7 + planes);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> x(static_cast<std::size_t>(planes) * N * N);
  for (auto& v : x) v = static_cast<T>(u(gen));  // the values the kernel sees, in double
  for (int p = 0; p < planes; ++p)
    for (int y = 0; y < N; ++y)
      for (int i = 0; i < N; ++i) real[static_cast<std::size_t>(p * g.real_plane + y * g.real_row + i)] = static_cast<T>(x[(static_cast<std::size_t>(p) * N + y) * N + i]);
  emulate<T, L, true>(real.data(), cplx, g, blocks);

  std::vector<std::complex<double>> want(static_cast<std::size_t>(planes) * N * H);
  const int n[2] = {N, N};
  fftw_plan fp = fftw_plan_many_dft_r2c(2, n, planes, x.data(), nullptr, 1, N * N, reinterpret_cast<fftw_complex*>(want.data()),
                                        nullptr, 1, N * H, FFTW_ESTIMATE);
  ASSERT_NE(fp, nullptr);
  fftw_execute(fp);
  fftw_destroy_plan(fp);
  double err = 0, norm = 0;
  for (int p = 0; p < planes; ++p)
    for (int y = 0; y < N; ++y)
      for (int k = 0; k < H; ++k) {
        const auto& v = cplx[p * g.cplx_plane + y * g.cplx_row + k];
        const std::complex<double> w = g.factor * want[(static_cast<std::size_t>(p) * N + y) * H + k];
        err = std::max(err, std::abs(std::complex<double>(v.re, v.im) - w));
        norm = std::max(norm, std::abs(w));
      }
  const double tol = sizeof(T) == 8 ? 1e-14 : 2e-6;
  EXPECT_LE(err / norm, tol) << "r2c " << N << " x " << N << ", " << planes << " planes, padded " << padded << ", in place "
                             << in_place << ", " << blocks << " blocks";

  // c2r of that spectrum (scaled by 0.25 again): 0.25^2 N^2 times the input.
  emulate<T, L, false>(real.data(), cplx, g, blocks);
  double rerr = 0, rnorm = 0;
  const double back = g.factor * g.factor * N * N;
  for (int p = 0; p < planes; ++p)
    for (int y = 0; y < N; ++y)
      for (int i = 0; i < N; ++i) {
        const double got = real[static_cast<std::size_t>(p * g.real_plane + y * g.real_row + i)];
        const double w = back * x[(static_cast<std::size_t>(p) * N + y) * N + i];
        rerr = std::max(rerr, std::abs(got - w));
        rnorm = std::max(rnorm, std::abs(w));
      }
  EXPECT_LE(rerr / rnorm, 4 * tol) << "c2r " << N << " x " << N << ", padded " << padded << ", in place " << in_place;
}

TEST(PlaneFft, EveryLengthMatchesFftw) {
  static_assert(pf::kMinLog2 == 8 && pf::kMaxLog2 == 10, "one line per length built");
  check<double, 8>(3, false, false, 9);
  check<float, 8>(3, true, false, 8);
  check<double, 8>(2, true, true, 16);
  check<float, 8>(2, true, true, 3);
  check<double, 9>(1, false, false, 13);
  check<float, 9>(1, true, true, 11);
  check<double, 10>(1, true, true, 13);
  check<float, 10>(1, false, false, 11);
}

// The cluster sizes the launcher asks for: from 8 blocks, sharing a plane's row batches and
// column tiles evenly (at 1024 in float: 64 batches and 33 tiles over 11 blocks).
TEST(PlaneFft, ClusterSizesShareThePlaneEvenly) {
  EXPECT_EQ(dfft::detail::plane_cluster_size(10, false), 11);
  EXPECT_EQ(dfft::detail::plane_cluster_size(10, true), 13);
  for (int l = pf::kMinLog2; l <= pf::kMaxLog2; ++l)
    for (bool dbl : {false, true}) {
      const int k = dfft::detail::plane_cluster_size(l, dbl);
      EXPECT_GE(k, 8);
      EXPECT_LE(k, 16);
    }
}

}  // namespace plane_fft_host
}  // namespace
