// SPDX-License-Identifier: MIT
// The CUDA backend's DCT/DST algorithm, run on the CPU (so in CI, without a GPU): the same
// __host__ __device__ pre/post functions the kernels call (src/backend/r2r_via_fft.hpp), with
// FFTW's r2c/c2r executing exactly the batch description the cuFFT plan gets, against
//  - FFTW's serial REDFT00/10/01/11 and RODFT00/10/01/11 for single lines of odd and even
//    lengths;
//  - the CPU backend's DCT/DST step (FFTW guru r2r) for whole steps: shuffled memory orders,
//    padding, real and complex data, lines contiguous or interleaved, lengths 1 included.
#include <fftw3.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "backend/cuda/r2r.hpp"

namespace {

using namespace dfft;
using namespace dfft::detail;

// FFTW's kinds by (sine?, type), written out here rather than taken from the CPU backend.
fftw_r2r_kind fftw_kind(int trig, int type) {
  static const fftw_r2r_kind cosines[] = {FFTW_REDFT00, FFTW_REDFT10, FFTW_REDFT01, FFTW_REDFT11};
  static const fftw_r2r_kind sines[] = {FFTW_RODFT00, FFTW_RODFT10, FFTW_RODFT01, FFTW_RODFT11};
  return (trig == r2r::kCos ? cosines : sines)[type - 1];
}

/// One axis of a step as the GPU runs it: kernels as loops over the same per-thread functions,
/// the cuFFT plan's description executed by FFTW's guru interface.
void emulate_axis(const r2r::LineGeom& g, const double* src, double* dst) {
  if (!r2r::needs_fft(g)) {
    for (std::int64_t i = 0; i < g.lines; ++i) r2r::length1_at(g, src, dst, i);
    return;
  }
  const r2r::WorkLayout w = r2r::work_layout(g);
  std::vector<double> real(static_cast<std::size_t>(g.lines * r2r::real_length(g)));
  std::vector<double> cplx(2 * static_cast<std::size_t>(g.lines * r2r::complex_length(g)));
  auto* c = reinterpret_cast<fftw_complex*>(cplx.data());
  for (std::int64_t i = 0; i < r2r::pre_count(g); ++i)
    r2r::pre_at(g, src, r2r::pre_writes_real(g) ? real.data() : cplx.data(), i);
  const std::int64_t L = r2r::fft_length(g);
  fftw_plan p;
  if (g.type == 4) {
    fftw_iodim64 dim{L, w.cstride, w.cstride}, how{g.lines, w.cdist, w.cdist};
    p = fftw_plan_guru64_dft(1, &dim, 1, &how, c, c, FFTW_FORWARD, FFTW_ESTIMATE);
  } else if (g.type == 3) {
    fftw_iodim64 dim{L, w.cstride, w.rstride}, how{g.lines, w.cdist, w.rdist};
    p = fftw_plan_guru64_dft_c2r(1, &dim, 1, &how, c, real.data(), FFTW_ESTIMATE);
  } else {
    fftw_iodim64 dim{L, w.rstride, w.cstride}, how{g.lines, w.rdist, w.cdist};
    p = fftw_plan_guru64_dft_r2c(1, &dim, 1, &how, real.data(), c, FFTW_ESTIMATE);
  }
  ASSERT_NE(p, nullptr) << "FFTW refused the cuFFT description";
  fftw_execute(p);
  fftw_destroy_plan(p);
  for (std::int64_t i = 0; i < r2r::post_count(g); ++i)
    r2r::post_at(g, r2r::post_reads_real(g) ? real.data() : cplx.data(), dst, i);
}

/// One line of length n through the emulated GPU procedure; x has stride xs.
std::vector<double> emulate_line(const std::vector<double>& x, std::int64_t xs, std::int64_t n,
                                 int trig, int type) {
  r2r::LineGeom g;
  g.lines = 1;
  g.n = n;
  g.xs = xs;
  g.ys = 1;
  g.trig = trig;
  g.type = type;
  std::vector<double> y(static_cast<std::size_t>(n));
  emulate_axis(g, x.data(), y.data());
  return y;
}

double rel_err(const std::vector<double>& got, const std::vector<double>& want) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double diff = std::abs(got[i] - want[i]);
    if (std::isnan(diff) || diff > num) num = diff;
    den = std::max(den, std::abs(want[i]));
  }
  return num / (den > 0 ? den : 1);
}

TEST(CudaR2rMath, LinesMatchSerialFftw) {
  std::mt19937 gen(3);
  std::uniform_real_distribution<double> u(-1, 1);
  for (std::int64_t n : {1, 2, 3, 5, 12, 17})
    for (int trig : {r2r::kCos, r2r::kSin})
      for (int type = 1; type <= 4; ++type) {
        if (trig == r2r::kCos && type == 1 && n == 1) continue;  // REDFT00 needs n >= 2
        const std::int64_t xs = 3;  // a strided source, as the kernels read it
        std::vector<double> strided(static_cast<std::size_t>(n * xs),
                                    std::numeric_limits<double>::quiet_NaN());
        std::vector<double> x(static_cast<std::size_t>(n)), want(x.size());
        for (std::int64_t j = 0; j < n; ++j) strided[j * xs] = x[j] = u(gen);
        fftw_plan p = fftw_plan_r2r_1d(static_cast<int>(n), x.data(), want.data(),
                                       fftw_kind(trig, type), FFTW_ESTIMATE);
        fftw_execute(p);
        fftw_destroy_plan(p);
        const auto got = emulate_line(strided, xs, n, trig, type);
        EXPECT_LE(rel_err(got, want), 1e-14)
            << "n=" << n << (trig == r2r::kCos ? " DCT" : " DST") << " type " << type;
      }
}

TEST(CudaR2rMath, MakhoulReorderIsAPermutation) {
  for (std::int64_t n = 1; n <= 9; ++n) {
    std::vector<int> seen(static_cast<std::size_t>(n), 0);
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t j = r2r::makhoul_index(i, n);
      ASSERT_TRUE(j >= 0 && j < n);
      ++seen[j];
      EXPECT_EQ(r2r::makhoul_inverse(j, n), i);
    }
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int v) { return v == 1; }));
  }
}

Layout random_layout(const std::vector<std::int64_t>& ext, std::mt19937& gen) {
  Layout l;
  l.box.lo.assign(ext.size(), 0);
  l.box.hi = ext;
  l.order.resize(ext.size());
  std::iota(l.order.begin(), l.order.end(), 0);
  std::shuffle(l.order.begin(), l.order.end(), gen);
  if (gen() % 2)
    for (auto e : ext) l.padded.push_back(e + static_cast<std::int64_t>(gen() % 3));
  return l;
}

// Whole steps (DCT/DST axes only: the periodic part of a mixed step is the ordinary cuFFT step,
// checked by cuda_host_test.cpp) against the CPU backend, which the feature tests check
// against FFTW's serial r2r.
TEST(CudaR2rMath, StepsMatchCpuBackend) {
  std::mt19937 gen(11);
  std::uniform_real_distribution<double> u(-1, 1);
  auto cpu = make_cpu_device();
  int interleaved = 0, contiguous = 0;
  for (int trial = 0; trial < 60; ++trial) {
    std::vector<std::int64_t> ext{1 + static_cast<std::int64_t>(gen() % 6),
                                  1 + static_cast<std::int64_t>(gen() % 5),
                                  2 + static_cast<std::int64_t>(gen() % 6)};
    FftDesc d;
    d.real = trial % 2 == 0;
    d.kind = trial % 4 < 2 ? FftDesc::Kind::forward : FftDesc::Kind::backward;
    d.in = random_layout(ext, gen);
    d.out = random_layout(ext, gen);
    d.r2r.assign(3, R2R::none);
    for (int a = 0; a < 3; ++a)  // each axis: a DCT/DST of any type, or not in this step
      if (gen() % 3 || (a == 2 && d.axes.empty())) {
        d.axes.push_back(a);
        d.r2r[a] = r2r_kind(gen() % 2 == 1, 1 + static_cast<int>(gen() % 4));
        if (d.r2r[a] == R2R::dct1 && ext[a] < 2) d.r2r[a] = R2R::dct4;  // REDFT00 needs n >= 2
      }
    const std::size_t m = d.real ? 1 : 2;
    const auto ni = static_cast<std::size_t>(d.in.alloc_count()) * m;
    const auto no = static_cast<std::size_t>(d.out.alloc_count()) * m;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<double> in(ni, nan), got(no, nan), want(no, nan);
    const auto is = d.in.strides();
    for (std::int64_t i0 = 0; i0 < ext[0]; ++i0)
      for (std::int64_t i1 = 0; i1 < ext[1]; ++i1)
        for (std::int64_t i2 = 0; i2 < ext[2]; ++i2)
          for (std::size_t part = 0; part < m; ++part)
            in[m * static_cast<std::size_t>(i0 * is[0] + i1 * is[1] + i2 * is[2]) + part] = u(gen);
    const auto in_copy = in;
    std::vector<double> si(std::max(ni, no) + 2), so(si.size());
    auto ref = cpu->make_fft(d, si.data(), so.data());
    ref->execute(in.data(), want.data());

    const R2rSchedule s = schedule_r2r(d);
    ASSERT_TRUE(s.periodic.empty());
    ASSERT_EQ(s.lines.size(), d.axes.size());
    const double* src = in_copy.data();
    for (const auto& g : s.lines) {
      (g.rows ? contiguous : interleaved) += 1;
      emulate_axis(g, src, got.data());
      src = got.data();
    }
    double err = 0, mag = 0;
    const auto os = d.out.strides();
    for (std::int64_t i0 = 0; i0 < ext[0]; ++i0)
      for (std::int64_t i1 = 0; i1 < ext[1]; ++i1)
        for (std::int64_t i2 = 0; i2 < ext[2]; ++i2)
          for (std::size_t part = 0; part < m; ++part) {
            const auto k = m * static_cast<std::size_t>(i0 * os[0] + i1 * os[1] + i2 * os[2]) + part;
            const double diff = std::abs(got[k] - want[k]);
            if (std::isnan(diff) || diff > err) err = diff;  // NaN sticks: a read of padding
            mag = std::max(mag, std::abs(want[k]));
          }
    EXPECT_LE(err / mag, 1e-13) << "trial " << trial;
  }
  EXPECT_GT(interleaved, 0);
  EXPECT_GT(contiguous, 0);
}

TEST(CudaR2rMath, MixedStepsRunPeriodicAxesFirst) {
  FftDesc d;
  d.kind = FftDesc::Kind::forward;
  d.axes = {0, 1, 2};
  d.r2r = {R2R::none, R2R::dst2, R2R::none};
  d.in = Layout{Box{{0, 0, 0}, {4, 5, 6}}, {0, 1, 2}, {}};
  d.out = Layout{Box{{0, 0, 0}, {4, 5, 6}}, {2, 0, 1}, {}};
  EXPECT_TRUE(has_r2r_axis(d));
  const R2rSchedule s = schedule_r2r(d);
  EXPECT_EQ(s.periodic, (std::vector<int>{0, 2}));
  ASSERT_EQ(s.lines.size(), 1u);
  const auto& g = s.lines[0];
  // In place on the output: axis 1 is its fastest axis (contiguous lines), complex data.
  EXPECT_EQ(g.n, 5);
  EXPECT_EQ(g.parts, 2);
  EXPECT_EQ(g.lines, 2 * 4 * 6);
  EXPECT_EQ(g.xs, 2);
  EXPECT_EQ(g.ys, 2);
  EXPECT_TRUE(g.rows);
  EXPECT_EQ(g.trig, r2r::kSin);
  EXPECT_EQ(g.type, 2);
  // After a c2r (the inverse of a step with an r2c axis) the DCT/DST axes see real data.
  d.kind = FftDesc::Kind::c2r;
  d.r2r[1] = R2R::dct1;
  const R2rSchedule c2r = schedule_r2r(d);
  ASSERT_EQ(c2r.lines.size(), 1u);
  EXPECT_EQ(c2r.lines[0].parts, 1);
  EXPECT_EQ(c2r.lines[0].type, 1);
  EXPECT_EQ(c2r.lines[0].trig, r2r::kCos);
  d.kind = FftDesc::Kind::forward;
  // Axes not transformed by a step do not make it an r2r step.
  d.axes = {0, 2};
  EXPECT_FALSE(has_r2r_axis(d));
  // An empty box: nothing to schedule.
  d.axes = {1};
  d.in.box.hi[0] = 0;
  d.out.box.hi[0] = 0;
  EXPECT_TRUE(schedule_r2r(d).lines.empty());
}

}  // namespace
