// SPDX-License-Identifier: MIT
// The CPU backend's split of FFT steps of three or more axes (the whole 3-D array on one rank, a
// 4-D slab's first step; src/backend/cpu/cpu_device.cpp), forced with DFFT_FFT_SPLIT=1 and its
// rest in blocks of one batch member (DFFT_FFT_BLOCK=1), with one thread and with a team that
// runs the blocks side by side: the serial reference and the round trip, both directions, and
// describe() names the split, so that a plan that quietly fell back to FFTW's plan of the whole
// step fails here.
#include <cstdlib>

#include "support/sweep.hpp"

namespace dfft_test {
namespace {

// Sets an environment variable for the scope and restores what was there.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) had_ = true, old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_) setenv(name_, old_.c_str(), 1);
    else unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

template <class T>
void split_case(const Shape& shape, Transform tr, int threads) {
  const ScopedEnv split("DFFT_FFT_SPLIT", "1"), block("DFFT_FFT_BLOCK", "1");
  dfft::Options o;
  o.decomposition = Decomposition::slab_2d1d;
  o.variant = Variant::Default;
  o.methods = {Method::a2a_sync};
  o.transform = tr;
  o.threads = threads;
  dfft::Plan<T> plan(MPI_COMM_WORLD, shape, o);
  const std::string d = plan.describe();
  // Forward "FFTW over (1,2), then over (0) in place"; a c2r "FFTW over (0) in place, then over (1,2)".
  EXPECT_NE(d.find("forward: FFTW over ("), std::string::npos) << d;
  EXPECT_NE(d.find("inverse: FFTW over ("), std::string::npos) << d;
  if (tr == Transform::r2c) {
    EXPECT_NE(d.find(" in place, then over ("), std::string::npos) << d;
  }
  EXPECT_LE(max_over_ranks(dfft::validate::reference_error(plan, MPI_COMM_WORLD)), ref_tol<T>()) << d;
  EXPECT_LE(max_over_ranks(dfft::validate::roundtrip_error(plan, MPI_COMM_WORLD)), ref_tol<T>()) << d;
  if (shape.size() == 3) {  // the Laplacian check is of 3-D arrays
    EXPECT_LE(max_over_ranks(dfft::validate::laplacian_error(plan, MPI_COMM_WORLD)), lap_tol<T>()) << d;
  }
}

// One rank holds the whole 3-D array: its one FFT step has three axes.
TEST(SplitSteps, WholeArrayOnOneRank) {
  if (world_size() != 1) GTEST_SKIP() << "a 3-D plan has a step of three axes on one rank only";
  for (Transform tr : {Transform::r2c, Transform::c2c})
    for (int threads : {1, 3}) {
      SCOPED_TRACE(dfft::to_string(tr) + " threads " + std::to_string(threads));
      split_case<double>({17, 12, 10}, tr, threads);
      split_case<float>({17, 12, 10}, tr, threads);
    }
}

// A 4-D slab's first step transforms the three axes that are not split, on every rank count.
TEST(SplitSteps, FourDimensionalSlab) {
  for (Transform tr : {Transform::r2c, Transform::c2c})
    for (int threads : {1, 2}) {
      SCOPED_TRACE(dfft::to_string(tr) + " threads " + std::to_string(threads));
      split_case<double>({9, 8, 7, 6}, tr, threads);
      split_case<float>({9, 8, 7, 6}, tr, threads);
    }
}

}  // namespace
}  // namespace dfft_test
