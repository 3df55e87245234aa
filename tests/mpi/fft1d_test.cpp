// SPDX-License-Identifier: MIT
// dfft::Fft1d against a direct O(n^2) DFT in long double written here: lengths with every kind
// of factorisation (1, primes, powers, composites), 1 and 3 interleaved transforms, forward and
// inverse (from the output blocks to the input blocks), in place and out of place, every norm,
// float and double; the blocks tile [0, n) in rank order; inverse(forward(x)) returns x on the
// same arrays; bad arguments fail on every rank.
#include <fftw3.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <map>
#include <numbers>
#include <tuple>
#include <vector>

#include "dfft/fft1d.hpp"
#include "support/test_util.hpp"

namespace dfft_test {
namespace {

using ld = long double;
using cld = std::complex<long double>;

// Input element j of transform v (same on every rank).
cd input_value(std::int64_t j, std::int64_t v) {
  return {std::sin(0.37 * static_cast<double>(j) + 1.3 * static_cast<double>(v)) + 0.1 * static_cast<double>(v),
          std::cos(0.91 * static_cast<double>(j * j % 101) - 0.5 * static_cast<double>(v))};
}

// Unscaled DFT with exp(sign 2 pi i j k / n), interleaved as j * h + v.
std::vector<cld> direct_dft(std::int64_t n, std::int64_t h, int sign) {
  std::vector<cld> w(static_cast<std::size_t>(n));
  for (std::int64_t m = 0; m < n; ++m) {
    const ld a = sign * 2 * std::numbers::pi_v<ld> * static_cast<ld>(m) / static_cast<ld>(n);
    w[static_cast<std::size_t>(m)] = {std::cos(a), std::sin(a)};
  }
  std::vector<cld> out(static_cast<std::size_t>(n * h));
  for (std::int64_t v = 0; v < h; ++v)
    for (std::int64_t k = 0; k < n; ++k) {
      cld s = 0;
      for (std::int64_t j = 0; j < n; ++j) {
        const cd x = input_value(j, v);
        s += cld(x.real(), x.imag()) * w[static_cast<std::size_t>(j * k % n)];
      }
      out[static_cast<std::size_t>(k * h + v)] = s;
    }
  return out;
}

const std::vector<cld>& reference(std::int64_t n, std::int64_t h, int sign) {
  static std::map<std::tuple<std::int64_t, std::int64_t, int>, std::vector<cld>> cache;
  auto key = std::make_tuple(n, h, sign);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, direct_dft(n, h, sign)).first;
  return it->second;
}

// numpy.fft's norms, written out here.
ld expected_scale(dfft::Norm norm, std::int64_t n, bool inverse) {
  const ld nn = static_cast<ld>(n);
  switch (norm) {
    case dfft::Norm::ortho: return 1 / std::sqrt(nn);
    case dfft::Norm::forward: return inverse ? 1 : 1 / nn;
    default: return inverse ? 1 / nn : 1;
  }
}

template <class T>
constexpr double tolerance() {
  return std::is_same_v<T, double> ? 1e-14 : 2e-6;
}

// Relative L2 error over all ranks.
double global_rel_err(double err2, double ref2) {
  double in[2] = {err2, ref2}, out[2] = {0, 0};
  MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return out[1] > 0 ? std::sqrt(out[0] / out[1]) : std::sqrt(out[0]);
}

// Relative L2 error over all ranks of a block [start, start + count) of `got` against
// ref * scale (both interleaved by h).
template <class C, class R>
double block_error(const C* got, std::int64_t start, std::int64_t count, std::int64_t h, const std::vector<R>& ref,
                   long double scale) {
  double err2 = 0, ref2 = 0;
  for (std::int64_t i = 0; i < count * h; ++i) {
    const R r = ref[static_cast<std::size_t>(start * h + i)];
    const cld want = cld(r.real(), r.imag()) * scale;
    err2 += static_cast<double>(std::norm(cld(got[i].real(), got[i].imag()) - want));
    ref2 += static_cast<double>(std::norm(want));
  }
  return global_rel_err(err2, ref2);
}

// The blocks of all ranks, in rank order, tile [0, n) one after another.
void expect_tiling(std::int64_t start, std::int64_t count, std::int64_t n, const char* what) {
  const int p = world_size();
  std::vector<std::int64_t> mine{start, count}, all(2 * static_cast<std::size_t>(p));
  MPI_Allgather(mine.data(), 2, MPI_INT64_T, all.data(), 2, MPI_INT64_T, MPI_COMM_WORLD);
  std::int64_t next = 0;
  for (int r = 0; r < p; ++r) {
    EXPECT_GE(all[2 * r + 1], 0) << what << " count of rank " << r;
    if (all[2 * r + 1] > 0) {
      EXPECT_EQ(all[2 * r], next) << what << " block of rank " << r << " does not follow the previous one";
      next = all[2 * r] + all[2 * r + 1];
    }
  }
  EXPECT_EQ(next, n) << what << " blocks do not cover [0, n)";
}

template <class T>
class Fft1dTest : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Fft1dTest, Precisions);

TYPED_TEST(Fft1dTest, MatchesDirectDft) {
  using T = TypeParam;
  using C = std::complex<T>;
  for (std::int64_t n : {1, 2, 7, 12, 17, 30, 97, 120, 1000})
    for (std::int64_t h : {1, 3})
      for (dfft::Norm norm : {dfft::Norm::backward, dfft::Norm::ortho, dfft::Norm::forward}) {
        SCOPED_TRACE("n " + std::to_string(n) + ", howmany " + std::to_string(h) + ", norm " + to_string(norm));
        dfft::Options opt;
        opt.norm = norm;
        opt.effort = dfft::Effort::estimate;
        dfft::Fft1d<T> plan(MPI_COMM_WORLD, n, h, opt);
        ASSERT_EQ(plan.size(), n);
        ASSERT_EQ(plan.howmany(), h);
        expect_tiling(plan.input_start(), plan.input_count(), n, "input");
        expect_tiling(plan.output_start(), plan.output_count(), n, "output");
        ASSERT_GE(plan.local_alloc(), plan.input_count() * h);
        ASSERT_GE(plan.local_alloc(), plan.output_count() * h);
        const auto alloc = static_cast<std::size_t>(std::max<std::int64_t>(plan.local_alloc(), 1));
        for (bool inverse : {false, true})
          for (bool in_place : {false, true}) {
            SCOPED_TRACE(std::string(inverse ? "inverse" : "forward") + (in_place ? ", in place" : ", out of place"));
            // The inverse reads the forward's output blocks and writes its input blocks.
            const std::int64_t from = inverse ? plan.output_start() : plan.input_start();
            const std::int64_t from_count = inverse ? plan.output_count() : plan.input_count();
            const std::int64_t to = inverse ? plan.input_start() : plan.output_start();
            const std::int64_t to_count = inverse ? plan.input_count() : plan.output_count();
            std::vector<C> x(alloc);
            for (std::int64_t j = 0; j < from_count; ++j)
              for (std::int64_t v = 0; v < h; ++v) {
                const cd val = input_value(from + j, v);
                x[static_cast<std::size_t>(j * h + v)] = C(static_cast<T>(val.real()), static_cast<T>(val.imag()));
              }
            std::vector<C> a = x, b(alloc, C(-7, -7));
            const C* in = a.data();
            C* out = in_place ? a.data() : b.data();
            if (inverse) plan.inverse(in, out);
            else plan.forward(in, out);
            if (!in_place) {
              EXPECT_EQ(a, x) << "out of place overwrote the input";
            }
            const double e = block_error(out, to, to_count, h, reference(n, h, inverse ? 1 : -1),
                                         expected_scale(norm, n, inverse));
            EXPECT_LT(e, tolerance<T>());
          }
      }
}

TYPED_TEST(Fft1dTest, InverseUndoesForward) {
  using T = TypeParam;
  using C = std::complex<T>;
  for (std::int64_t n : {97, 1000, 4096})
    for (std::int64_t h : {1, 3}) {
      SCOPED_TRACE("n " + std::to_string(n) + ", howmany " + std::to_string(h));
      dfft::Options opt;  // norm backward
      opt.effort = dfft::Effort::estimate;
      dfft::Fft1d<T> plan(MPI_COMM_WORLD, n, h, opt);
      const auto alloc = static_cast<std::size_t>(std::max<std::int64_t>(plan.local_alloc(), 1));
      std::vector<C> x(alloc), y(alloc);
      for (std::int64_t i = 0; i < plan.input_count() * h; ++i) {
        const cd val = input_value(plan.input_start() + i / h, i % h);
        x[static_cast<std::size_t>(i)] = C(static_cast<T>(val.real()), static_cast<T>(val.imag()));
      }
      plan.forward(x.data(), y.data());
      plan.inverse(y.data(), y.data());
      std::vector<C> want(static_cast<std::size_t>(n * h));
      std::copy_n(x.begin(), plan.input_count() * h, want.begin() + plan.input_start() * h);
      EXPECT_LT(block_error(y.data(), plan.input_start(), plan.input_count(), h, want, 1), tolerance<T>());
    }
}

// FFTW_MEASURE plans (made on the plan's own buffers), a point-to-point exchange, threads.
TEST(Fft1d, MeasureP2pAndThreads) {
  dfft::Options opt;
  opt.effort = dfft::Effort::measure;
  opt.fftw_wisdom = false;
  opt.methods = {dfft::Method::p2p_sync};
  opt.threads = 2;
  const std::int64_t n = 120, h = 3;
  dfft::Fft1d<double> plan(MPI_COMM_WORLD, n, h, opt);
  EXPECT_THAT(plan.describe(), ::testing::HasSubstr("n = 120"));
  std::vector<cd> x(static_cast<std::size_t>(std::max<std::int64_t>(plan.local_alloc(), 1)));
  for (std::int64_t j = 0; j < plan.input_count(); ++j)
    for (std::int64_t v = 0; v < h; ++v) x[static_cast<std::size_t>(j * h + v)] = input_value(plan.input_start() + j, v);
  plan.forward(x.data(), x.data());
  EXPECT_LT(block_error(x.data(), plan.output_start(), plan.output_count(), h, reference(n, h, -1), 1), 1e-14);
}

// A long transform (n = 3 * 2^16) is as accurate as FFTW's own serial plan.
TEST(Fft1d, LongTransformAgainstSerialFftw) {
  const std::int64_t n = 3 << 16;
  std::vector<cd> all(static_cast<std::size_t>(n)), ref(all.size());
  for (std::int64_t j = 0; j < n; ++j) all[static_cast<std::size_t>(j)] = input_value(j, 0);
  fftw_plan p = fftw_plan_dft_1d(static_cast<int>(n), reinterpret_cast<fftw_complex*>(all.data()),
                                 reinterpret_cast<fftw_complex*>(ref.data()), FFTW_FORWARD, FFTW_ESTIMATE);
  ASSERT_NE(p, nullptr);
  fftw_execute(p);
  fftw_destroy_plan(p);
  dfft::Options opt;
  opt.effort = dfft::Effort::estimate;
  dfft::Fft1d<double> plan(MPI_COMM_WORLD, n, 1, opt);
  std::vector<cd> x(static_cast<std::size_t>(plan.local_alloc()));
  std::copy_n(all.begin() + plan.input_start(), plan.input_count(), x.begin());
  plan.forward(x.data(), x.data());
  EXPECT_LT(block_error(x.data(), plan.output_start(), plan.output_count(), 1, ref, 1), 1e-14);
}

TEST(Fft1d, BadArgumentsFailEverywhere) {
  dfft::Options opt;
  opt.effort = dfft::Effort::estimate;
  expect_error_everywhere([&] { dfft::Fft1d<double>(MPI_COMM_WORLD, 0, 1, opt); }, "n must be >= 1");
  expect_error_everywhere([&] { dfft::Fft1d<double>(MPI_COMM_WORLD, 8, 0, opt); }, "howmany must be >= 1");
  if (world_size() > 1)
    expect_error_everywhere([&] { dfft::Fft1d<float>(MPI_COMM_WORLD, 8 + world_rank(), 1, opt); },
                            "ranks disagree");
  auto o2 = opt;
  o2.methods = {dfft::Method::a2a_sync, dfft::Method::p2p_sync};
  expect_error_everywhere([&] { dfft::Fft1d<double>(MPI_COMM_WORLD, 8, 1, o2); }, "at most one method");
  auto o3 = opt;
  o3.backend = dfft::Backend::cuda;
  const Outcome u = run_collective([&] { dfft::Fft1d<double>(MPI_COMM_WORLD, 8, 1, o3); });
  EXPECT_EQ(u.ranks_with_error, world_size());
  EXPECT_THAT(u.what, ::testing::HasSubstr("CPU backend only"));
}

}  // namespace
}  // namespace dfft_test
