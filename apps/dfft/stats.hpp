// SPDX-License-Identifier: MIT
// The statistics of the thesis (section 5.3): mean, median, min, max and the 99% confidence
// interval of the mean from Student's t distribution. No MPI here.
#pragma once

#include <cstdint>
#include <vector>

#include "dfft/types.hpp"

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

/// Limits of `dfft bench --validate` (relative L2 errors). Without a codec: 1e-10 (double) or
/// 1e-4 (float) for every check. A lossy wire format adds twice the expected error of
/// docs/compression.md, 2 * u * sqrt(e/3) for e roundings: the forward transform rounds at its
/// `exchanges` exchanges, the round trip at twice as many. The spectral Laplacian multiplies the
/// rounding of mode k by |k|^2, at most K = sum over axes of (n/2)^2, so its codec term is K
/// times the round trip's, capped at 0.1 so that a misplaced mode (an error of order 1) fails.
struct ValidationLimits {
  double reference = 0, roundtrip = 0, laplacian = 0;
};
ValidationLimits validation_limits(bool is_double, dfft::Codec codec, int exchanges,
                                   const std::vector<std::int64_t>& shape);

}  // namespace dfftapp
