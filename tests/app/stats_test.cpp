// SPDX-License-Identifier: MIT
// Student t quantiles against published table values, and the sample statistics.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "stats.hpp"

TEST(Stats, StudentTQuantilesMatchTables) {
  // Two-sided 99% (p = 0.995) and 95% (p = 0.975) critical values.
  const double p995[][2] = {{1, 63.657}, {2, 9.925},  {4, 4.604},  {9, 3.250},
                            {19, 2.861}, {29, 2.756}, {120, 2.617}};
  for (const auto& [dof, t] : p995)
    EXPECT_NEAR(dfftapp::student_t_quantile(0.995, dof), t, 1e-3) << dof;
  EXPECT_NEAR(dfftapp::student_t_quantile(0.975, 10), 2.228, 1e-3);
  EXPECT_NEAR(dfftapp::student_t_quantile(0.5, 7), 0.0, 1e-9);
  EXPECT_NEAR(dfftapp::student_t_quantile(0.005, 9), -3.250, 1e-3);
  EXPECT_TRUE(std::isnan(dfftapp::student_t_quantile(1.0, 3)));
  EXPECT_TRUE(std::isnan(dfftapp::student_t_quantile(0.9, 0)));
}

TEST(Stats, SampleStatistics) {
  auto s = dfftapp::sample_stats({4, 1, 3, 2, 10});
  EXPECT_EQ(s.n, 5);
  EXPECT_DOUBLE_EQ(s.mean, 4.0);
  EXPECT_DOUBLE_EQ(s.median, 3.0);
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 10.0);
  const double sd = std::sqrt((0 + 9 + 1 + 4 + 36) / 4.0);
  EXPECT_NEAR(s.stddev, sd, 1e-12);
  const double half = 4.604095 * sd / std::sqrt(5.0);  // t(0.995, 4)
  EXPECT_NEAR(s.ci_lo, 4.0 - half, 1e-5);
  EXPECT_NEAR(s.ci_hi, 4.0 + half, 1e-5);
  auto one = dfftapp::sample_stats({2.5});
  EXPECT_DOUBLE_EQ(one.mean, 2.5);
  EXPECT_TRUE(std::isnan(one.ci_lo));
  EXPECT_TRUE(std::isnan(dfftapp::sample_stats({}).mean));
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
