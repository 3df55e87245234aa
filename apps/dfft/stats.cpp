// SPDX-License-Identifier: MIT
#include "stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dfftapp {

namespace {

// P(B <= k) for B ~ binomial(n, 1/2), summed in logarithms (no overflow for large n).
double binomial_half_cdf(std::size_t n, std::size_t k) {
  double sum = 0;
  const double nf = static_cast<double>(n);
  for (std::size_t i = 0; i <= k && i <= n; ++i) {
    const double fi = static_cast<double>(i);
    sum += std::exp(std::lgamma(nf + 1) - std::lgamma(fi + 1) - std::lgamma(nf - fi + 1) - nf * std::log(2.0));
  }
  return std::min(1.0, sum);
}

}  // namespace

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

MedianInterval median_interval(const std::vector<double>& v, double level) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (v.empty()) return {nan, nan, nan};
  std::vector<double> x(v);
  std::sort(x.begin(), x.end());
  const std::size_t n = x.size();
  // (x_(j), x_(n+1-j)), 1-based, misses the median when at most j-1 samples lie below it or at
  // most j-1 above: probability 2 P(B <= j-1). j = 1 is [min, max].
  std::size_t j = 1;
  double coverage = 1 - 2 * binomial_half_cdf(n, 0);
  while (2 * (j + 1) <= n + 1) {
    const double next = 1 - 2 * binomial_half_cdf(n, j);
    if (next < level) break;
    ++j;
    coverage = next;
  }
  return {x[j - 1], x[n - j], coverage};
}

SampleStats sample_stats(const std::vector<double>& v, double level) {
  SampleStats s;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  s.n = static_cast<int>(v.size());
  s.median_ci = median_interval(v, level);
  if (v.empty()) {
    s.mean = s.median = s.min = s.max = s.stddev = nan;
    return s;
  }
  s.min = *std::min_element(v.begin(), v.end());
  s.max = *std::max_element(v.begin(), v.end());
  s.median = median(v);
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  if (v.size() < 2) {
    s.stddev = nan;
    return s;
  }
  double sq = 0;
  for (double x : v) sq += (x - s.mean) * (x - s.mean);
  s.stddev = std::sqrt(sq / static_cast<double>(v.size() - 1));
  return s;
}

double spread(double min, double median, double max) {
  if (!(min > 0) || !(median > 0)) return std::numeric_limits<double>::quiet_NaN();
  return std::max(max / median, median / min);
}

bool is_noisy(double min, double median, double max) { return spread(min, median, max) > kNoiseRatio; }

ValidationLimits validation_limits(bool is_double, dfft::Codec codec, int exchanges,
                                   const std::vector<std::int64_t>& shape) {
  const double base = is_double ? 1e-10 : 1e-4;
  const double u = dfft::unit_roundoff(codec);
  const double e = std::max(1, exchanges);
  auto codec_term = [&](double roundings) { return 2 * (2 * u * std::sqrt(roundings / 3)); };
  double kmax = 0;
  for (auto n : shape) kmax += 0.25 * static_cast<double>(n) * static_cast<double>(n);
  ValidationLimits l;
  l.reference = base + codec_term(e);
  l.roundtrip = base + codec_term(2 * e);
  // The Laplacian multiplies the spectrum by up to kmax, so the working precision's own rounding
  // in the transforms grows with it as the wire format's does (float at 512^3: about 1e-3).
  const double working = is_double ? 0x1p-53 : 0x1p-24;
  l.laplacian = base + std::min(0.1, kmax * (codec_term(2 * e) + 4 * working));
  return l;
}

}  // namespace dfftapp
