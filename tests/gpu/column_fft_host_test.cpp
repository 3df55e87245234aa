// SPDX-License-Identifier: MIT
// The CUDA backend's column FFT (src/backend/cuda/column_fft_core.hpp), run on the CPU: the same
// per-thread passes the kernel runs, block by block with the barrier between them, against
// FFTW's serial complex DFT of every column, for every length the kernel is built for, both
// directions and precisions, a partial last tile, rows longer than the batch and several groups
// of columns in one launch.
#include <fftw3.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "backend/cuda/column_fft.hpp"
#include "backend/cuda/column_fft_core.hpp"
#include "host_quadrant.hpp"

namespace {
namespace column_fft_host {  // names of its own in a unity build

namespace cf = dfft::detail::column_fft;

using dfft_host_kernels::HostQuadrant;

// One launch of the kernel for length 2^L, emulated: every tile, every thread of the first pass,
// then (the barrier) every thread of the second.
template <class T, int L, int C>
void emulate(const std::vector<cf::Cplx<T>>& in, std::vector<cf::Cplx<T>>& out, const cf::Geom& g) {
  constexpr int R1 = cf::r1_of(L), R2 = cf::r2_of(L), N = 1 << L;
  const HostQuadrant q;
  std::vector<cf::Cplx<T>> sh(static_cast<std::size_t>(cf::tile_elems<R1, R2, C>()));
  std::vector<cf::Cplx<T>> tw(N);
  for (int m = 0; m < N; ++m) tw[static_cast<std::size_t>(m)] = cf::twiddle<T>(m, N);
  const std::int64_t tiles = cf::tile_count<C>(g);
  const int threads = C * R2;
  for (std::int64_t tile = 0; tile < tiles; ++tile) {
    std::int64_t group, within;
    cf::tile_in_group<C>(g, tile, group, within);
    const cf::Cplx<T>* gin = in.data() + group * g.outer_istride;
    cf::Cplx<T>* gout = out.data() + group * g.outer_ostride;
    for (int id = 0; id < threads; ++id) cf::pass_one<T, R1, R2, C>(gin, sh.data(), tw.data(), g, within, id % C, id / C, q);
    for (int id = 0; id < threads; ++id) cf::pass_two<T, R1, R2, C>(sh.data(), gout, g, within, id % C, id / C, q);
  }
}

template <class T, int L, int C>
void check(int sign) {
  constexpr int N = 1 << L;
  cf::Geom g;
  g.columns = 2 * C + 3;  // two whole tiles and a partial one per group
  g.istride = g.columns + 2;
  g.ostride = g.columns + 5;
  g.outer = 3;  // groups apart by more than their rows
  g.outer_istride = N * g.istride + 3;
  g.outer_ostride = N * g.ostride + 7;
  g.conj = sign;
  g.factor = 0.375;
  std::vector<cf::Cplx<T>> in(static_cast<std::size_t>(g.outer * g.outer_istride)),
      out(static_cast<std::size_t>(g.outer * g.outer_ostride));
  std::mt19937 gen(L * 10 + C);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& v : in) v = {static_cast<T>(u(gen)), static_cast<T>(u(gen))};
  const cf::Cplx<T> sentinel{T(7), T(-7)};
  for (auto& v : out) v = sentinel;
  emulate<T, L, C>(in, out, g);

  // FFTW's DFT of each column in double, from the same (rounded) inputs.
  std::vector<std::complex<double>> col(N), ref(N);
  fftw_plan p = fftw_plan_dft_1d(N, reinterpret_cast<fftw_complex*>(col.data()), reinterpret_cast<fftw_complex*>(ref.data()),
                                 sign > 0 ? FFTW_FORWARD : FFTW_BACKWARD, FFTW_ESTIMATE);
  ASSERT_NE(p, nullptr);
  double err = 0, norm = 0;
  std::vector<bool> written(out.size(), false);
  for (std::int64_t o = 0; o < g.outer; ++o)
    for (std::int64_t c = 0; c < g.columns; ++c) {
      for (int k = 0; k < N; ++k) {
        const auto& v = in[static_cast<std::size_t>(o * g.outer_istride + k * g.istride + c)];
        col[static_cast<std::size_t>(k)] = {static_cast<double>(v.re), static_cast<double>(v.im)};
      }
      fftw_execute(p);
      for (int k = 0; k < N; ++k) {
        const auto at = static_cast<std::size_t>(o * g.outer_ostride + k * g.ostride + c);
        written[at] = true;
        const std::complex<double> want = g.factor * ref[static_cast<std::size_t>(k)];
        err = std::max(err, std::abs(std::complex<double>(out[at].re, out[at].im) - want));
        norm = std::max(norm, std::abs(want));
      }
    }
  fftw_destroy_plan(p);
  EXPECT_LE(err / norm, sizeof(T) == 8 ? 1e-14 : 2e-6) << "length " << N << ", " << C << " columns a tile, sign " << sign;
  // Nothing outside the columns was written: every other element keeps the sentinel.
  std::int64_t touched = 0;
  for (std::size_t i = 0; i < out.size(); ++i)
    touched += !written[i] && (out[i].re != sentinel.re || out[i].im != sentinel.im);
  EXPECT_EQ(touched, 0) << "length " << N << ": wrote outside its columns";
}

template <class T, int C>
void every_length() {
  static_assert(cf::kMinLog2 == 6 && cf::kMaxLog2 == 11, "one line per length built");
  for (int sign : {1, -1}) {
    check<T, 6, C>(sign);
    check<T, 7, C>(sign);
    check<T, 8, C>(sign);
    check<T, 9, C>(sign);
    check<T, 10, C>(sign);
    check<T, 11, C>(sign);
  }
}

TEST(ColumnFft, EveryLengthMatchesFftwDouble) {
  every_length<double, cf::narrow_columns<double>()>();
  every_length<double, cf::wide_columns<double>()>();
}

TEST(ColumnFft, EveryLengthMatchesFftwFloat) {
  every_length<float, cf::narrow_columns<float>()>();
  every_length<float, cf::wide_columns<float>()>();
}

// A cuFFT mapping's loops as launches: a run that advances by one step on both sides is one
// launch of several groups; a break in the step starts the next launch.
TEST(ColumnFft, LoopsBecomeGroupedLaunches) {
  dfft::detail::CufftMapping m;
  m.loops = {{0, 0}};
  auto v = dfft::detail::column_launches(m);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].count, 1);
  m.loops = {{0, 0}, {10, 20}, {20, 40}, {30, 60}};
  v = dfft::detail::column_launches(m);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].count, 4);
  EXPECT_EQ(v[0].istep, 10);
  EXPECT_EQ(v[0].ostep, 20);
  // Two batch axes looped (5 apart, then 100 apart): two launches of two groups.
  m.loops = {{0, 0}, {5, 7}, {100, 200}, {105, 207}};
  v = dfft::detail::column_launches(m);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].in, 0);
  EXPECT_EQ(v[0].count, 2);
  EXPECT_EQ(v[0].istep, 5);
  EXPECT_EQ(v[0].ostep, 7);
  EXPECT_EQ(v[1].in, 100);
  EXPECT_EQ(v[1].out, 200);
  EXPECT_EQ(v[1].count, 2);
  // The input advancing alike while the output does not: no grouping across the break.
  m.loops = {{0, 0}, {10, 10}, {20, 30}};
  v = dfft::detail::column_launches(m);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].count, 2);
  EXPECT_EQ(v[1].in, 20);
  EXPECT_EQ(v[1].count, 1);
  // Every loop in exactly one launch.
  std::int64_t total = 0;
  for (const auto& l : v) total += l.count;
  EXPECT_EQ(total, 3);
}

TEST(ColumnFft, SupportedLengthsArePowersOfTwoInRange) {
  EXPECT_EQ(cf::supported_log2(64), 6);
  EXPECT_EQ(cf::supported_log2(1024), 10);
  EXPECT_EQ(cf::supported_log2(2048), 11);
  EXPECT_EQ(cf::supported_log2(32), -1);
  EXPECT_EQ(cf::supported_log2(4096), -1);
  EXPECT_EQ(cf::supported_log2(1000), -1);
  for (int l = cf::kMinLog2; l <= cf::kMaxLog2; ++l) {
    EXPECT_EQ(cf::r1_of(l) * cf::r2_of(l), 1 << l);
    EXPECT_LE(cf::r1_of(l), cf::r2_of(l));
    EXPECT_LE(cf::r2_of(l), 64) << "the register DFTs take their roots from a table of 64";
  }
  // The tiles of 64-byte rows fit in the 163 KiB an A100 block may take; the 128-byte ones of
  // the longest lengths do not fit even in an H100's 227 KiB (the launcher then takes the narrow).
  for (int l = cf::kMinLog2; l <= cf::kMaxLog2; ++l) {
    EXPECT_LE(cf::shared_bytes(l, cf::narrow_columns<double>(), 16), 163 * 1024) << l;
    EXPECT_LE(cf::shared_bytes(l, cf::narrow_columns<float>(), 8), 163 * 1024) << l;
  }
  EXPECT_GT(cf::shared_bytes(11, cf::wide_columns<float>(), 8), 227 * 1024);
  EXPECT_EQ(cf::shared_bytes(10, cf::wide_columns<float>(), 8), (32 * (32 * 16 + 16) + 1024) * 8);
}

}  // namespace column_fft_host
}  // namespace
