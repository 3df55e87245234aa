// SPDX-License-Identifier: MIT
// The statistics of the thesis (section 5.3): mean, median, min, max and the 99% confidence
// interval of the mean from Student's t distribution. No MPI here.
#pragma once

#include <vector>

namespace dfftapp {

struct SampleStats {
  int n = 0;
  double mean = 0, median = 0, min = 0, max = 0, stddev = 0;  // stddev: sample (n-1)
  /// Two-sided confidence interval of the mean, [lo, hi]; NaN for fewer than two samples.
  double ci_lo = 0, ci_hi = 0;
};

/// Statistics of `v` with a `level` (e.g. 0.99) confidence interval of the mean.
SampleStats sample_stats(const std::vector<double>& v, double level = 0.99);

/// Quantile of Student's t distribution with `dof` degrees of freedom: the t with
/// P(T <= t) = p, for 0 < p < 1 and dof >= 1.
double student_t_quantile(double p, double dof);

/// P(T <= t) for Student's t distribution.
double student_t_cdf(double t, double dof);

}  // namespace dfftapp
