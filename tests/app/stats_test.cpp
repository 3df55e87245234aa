// SPDX-License-Identifier: MIT
// Student t quantiles against published table values, and the sample statistics.
#include <gtest/gtest.h>

#include <cmath>

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
