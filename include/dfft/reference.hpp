// SPDX-License-Identifier: MIT
// Single-device reference: the whole transform of the global array on one device with no
// distribution (serial FFTW on CPU; one cuFFT plan on one GPU - the thesis' "3D-FFT" row).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dfft/types.hpp"

namespace dfft {

struct ReferenceTiming {
  bool ran = false;
  std::string why;  // when it did not run (too large, no backend)
  double min = 0, median = 0, max = 0;  // seconds per transform
  /// Seconds to read the transform's input once and write its output once at the rate of a
  /// device-to-device copy timed in the same call (GPU; 0 where not measured): the time of one
  /// pass over device memory, against which a transform's time counts its passes.
  double pass = 0;
};

/// Times `reps` executions after `warmup` of a forward (or inverse) transform of `shape`.
ReferenceTiming single_device_reference(Backend backend, const std::vector<std::int64_t>& shape,
                                        Transform transform, bool is_double, bool forward,
                                        int warmup, int reps, Effort effort = Effort::estimate,
                                        int device = 0);

}  // namespace dfft
