// SPDX-License-Identifier: MIT
// The statistics of dfft bench: the order-statistic interval of the median against the binomial
// tables, the sample statistics, the spread that flags noisy rows, and the validation limits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "stats.hpp"

namespace {

std::vector<double> one_to(int n) {
  std::vector<double> v;
  for (int i = n; i >= 1; --i) v.push_back(i);  // unsorted on purpose
  return v;
}

}  // namespace

// Ranks of the distribution-free interval of the median, as tabulated (e.g. Conover, Practical
// Nonparametric Statistics, table A3): n = 20 gives (x_6, x_15) at 95% and (x_4, x_17) at 99%;
// the coverage is 1 - 2 P(B <= j-1) for B ~ binomial(n, 1/2).
TEST(Stats, MedianIntervalFromOrderStatistics) {
  auto ci95 = dfftapp::median_interval(one_to(20), 0.95);
  EXPECT_DOUBLE_EQ(ci95.lo, 6);
  EXPECT_DOUBLE_EQ(ci95.hi, 15);
  EXPECT_NEAR(ci95.coverage, 1 - 2 * 21700.0 / 1048576, 1e-12);
  auto ci99 = dfftapp::median_interval(one_to(20), 0.99);
  EXPECT_DOUBLE_EQ(ci99.lo, 4);
  EXPECT_DOUBLE_EQ(ci99.hi, 17);
  EXPECT_NEAR(ci99.coverage, 1 - 2 * 1351.0 / 1048576, 1e-12);
  // 8 samples are the fewest whose [min, max] reaches 99%; with 7 it covers 1 - 2/128 only.
  EXPECT_GE(dfftapp::median_interval(one_to(8), 0.99).coverage, 0.99);
  auto seven = dfftapp::median_interval(one_to(7), 0.99);
  EXPECT_DOUBLE_EQ(seven.lo, 1);
  EXPECT_DOUBLE_EQ(seven.hi, 7);
  EXPECT_NEAR(seven.coverage, 1 - 2.0 / 128, 1e-12);
  EXPECT_TRUE(std::isnan(dfftapp::median_interval({}, 0.99).lo));
}

// One stalled repetition among fast ones: Student's t interval of the mean went below zero
// (mean 3.09, stddev 9.45, t(0.995, 9) = 3.25: lower end -6.6 ms); the median's stays between
// the samples.
TEST(Stats, MedianIntervalNeverBelowTheFastestSample) {
  std::vector<double> v(9, 0.1);
  v.push_back(30);
  auto s = dfftapp::sample_stats(v, 0.99);
  EXPECT_GE(s.median_ci.lo, 0.1);
  EXPECT_LE(s.median_ci.hi, 30);
  EXPECT_GE(s.median_ci.coverage, 0.99);
}

TEST(Stats, SampleStatistics) {
  auto s = dfftapp::sample_stats({4, 1, 3, 2, 10});
  EXPECT_EQ(s.n, 5);
  EXPECT_DOUBLE_EQ(s.mean, 4.0);
  EXPECT_DOUBLE_EQ(s.median, 3.0);
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 10.0);
  EXPECT_NEAR(s.stddev, std::sqrt((0 + 9 + 1 + 4 + 36) / 4.0), 1e-12);
  EXPECT_DOUBLE_EQ(dfftapp::median({4, 1, 3, 2}), 2.5);
  auto one = dfftapp::sample_stats({2.5});
  EXPECT_DOUBLE_EQ(one.mean, 2.5);
  EXPECT_TRUE(std::isnan(one.stddev));
  EXPECT_TRUE(std::isnan(dfftapp::sample_stats({}).mean));
}

// A few stalled repetitions raise max/median; most stalled ones raise the median itself
// (median 8.05 ms against a fastest repetition of 0.065 ms: max/median is only 1.02).
TEST(Stats, SpreadFlagsStallsOfAFewOrOfMost) {
  EXPECT_TRUE(dfftapp::is_noisy(1.0, 1.1, 5.0));
  EXPECT_TRUE(dfftapp::is_noisy(0.065, 8.05, 8.2));
  EXPECT_NEAR(dfftapp::spread(0.065, 8.05, 8.2), 8.05 / 0.065, 1e-9);
  EXPECT_FALSE(dfftapp::is_noisy(1.0, 1.2, 1.9));
  EXPECT_FALSE(dfftapp::is_noisy(0, 0, 0));  // nothing measured: not a verdict on noise
}

// bench --validate with a codec: the measured errors of docs/compression.md (pencil, 2
// exchanges) pass, an error past twice the documented expectation fails, and without a codec
// the limits stay the precision's (the Laplacian's grows with the largest wavenumber).
TEST(Stats, ValidationLimitsFollowTheCodec) {
  using dfft::Codec;
  const std::vector<std::int64_t> shape{64, 64, 64};
  const auto none = dfftapp::validation_limits(true, Codec::none, 2, shape);
  EXPECT_DOUBLE_EQ(none.reference, 1e-10);
  EXPECT_NEAR(none.laplacian, 1e-10, 1e-11);  // double's rounding times kmax adds little
  EXPECT_DOUBLE_EQ(dfftapp::validation_limits(false, Codec::none, 2, shape).roundtrip, 1e-4);
  // float's own rounding, amplified by the Laplacian's kmax: 512^3 float measured 1.1e-3 on 4
  // GPUs (every method alike); a misplaced mode (error ~1) still fails.
  const auto big = dfftapp::validation_limits(false, Codec::none, 1, {512, 512, 512});
  EXPECT_GT(big.laplacian, 1.2e-3);
  EXPECT_LT(big.laplacian, 0.1 + 1e-4);
  for (Codec c : {Codec::fp32, Codec::fp16, Codec::bf16}) {
    const double expected = 2 * dfft::unit_roundoff(c) * std::sqrt(2 / 3.0);  // docs/compression.md
    const auto l = dfftapp::validation_limits(true, c, 2, shape);
    EXPECT_GE(l.reference, expected);            // within the promise: passes
    EXPECT_LT(l.reference, 2.01 * expected);     // beyond twice the promise: fails
    EXPECT_GT(l.roundtrip, l.reference);         // the round trip rounds twice as often
    EXPECT_LE(l.laplacian, 0.1 + 1e-10);         // a misplaced mode (error ~1) always fails
  }
  // Measured on 64^3, pencil, 2 ranks (fp32, fp16, bf16): reference, round trip, Laplacian.
  const auto fp32 = dfftapp::validation_limits(true, Codec::fp32, 2, shape);
  EXPECT_TRUE(1.8e-8 <= fp32.reference && 2e-8 <= fp32.roundtrip && 7e-7 <= fp32.laplacian);
  const auto fp16 = dfftapp::validation_limits(true, Codec::fp16, 2, shape);
  EXPECT_TRUE(1.5e-4 <= fp16.reference && 1e-4 <= fp16.roundtrip && 6e-3 <= fp16.laplacian);
  EXPECT_FALSE(2e-3 <= fp16.reference);  // fp16 at bf16's error level is beyond its promise
}
