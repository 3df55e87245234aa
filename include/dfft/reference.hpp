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
};

/// Times `reps` executions after `warmup` of a forward (or inverse) transform of `shape`.
ReferenceTiming single_device_reference(Backend backend, const std::vector<std::int64_t>& shape,
                                        Transform transform, bool is_double, bool forward,
                                        int warmup, int reps, Effort effort = Effort::estimate,
                                        int device = 0);

}  // namespace dfft
