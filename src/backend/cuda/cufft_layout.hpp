// SPDX-License-Identifier: MIT
// How an FFT step's layouts map onto cuFFT's advanced data layout (cufftMakePlanMany64).
// Pure index arithmetic, no CUDA: the CPU tests check it against FFTW's guru interface.
//
// cuFFT describes a batch of rank-r transforms by n[], an embedding (inembed/onembed: the
// stride of FFT axis k-1 is inembed[k] times that of axis k), one element stride and one batch
// distance per side. So:
//  - the FFT axes, ordered by memory position, must be in the same order in input and output
//    (with r2c/c2r the halved axis last): then their strides always form an embedding;
//  - batch axes that are contiguous one into the other in BOTH layouts merge into one;
//  - the largest merged batch axis becomes the plan's batch, the others are looped over with
//    pointer offsets (the thesis' "several plans" for the Default pencil y-step).
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "backend/device.hpp"

namespace dfft::detail {

struct CufftMapping {
  bool ok = false;  // false: these two layouts cannot share one cuFFT batch description
  std::vector<long long> n, inembed, onembed;
  long long istride = 1, ostride = 1, idist = 1, odist = 1, batch = 1;
  std::vector<std::pair<std::int64_t, std::int64_t>> loops;  // (in, out) element offsets
};

/// The cuFFT description of transforming d.axes from layout `in` to layout `out`.
CufftMapping map_layouts(const FftDesc& d, const Layout& in, const Layout& out);

/// Layouts to run the FFT between, best first: (d.in, d.out) itself; then through a temporary
/// on the output side (input's order), on the input side (output's order), or both (FFT axes
/// fastest, in the step's axis order: always maps).
std::vector<std::array<Layout, 2>> layout_candidates(const FftDesc& d);

/// The layouts an FFT step runs between and their mapping: the first candidate that maps and
/// whose loops start every real array on a complex element's boundary (cuFFT refuses a real
/// array at an odd offset: CUFFT_INVALID_VALUE). The last candidate always qualifies.
struct ChosenLayouts {
  std::array<Layout, 2> layouts;
  CufftMapping map;
};
ChosenLayouts choose_layouts(const FftDesc& d);

}  // namespace dfft::detail
