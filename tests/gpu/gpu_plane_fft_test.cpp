// SPDX-License-Identifier: MIT
// dfft's plane kernel (src/backend/cuda/plane_fft.hpp) on the GPU, forced with DFFT_PLANE_FFT=1:
// r2c and c2r steps over the two fast axes of a batch of planes, every length built, both
// precisions, against FFTW's serial transform of the same array; then whole plans whose
// two-axis steps run on it, against the serial reference.
#include <fftw3.h>
#include <gtest/gtest.h>

#include <complex>
#include <cstdlib>
#include <random>
#include <vector>

#include "backend/device.hpp"
#include "dfft/validate.hpp"
#include "gpu_util.hpp"

namespace dfft_gpu {
namespace {
namespace plane_fft_gpu {  // names of its own in a unity build

using dfft::Box;
using dfft::Layout;
using dfft::detail::Buffer;
using dfft::detail::FftDesc;

class PlaneFftGpu : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    ASSERT_EQ(setenv("DFFT_PLANE_FFT", "1", 1), 0);
  }
  void TearDown() override {
    unsetenv("DFFT_PLANE_FFT");
    unsetenv("DFFT_COLUMN_FFT");
  }
};

// The r2c and the c2r over the fast axes of a {3, n, n} row-major array for every n built,
// against FFTW's many-DFT of the same data times d.scale.
TEST_F(PlaneFftGpu, PlaneStepsMatchFftw) {
  auto dev = dfft::detail::make_cuda_device(MPI_COMM_SELF, dfft_test::test_device());
  for (int n : {256, 512, 1024})
    for (bool dbl : {false, true})
      for (auto kind : {FftDesc::Kind::r2c, FftDesc::Kind::c2r}) {
        const bool r2c = kind == FftDesc::Kind::r2c;
        const int h = n / 2 + 1, planes = 3;
        const std::vector<std::int64_t> shape{planes, n, n}, half{planes, n, h};
        FftDesc d;
        d.kind = kind;
        d.axes = {1, 2};
        d.in = Layout{Box{{0, 0, 0}, r2c ? shape : half}, {0, 1, 2}, {}};
        d.out = Layout{Box{{0, 0, 0}, r2c ? half : shape}, {0, 1, 2}, {}};
        d.is_double = dbl;
        d.scale = 0.25;
        d.effort = dfft::Effort::estimate;
        SCOPED_TRACE(std::to_string(n) + (dbl ? " double " : " float ") + (r2c ? "r2c" : "c2r"));
        const auto nin = static_cast<std::size_t>(d.in.box.count()), nout = static_cast<std::size_t>(d.out.box.count());
        const std::size_t real = dbl ? 8 : 4, ein = r2c ? real : 2 * real, eout = r2c ? 2 * real : real;
        Buffer a(*dev, nin * ein), b(*dev, nout * eout);
        auto f = dev->make_fft(d, a.get(), b.get());
        ASSERT_EQ(f->engine(), "dfft's plane kernel");
        EXPECT_TRUE(f->scales());
        std::mt19937 g(3);
        std::uniform_real_distribution<double> u(-1, 1);
        const int nn[2] = {n, n};
        const std::size_t reals_in = nin * (r2c ? 1 : 2), reals_out = nout * (r2c ? 2 : 1);
        std::vector<double> x(reals_in);
        if (!r2c) {  // the spectrum of real data, so that every c2r reads the same (Hermitian) input
          std::vector<double> r(static_cast<std::size_t>(planes) * n * n);
          for (auto& v : r) v = u(g);
          fftw_plan q = fftw_plan_many_dft_r2c(2, nn, planes, r.data(), nullptr, 1, n * n,
                                               reinterpret_cast<fftw_complex*>(x.data()), nullptr, 1, n * h, FFTW_ESTIMATE);
          ASSERT_NE(q, nullptr);
          fftw_execute(q);
          fftw_destroy_plan(q);
        } else {
          for (auto& v : x) v = u(g);
        }
        std::vector<float> xf(x.begin(), x.end());
        if (!dbl) x.assign(xf.begin(), xf.end());  // FFTW transforms the values the GPU sees
        dev->upload(a.get(), dbl ? static_cast<const void*>(x.data()) : xf.data(), reals_in * real);
        f->execute(a.get(), b.get());
        dev->synchronize();
        std::vector<double> got(reals_out);
        if (dbl) {
          dev->download(got.data(), b.get(), reals_out * 8);
        } else {
          std::vector<float> gf(reals_out);
          dev->download(gf.data(), b.get(), reals_out * 4);
          got.assign(gf.begin(), gf.end());
        }
        std::vector<double> want(reals_out);
        fftw_plan p = r2c ? fftw_plan_many_dft_r2c(2, nn, planes, x.data(), nullptr, 1, n * n,
                                                   reinterpret_cast<fftw_complex*>(want.data()), nullptr, 1, n * h, FFTW_ESTIMATE)
                          : fftw_plan_many_dft_c2r(2, nn, planes, reinterpret_cast<fftw_complex*>(x.data()), nullptr, 1, n * h,
                                                   want.data(), nullptr, 1, n * n, FFTW_ESTIMATE);
        ASSERT_NE(p, nullptr);
        fftw_execute(p);
        fftw_destroy_plan(p);
        double err = 0, mag = 0;
        for (std::size_t i = 0; i < reals_out; ++i) {
          err = std::max(err, std::abs(got[i] - 0.25 * want[i]));
          mag = std::max(mag, std::abs(0.25 * want[i]));
        }
        EXPECT_LE(err / mag, dbl ? 1e-13 : 1e-5);
      }
}

// Whole plans whose two-axis steps run on the kernel, against the serial reference: one rank's
// 3-D transform split into dfft's column kernel over the slowest axis and the plane kernel over
// the others (DFFT_COLUMN_FFT=1), and on several ranks slab-2d1d's 2-D step; r2c, both
// precisions, 64 x 256 x 256.
TEST_F(PlaneFftGpu, PlansOnTheKernelMatchTheReference) {
  ASSERT_EQ(setenv("DFFT_COLUMN_FFT", "1", 1), 0);
  dfft::Options o = dfft_test::backend_options();
  o.decomposition = dfft::Decomposition::slab_2d1d;
  o.transform = dfft::Transform::r2c;
  o.methods = {dfft::Method::a2a_sync};
  const std::vector<std::int64_t> shape{64, 256, 256};
  dfft::Plan<float> pf(MPI_COMM_WORLD, shape, o);
  EXPECT_LE(max_over_ranks(dfft::validate::reference_error(pf, MPI_COMM_WORLD)), ref_tol<float>()) << pf.describe();
  EXPECT_LE(max_over_ranks(dfft::validate::roundtrip_error(pf, MPI_COMM_WORLD)), ref_tol<float>());
  dfft::Plan<double> pd(MPI_COMM_WORLD, shape, o);
  EXPECT_LE(max_over_ranks(dfft::validate::reference_error(pd, MPI_COMM_WORLD)), ref_tol<double>()) << pd.describe();
  EXPECT_LE(max_over_ranks(dfft::validate::roundtrip_error(pd, MPI_COMM_WORLD)), ref_tol<double>());
  EXPECT_NE(pd.describe().find("plane kernel"), std::string::npos) << pd.describe();
}

}  // namespace plane_fft_gpu
}  // namespace
}  // namespace dfft_gpu
