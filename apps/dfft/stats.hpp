// SPDX-License-Identifier: MIT
// The statistics of `dfft bench` (one definition each; every reader of the records takes them
// from the record rather than recomputing them): mean, median, min, max, a distribution-free
// confidence interval of the median, and the spread that flags a noisy row. No MPI here.
#pragma once

#include <cstdint>
#include <vector>

#include "dfft/types.hpp"

namespace dfftapp {

/// A confidence interval [lo, hi] and the probability that it holds the population median.
struct MedianInterval {
  double lo = 0, hi = 0, coverage = 0;
};

/// The distribution-free interval of the median from order statistics: the pair
/// (x_(j), x_(n+1-j)) of the sorted sample with the largest j whose coverage,
/// 1 - 2 P(B <= j-1) for B ~ binomial(n, 1/2), is at least `level`. Its ends are samples, so it
/// never leaves [min, max] (a time interval never goes below zero) and it does not assume a
/// shape of the distribution (timings are skewed). When even [min, max] covers less than
/// `level` (fewer than 8 samples for 0.99), that is returned with its smaller coverage; an empty
/// sample gives NaNs.
MedianInterval median_interval(const std::vector<double>& v, double level = 0.99);

struct SampleStats {
  int n = 0;
  double mean = 0, median = 0, min = 0, max = 0, stddev = 0;  // stddev: sample (n-1)
  /// median_interval(v, level).
  MedianInterval median_ci;
};

/// Statistics of `v` with a `level` (e.g. 0.99) confidence interval of the median.
SampleStats sample_stats(const std::vector<double>& v, double level = 0.99);

/// Median of a sample (mean of the two middle values for an even count; 0 when empty).
double median(std::vector<double> v);

/// A row is noisy when its spread exceeds this.
constexpr double kNoiseRatio = 2.0;

/// Spread of a row's repetition times: the larger of max/median (a few repetitions stalled) and
/// median/min (most repetitions stalled, so the median itself is slow: repetitions cannot run
/// faster than the work takes, so the fastest one is the closest to its cost). NaN when
/// min or median is not positive.
double spread(double min, double median, double max);

/// spread() > kNoiseRatio.
bool is_noisy(double min, double median, double max);

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
