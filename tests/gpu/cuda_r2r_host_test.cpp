// SPDX-License-Identifier: MIT
// The CUDA backend's DCT/DST algorithm, run on the CPU (so in CI, without a GPU): the same
// __host__ __device__ pre/post functions the kernels call (src/backend/cuda/r2r_math.hpp), with
// FFTW's r2c/c2r executing exactly the batch description the cuFFT plan gets, against
//  - FFTW's serial REDFT10/REDFT01/RODFT10/RODFT01 for single lines of odd and even lengths;
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

fftw_r2r_kind fftw_kind(int trig, bool forward) {
  if (trig == r2r::kCos) return forward ? FFTW_REDFT10 : FFTW_REDFT01;
  return forward ? FFTW_RODFT10 : FFTW_RODFT01;
}

/// One line of length n through the emulated GPU procedure; x has stride xs.
std::vector<double> emulate_line(const std::vector<double>& x, std::int64_t xs, std::int64_t n,
                                 int trig, bool forward) {
  const std::int64_t h = n / 2 + 1;
  std::vector<double> real(static_cast<std::size_t>(n)), cplx(2 * static_cast<std::size_t>(h));
  std::vector<double> y(static_cast<std::size_t>(n));
  auto* c = reinterpret_cast<fftw_complex*>(cplx.data());
  const int len = static_cast<int>(n);
  if (forward) {
    for (std::int64_t i = 0; i < n; ++i) real[i] = r2r::pre2(x.data(), xs, i, n, trig);
    fftw_plan p = fftw_plan_dft_r2c_1d(len, real.data(), c, FFTW_ESTIMATE);
    fftw_execute(p);
    fftw_destroy_plan(p);
    for (std::int64_t k = 0; k < n; ++k) y[k] = r2r::post2(cplx.data(), 1, k, n, trig);
  } else {
    for (std::int64_t k = 0; k < h; ++k)
      r2r::pre3(x.data(), xs, k, n, trig, cplx[2 * k], cplx[2 * k + 1]);
    fftw_plan p = fftw_plan_dft_c2r_1d(len, c, real.data(), FFTW_ESTIMATE);
    fftw_execute(p);
    fftw_destroy_plan(p);
    for (std::int64_t j = 0; j < n; ++j) y[j] = r2r::post3(real.data(), 1, j, n, trig);
  }
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
      for (bool forward : {true, false}) {
        const std::int64_t xs = 3;  // a strided source, as the kernels read it
        std::vector<double> strided(static_cast<std::size_t>(n * xs),
                                    std::numeric_limits<double>::quiet_NaN());
        std::vector<double> x(static_cast<std::size_t>(n)), want(x.size());
        for (std::int64_t j = 0; j < n; ++j) strided[j * xs] = x[j] = u(gen);
        fftw_plan p = fftw_plan_r2r_1d(static_cast<int>(n), x.data(), want.data(),
                                       fftw_kind(trig, forward), FFTW_ESTIMATE);
        fftw_execute(p);
        fftw_destroy_plan(p);
        const auto got = emulate_line(strided, xs, n, trig, forward);
        EXPECT_LE(rel_err(got, want), 1e-14)
            << "n=" << n << (trig == r2r::kCos ? " DCT" : " DST") << (forward ? "-II" : "-III");
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

/// One axis of a step as the GPU runs it: kernels as loops over the same per-thread functions,
/// the cuFFT plan's description executed by FFTW's guru interface.
void emulate_axis(const r2r::LineGeom& g, bool forward, const double* src, double* dst) {
  if (g.n == 1) {
    for (std::int64_t i = 0; i < g.lines; ++i) r2r::length1_at(g, forward, src, dst, i);
    return;
  }
  const std::int64_t h = r2r::half(g);
  const r2r::WorkLayout w = r2r::work_layout(g);
  std::vector<double> real(static_cast<std::size_t>(g.lines * g.n));
  std::vector<double> cplx(2 * static_cast<std::size_t>(g.lines * h));
  auto* c = reinterpret_cast<fftw_complex*>(cplx.data());
  fftw_plan p;
  if (forward) {
    for (std::int64_t i = 0; i < g.lines * g.n; ++i) r2r::pre2_at(g, src, real.data(), i);
    fftw_iodim64 dim{g.n, w.rstride, w.cstride}, how{g.lines, w.rdist, w.cdist};
    p = fftw_plan_guru64_dft_r2c(1, &dim, 1, &how, real.data(), c, FFTW_ESTIMATE);
  } else {
    for (std::int64_t i = 0; i < g.lines * h; ++i) r2r::pre3_at(g, src, cplx.data(), i);
    fftw_iodim64 dim{g.n, w.cstride, w.rstride}, how{g.lines, w.cdist, w.rdist};
    p = fftw_plan_guru64_dft_c2r(1, &dim, 1, &how, c, real.data(), FFTW_ESTIMATE);
  }
  ASSERT_NE(p, nullptr) << "FFTW refused the cuFFT description";
  fftw_execute(p);
  fftw_destroy_plan(p);
  for (std::int64_t i = 0; i < g.lines * g.n; ++i) {
    if (forward) r2r::post2_at(g, cplx.data(), dst, i);
    else r2r::post3_at(g, real.data(), dst, i);
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
    for (int a = 0; a < 3; ++a)  // each axis: DCT, DST, or not in this step
      if (gen() % 3 || (a == 2 && d.axes.empty())) {
        d.axes.push_back(a);
        d.r2r[a] = gen() % 2 ? R2R::dct2 : R2R::dst2;
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
      emulate_axis(g, d.kind == FftDesc::Kind::forward, src, got.data());
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
