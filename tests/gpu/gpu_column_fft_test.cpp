// SPDX-License-Identifier: MIT
// dfft's column FFT kernel on the GPU (src/backend/cuda/column_fft.hpp), through the device's
// make_fft as a plan's step reaches it: every length it is built for, both precisions and
// directions, a factor folded in, a layout that cuFFT's mapping runs in several launches, in
// place, against FFTW's serial 1-D DFT of each line; and the timed choice between it and cuFFT.
// Each rank runs alone on its GPU.
#include <fftw3.h>
#include <gtest/gtest.h>

#include <complex>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

#include "backend/device.hpp"
#include "dfft/validate.hpp"
#include "gpu_util.hpp"

namespace dfft_gpu {
namespace {
namespace column_fft_gpu {  // names of its own in a unity build

using dfft::Box;
using dfft::Layout;
using dfft::detail::Buffer;
using dfft::detail::FftDesc;

// A c2c over axis 0 of `shape` laid out in memory order `order`, on both sides.
FftDesc column_desc(const std::vector<std::int64_t>& shape, const std::vector<int>& order, bool dbl, bool backward) {
  FftDesc d;
  d.kind = backward ? FftDesc::Kind::backward : FftDesc::Kind::forward;
  d.axes = {0};
  d.in = Layout{Box{std::vector<std::int64_t>(shape.size(), 0), shape}, order, {}};
  d.out = d.in;
  d.is_double = dbl;
  return d;
}

// Relative error (max norm) of the step's output against FFTW's DFT along axis 0 times d.scale;
// `in_place` runs the step on one buffer.
template <class T>
double run_and_compare(dfft::detail::Device& dev, dfft::detail::LocalFft& f, const FftDesc& d, bool in_place) {
  using C = std::complex<T>;
  const std::int64_t count = d.in.box.count();
  std::vector<C> x(static_cast<std::size_t>(count));
  std::mt19937 g(11);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& v : x) v = C(static_cast<T>(u(g)), static_cast<T>(u(g)));
  Buffer a(dev, x.size() * sizeof(C)), b(dev, x.size() * sizeof(C));
  dev.upload(a.get(), x.data(), x.size() * sizeof(C));
  f.execute(a.get(), in_place ? a.get() : b.get());
  dev.synchronize();
  std::vector<C> y(x.size());
  dev.download(y.data(), in_place ? a.get() : b.get(), y.size() * sizeof(C));
  // Lines along axis 0: element k of line j at k * stride + offset(j), from the layout's strides.
  const auto strides = d.in.strides();
  const std::int64_t n = d.in.box.extent(0), lines = count / n;
  std::vector<std::complex<double>> line(static_cast<std::size_t>(n)), ref(line.size());
  fftw_plan p = fftw_plan_dft_1d(static_cast<int>(n), reinterpret_cast<fftw_complex*>(line.data()),
                                 reinterpret_cast<fftw_complex*>(ref.data()),
                                 d.kind == FftDesc::Kind::backward ? FFTW_BACKWARD : FFTW_FORWARD, FFTW_ESTIMATE);
  double err = 0, mag = 0;
  const auto dims = d.in.box.dims();
  for (std::int64_t j = 0; j < lines; ++j) {
    std::int64_t off = 0, rest = j;
    for (int a2 = dims - 1; a2 >= 1; --a2) {
      const std::int64_t e = d.in.box.extent(a2);
      off += (rest % e) * strides[static_cast<std::size_t>(a2)];
      rest /= e;
    }
    for (std::int64_t k = 0; k < n; ++k) line[static_cast<std::size_t>(k)] = x[static_cast<std::size_t>(off + k * strides[0])];
    fftw_execute(p);
    for (std::int64_t k = 0; k < n; ++k) {
      const std::complex<double> want = d.scale * ref[static_cast<std::size_t>(k)];
      const C got = y[static_cast<std::size_t>(off + k * strides[0])];
      err = std::max(err, std::abs(std::complex<double>(got.real(), got.imag()) - want));
      mag = std::max(mag, std::abs(want));
    }
  }
  fftw_destroy_plan(p);
  return err / mag;
}

class ColumnFftGpu : public GpuTest {};

TEST_F(ColumnFftGpu, EveryLengthBothDirectionsMatchesFftw) {
  auto dev = dfft::detail::make_cuda_device(MPI_COMM_SELF, dfft_test::test_device());
  for (std::int64_t n = 64; n <= 2048; n *= 2)
    for (bool dbl : {false, true})
      for (bool backward : {false, true}) {
        // 5 x 7 columns behind axis 0 (one batch of 35), and a permuted order whose 40 columns
        // along axis 2 are the batch and axis 1 three launches.
        for (const auto& [shape, order] : {std::pair<std::vector<std::int64_t>, std::vector<int>>{{n, 5, 7}, {0, 1, 2}},
                                           std::pair<std::vector<std::int64_t>, std::vector<int>>{{n, 3, 40}, {1, 0, 2}}}) {
          FftDesc d = column_desc(shape, order, dbl, backward);
          d.scale = 0.25;
          d.engine = FftDesc::Engine::own;
          ASSERT_TRUE(dev->own_fft_applies(d)) << "length " << n;
          Buffer a(*dev, 16), b(*dev, 16);
          auto f = dev->make_fft(d, a.get(), b.get());
          EXPECT_EQ(f->engine(), "dfft's column kernel");
          EXPECT_TRUE(f->scales());
          for (bool in_place : {false, true}) {
            const double e = dbl ? run_and_compare<double>(*dev, *f, d, in_place) : run_and_compare<float>(*dev, *f, d, in_place);
            EXPECT_LE(e, dbl ? 1e-13 : 2e-6) << "length " << n << (dbl ? " double" : " float")
                                             << (backward ? " backward" : " forward") << " order " << order[0]
                                             << (in_place ? " in place" : "");
          }
        }
      }
}

TEST_F(ColumnFftGpu, OnlyWhereItsBatchIsContiguous) {
  auto dev = dfft::detail::make_cuda_device(MPI_COMM_SELF, dfft_test::test_device());
  EXPECT_FALSE(dev->own_fft_applies(column_desc({1000, 5, 7}, {0, 1, 2}, false, false))) << "not a power of two";
  EXPECT_FALSE(dev->own_fft_applies(column_desc({32, 5, 7}, {0, 1, 2}, false, false))) << "shorter than built";
  EXPECT_FALSE(dev->own_fft_applies(column_desc({64, 5, 7}, {1, 2, 0}, false, false))) << "axis 0 contiguous";
  FftDesc two = column_desc({64, 64, 7}, {0, 1, 2}, false, false);
  two.axes = {0, 1};
  EXPECT_FALSE(dev->own_fft_applies(two)) << "two axes";
  EXPECT_TRUE(dev->own_fft_applies(column_desc({64, 5, 7}, {0, 1, 2}, false, false)));
  auto cpu = dfft::detail::make_cpu_device(1);
  EXPECT_FALSE(cpu->own_fft_applies(column_desc({64, 5, 7}, {0, 1, 2}, false, false)));
}

TEST_F(ColumnFftGpu, MeasureTimesItAgainstCufft) {
  ASSERT_EQ(unsetenv("DFFT_COLUMN_FFT"), 0);  // the timed choice, whatever the caller's environment
  auto dev = dfft::detail::make_cuda_device(MPI_COMM_SELF, dfft_test::test_device());
  FftDesc d = column_desc({1024, 6, 40}, {0, 1, 2}, false, true);
  d.scale = 0.5;
  d.effort = dfft::Effort::measure;
  const std::size_t bytes = static_cast<std::size_t>(d.in.box.count()) * 8;
  Buffer a(*dev, bytes), b(*dev, bytes);
  auto f = dev->make_fft(d, a.get(), b.get());
  const std::string t = f->engine_timing();
  EXPECT_NE(t.find("cuFFT "), std::string::npos) << t;
  EXPECT_NE(t.find("dfft's column kernel "), std::string::npos) << t;
  EXPECT_LE(run_and_compare<float>(*dev, *f, d, false), 2e-6) << "chosen: " << (f->engine().empty() ? "cuFFT" : f->engine());
  // Under estimate nothing is timed: cuFFT's plan.
  d.effort = dfft::Effort::estimate;
  auto e = dev->make_fft(d, a.get(), b.get());
  EXPECT_TRUE(e->engine().empty());
  EXPECT_TRUE(e->engine_timing().empty());
}

// Steps of several axes split onto the kernel (DFFT_COLUMN_FFT=1: the FFT of the other axes, then
// the kernel over the slowest in place on the output), against FFTW's multi-dimensional DFT of
// the same row-major array: a 3-D r2c (split twice: cuFFT over z, the kernel over y, then x), a
// 3-D c2c both ways, and a 2-D c2c over the two slow axes of three (a slab-1d2d's second step).
TEST_F(ColumnFftGpu, SplitStepsMatchFftw) {
  ASSERT_EQ(setenv("DFFT_COLUMN_FFT", "1", 1), 0);
  auto dev = dfft::detail::make_cuda_device(MPI_COMM_SELF, dfft_test::test_device());
  using C = std::complex<double>;
  struct Case {
    std::vector<std::int64_t> shape;
    std::vector<int> axes;
    FftDesc::Kind kind;
  };
  const std::vector<Case> cases = {{{128, 64, 10}, {0, 1, 2}, FftDesc::Kind::r2c},
                                   {{64, 128, 6}, {0, 1, 2}, FftDesc::Kind::forward},
                                   {{64, 128, 6}, {0, 1, 2}, FftDesc::Kind::backward},
                                   {{64, 128, 5}, {0, 1}, FftDesc::Kind::forward}};
  for (const Case& c : cases) {
    const bool r2c = c.kind == FftDesc::Kind::r2c;
    std::vector<std::int64_t> out_shape = c.shape;
    if (r2c) out_shape.back() = out_shape.back() / 2 + 1;
    FftDesc d;
    d.kind = c.kind;
    d.axes = c.axes;
    d.in = Layout{Box{{0, 0, 0}, c.shape}, {0, 1, 2}, {}};
    d.out = Layout{Box{{0, 0, 0}, out_shape}, {0, 1, 2}, {}};
    d.is_double = true;
    d.scale = 0.5;
    const std::size_t nin = static_cast<std::size_t>(d.in.box.count()), nout = static_cast<std::size_t>(d.out.box.count());
    Buffer a(*dev, nin * 16), b(*dev, nout * 16);
    auto f = dev->make_fft(d, a.get(), b.get());
    EXPECT_NE(f->engine().find("dfft's column kernel over (0)"), std::string::npos) << f->engine();
    EXPECT_TRUE(f->scales());
    std::mt19937 g(5);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> xr(nin);
    std::vector<C> xc(nin);
    for (auto& v : xr) v = u(g);
    for (auto& v : xc) v = C(u(g), u(g));
    if (r2c)
      dev->upload(a.get(), xr.data(), nin * 8);
    else
      dev->upload(a.get(), xc.data(), nin * 16);
    f->execute(a.get(), b.get());
    dev->synchronize();
    std::vector<C> got(nout), want(nout);
    dev->download(got.data(), b.get(), nout * 16);
    const int n[3] = {static_cast<int>(c.shape[0]), static_cast<int>(c.shape[1]), static_cast<int>(c.shape[2])};
    fftw_plan p;
    if (r2c) {
      p = fftw_plan_dft_r2c_3d(n[0], n[1], n[2], xr.data(), reinterpret_cast<fftw_complex*>(want.data()), FFTW_ESTIMATE);
    } else {
      const int rank = static_cast<int>(c.axes.size());
      const int howmany = rank == 3 ? 1 : n[2], stride = rank == 3 ? 1 : n[2], dist = rank == 3 ? 0 : 1;
      p = fftw_plan_many_dft(rank, n, howmany, reinterpret_cast<fftw_complex*>(xc.data()), nullptr, stride, dist,
                             reinterpret_cast<fftw_complex*>(want.data()), nullptr, stride, dist,
                             c.kind == FftDesc::Kind::backward ? FFTW_BACKWARD : FFTW_FORWARD, FFTW_ESTIMATE);
    }
    ASSERT_NE(p, nullptr);
    fftw_execute(p);
    fftw_destroy_plan(p);
    double err = 0, mag = 0;
    for (std::size_t i = 0; i < nout; ++i) {
      err = std::max(err, std::abs(got[i] - 0.5 * want[i]));
      mag = std::max(mag, std::abs(0.5 * want[i]));
    }
    EXPECT_LE(err / mag, 1e-13) << f->engine();
  }
  ASSERT_EQ(unsetenv("DFFT_COLUMN_FFT"), 0);
}

// Whole plans with every step the kernel applies to on it (DFFT_COLUMN_FFT=1), against the serial
// reference: slab and pencil, both variants, r2c and c2c, both precisions. 128 x 64 x 9 gives
// the x- and y-steps lengths the kernel is built for; on 2 or more ranks the slab's x-step after
// its exchange runs on it.
TEST_F(ColumnFftGpu, PlansOnTheKernelMatchTheReference) {
  ASSERT_EQ(setenv("DFFT_COLUMN_FFT", "1", 1), 0);
  for (auto dec : {dfft::Decomposition::slab_2d1d, dfft::Decomposition::pencil})
    for (auto var : {dfft::Variant::Default, dfft::Variant::Realigned})
      for (auto tr : {dfft::Transform::r2c, dfft::Transform::c2c}) {
        dfft::Options o = dfft_test::backend_options();
        o.decomposition = dec;
        o.variant = var;
        o.transform = tr;
        o.methods = {dfft::Method::a2a_sync};
        SCOPED_TRACE(dfft::to_string(dec) + " " + dfft::to_string(var) + " " + dfft::to_string(tr));
        dfft::Plan<float> pf(MPI_COMM_WORLD, {128, 64, 9}, o);
        EXPECT_LE(max_over_ranks(dfft::validate::reference_error(pf, MPI_COMM_WORLD)), ref_tol<float>()) << pf.describe();
        EXPECT_LE(max_over_ranks(dfft::validate::roundtrip_error(pf, MPI_COMM_WORLD)), ref_tol<float>());
        dfft::Plan<double> pd(MPI_COMM_WORLD, {128, 64, 9}, o);
        EXPECT_LE(max_over_ranks(dfft::validate::reference_error(pd, MPI_COMM_WORLD)), ref_tol<double>()) << pd.describe();
        EXPECT_LE(max_over_ranks(dfft::validate::roundtrip_error(pd, MPI_COMM_WORLD)), ref_tol<double>());
        if (world_size() > 1 && dec == dfft::Decomposition::slab_2d1d && var == dfft::Variant::Default) {
          EXPECT_NE(pd.describe().find("dfft's column kernel"), std::string::npos) << pd.describe();
        }
      }
  ASSERT_EQ(unsetenv("DFFT_COLUMN_FFT"), 0);
}

}  // namespace column_fft_gpu
}  // namespace
}  // namespace dfft_gpu
