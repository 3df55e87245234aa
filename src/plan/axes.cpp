// SPDX-License-Identifier: MIT
#include "plan/axes.hpp"

#include <cmath>

#include "util/check.hpp"

namespace dfft::detail {

namespace {

std::vector<int> resolve_axes(const std::vector<int>& given, int d) {
  std::vector<int> axes;
  if (given.empty())
    for (int a = 0; a < d; ++a) axes.push_back(a);
  std::vector<bool> seen(static_cast<std::size_t>(d), false);
  for (int a : given) {
    if (a < -d || a >= d)
      fail("axes: axis ", a, " is out of range for a ", d, "-D array; give axes in [", -d, ", ", d - 1,
           "] (negative ones count from the end)");
    const int r = a < 0 ? a + d : a;
    if (seen[r]) fail("axes: axis ", r, " is listed twice; each axis may be transformed once");
    seen[r] = true;
    axes.push_back(r);
  }
  return axes;
}

void check_padding(const Options& opt, const AxesPlan& ax, int d) {
  if (opt.padding.empty()) return;
  if (static_cast<int>(opt.padding.size()) != d)
    fail("padding takes one factor per axis (", d, " for this array), got ", opt.padding.size());
  for (int a = 0; a < d; ++a) {
    const double f = opt.padding[a];
    if (!std::isfinite(f) || f < 1)
      fail("padding: the factor of axis ", a, " is ", f, "; give 1 (no padding) or more (1.5: the 3/2 rule)");
    if (f != 1 && !ax.transformed[a])
      fail("padding: axis ", a, " is not transformed (axes); only transformed axes can be padded");
    if (f != 1 && !opt.r2r.empty() && opt.r2r[a] != R2R::none)
      unsupported("padding of a DCT/DST axis (axis ", a, ") is not implemented; pad only periodic axes");
  }
  bool any = false;
  for (double f : opt.padding) any |= f != 1;
  if (!any) return;
  if (opt.transform == Transform::r2r)
    unsupported("padding is not implemented for transform r2r (DCT/DST axes); use c2c or r2c");
  if (opt.in_place) unsupported("padding with in_place is not implemented; use separate input and output arrays");
  // The padded spectrum is a buffer of the plan's own, which executions with their own
  // workspaces would share.
  if (opt.user_workspace)
    unsupported("padding with user_workspace is not implemented; make the plan without user_workspace");
  if (opt.overlap > 1 || opt.adapt)
    unsupported("padding is not implemented with overlap > 1 or adapt; use overlap = 1");
}

}  // namespace

std::int64_t padded_size(std::int64_t n, double factor) {
  // A small allowance keeps 1.5 * 10 from landing just below 15 after rounding of the factor.
  return static_cast<std::int64_t>(std::floor(static_cast<double>(n) * factor + 1e-9));
}

AxesPlan plan_axes(const std::vector<std::int64_t>& shape, const Options& opt) {
  const int d = static_cast<int>(shape.size());
  AxesPlan ax;
  ax.axes = resolve_axes(opt.axes, d);
  ax.transformed.assign(static_cast<std::size_t>(d), false);
  for (int a : ax.axes) ax.transformed[a] = true;
  for (int a = 0; a < d; ++a)
    if (!ax.transformed[a]) ax.perm.push_back(a);
  ax.perm.insert(ax.perm.end(), ax.axes.begin(), ax.axes.end());
  if (opt.transform == Transform::r2c) ax.halved = ax.axes.back();
  if (opt.in_place && opt.transform == Transform::r2c && ax.halved != d - 1)
    unsupported("in_place r2c needs the halved axis (the last of axes) to be the last axis of the "
                "array (FFTW's padded layout); got axis ", ax.halved);
  check_padding(opt, ax, d);
  ax.physical = shape;
  if (!opt.padding.empty())
    for (int a = 0; a < d; ++a) ax.physical[a] = padded_size(shape[a], opt.padding[a]);
  return ax;
}

std::vector<std::int64_t> spectral_shape(const std::vector<std::int64_t>& shape, const Options& opt) {
  auto s = shape;
  if (opt.transform != Transform::r2c || s.empty()) return s;
  const int d = static_cast<int>(s.size());
  int h = opt.axes.empty() ? d - 1 : opt.axes.back();
  if (h < 0) h += d;
  if (h >= 0 && h < d) s[h] = s[h] / 2 + 1;
  return s;
}

double transform_size(const std::vector<std::int64_t>& shape, const Options& opt) {
  const AxesPlan ax = plan_axes(shape, opt);
  double n = 1;
  for (int a : ax.axes)
    n *= static_cast<double>(r2r_logical_size(opt.r2r.empty() ? R2R::none : opt.r2r[a], ax.physical[a]));
  return n;
}

}  // namespace dfft::detail
