// SPDX-License-Identifier: MIT
#include "stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dfftapp {

namespace {

// Continued fraction of the regularised incomplete beta function (modified Lentz method).
double beta_fraction(double a, double b, double x) {
  constexpr double tiny = 1e-300, eps = 1e-15;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < tiny) d = tiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 500; ++m) {
    const double m2 = 2.0 * m;
    // even step
    double num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    d = 1 + num * d;
    c = 1 + num / c;
    d = 1 / (std::fabs(d) < tiny ? tiny : d);
    c = std::fabs(c) < tiny ? tiny : c;
    h *= d * c;
    // odd step
    num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    d = 1 + num * d;
    c = 1 + num / c;
    d = 1 / (std::fabs(d) < tiny ? tiny : d);
    c = std::fabs(c) < tiny ? tiny : c;
    const double step = d * c;
    h *= step;
    if (std::fabs(step - 1) < eps) break;
  }
  return h;
}

// I_x(a, b), the regularised incomplete beta function.
double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  // The fraction converges fast only on one side of the mean; use the symmetry on the other.
  if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(a, b, x) / a;
  return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

}  // namespace

double student_t_cdf(double t, double dof) {
  const double tail = 0.5 * incomplete_beta(dof / 2, 0.5, dof / (dof + t * t));
  return t >= 0 ? 1 - tail : tail;
}

double student_t_quantile(double p, double dof) {
  if (!(p > 0 && p < 1) || !(dof >= 1)) return std::numeric_limits<double>::quiet_NaN();
  if (p < 0.5) return -student_t_quantile(1 - p, dof);
  double lo = 0, hi = 1;
  while (student_t_cdf(hi, dof) < p && hi < 1e12) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (student_t_cdf(mid, dof) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

SampleStats sample_stats(const std::vector<double>& v, double level) {
  SampleStats s;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  s.n = static_cast<int>(v.size());
  if (v.empty()) {
    s.mean = s.median = s.min = s.max = s.stddev = s.ci_lo = s.ci_hi = nan;
    return s;
  }
  std::vector<double> sorted(v);
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  s.min = sorted.front();
  s.max = sorted.back();
  s.median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(n);
  if (n < 2) {
    s.stddev = s.ci_lo = s.ci_hi = nan;
    return s;
  }
  double sq = 0;
  for (double x : v) sq += (x - s.mean) * (x - s.mean);
  s.stddev = std::sqrt(sq / static_cast<double>(n - 1));
  const double half = student_t_quantile(0.5 + level / 2, static_cast<double>(n - 1)) * s.stddev /
                      std::sqrt(static_cast<double>(n));
  s.ci_lo = s.mean - half;
  s.ci_hi = s.mean + half;
  return s;
}

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
