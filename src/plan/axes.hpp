// SPDX-License-Identifier: MIT
// Which axes a plan transforms, in which order, and the padded physical grid (Options::axes,
// Options::padding). Pure functions of the shape and the options; validation happens here once.
#pragma once

#include <cstdint>
#include <vector>

#include "dfft/types.hpp"

namespace dfft::detail {

struct AxesPlan {
  std::vector<int> axes;            // transformed axes as listed (negatives resolved)
  std::vector<bool> transformed;    // per axis of the array
  /// Logical position -> array axis: the untransformed axes first (ascending), then `axes`. A
  /// decomposition recipe written for "all axes, the last one halved" runs on this order: the
  /// untransformed axes are then the ones split first, and the halved axis is last.
  std::vector<int> perm;
  int halved = -1;                  // r2c: the halved axis (the last listed)
  std::vector<std::int64_t> physical;  // real-space shape: padded sizes on padded axes
};

/// Resolves and checks Options::axes and Options::padding for `shape` (InvalidArgument naming
/// what is allowed).
AxesPlan plan_axes(const std::vector<std::int64_t>& shape, const Options& opt);

/// Shape on the spectral side: the halved axis n/2+1 for r2c (Options::axes decides which).
std::vector<std::int64_t> spectral_shape(const std::vector<std::int64_t>& shape, const Options& opt);

/// floor(n * factor) for a padded axis (mpi4py-fft's rule).
std::int64_t padded_size(std::int64_t n, double factor);

/// The transform size N of Norm: product of the physical sizes of the transformed axes, each
/// DCT/DST axis counted twice.
double transform_size(const std::vector<std::int64_t>& shape, const Options& opt);

}  // namespace dfft::detail
