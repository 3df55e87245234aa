// SPDX-License-Identifier: MIT
// The CPU runs of dfft's GPU kernels' per-thread code (column_fft_host_test.cpp,
// plane_fft_host_test.cpp) need the roots table the kernels keep in constant memory.
#pragma once

#include <cmath>

namespace dfft_host_kernels {

// The kernels' table of roots, cos(2 pi j / 64) for j in [0, 16], computed here.
struct HostQuadrant {
  double v[17];
  HostQuadrant() {
    for (int j = 0; j <= 16; ++j) v[j] = std::cos(2 * 3.14159265358979323846 * j / 64);
    v[16] = 0;
  }
  double operator[](int j) const { return v[j]; }
};

}  // namespace dfft_host_kernels
