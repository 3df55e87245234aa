// SPDX-License-Identifier: MIT
// DCT/DST steps on the CUDA backend (docs/r2r.md): cuFFT has no real-to-real transforms, so
// each DCT/DST axis runs as a pre-processing kernel, one batched cuFFT transform and a
// post-processing kernel (the math is in backend/r2r_via_fft.hpp); the step's periodic axes go first,
// through the ordinary cuFFT path (c2c, or r2c / c2r).
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <vector>

#include "backend/r2r_via_fft.hpp"
#include "backend/device.hpp"

namespace dfft::detail {

class CudaDevice;

/// True when the step transforms at least one DCT/DST axis.
bool has_r2r_axis(const FftDesc& d);

/// The lines of DCT/DST axis `axis` (applying `kind`) read from `src` and written to `dst` (same
/// box). `real`: the elements are reals (else complex: two lines per element). Pure
/// arithmetic, no CUDA.
r2r::LineGeom make_line_geom(const Layout& src, const Layout& dst, int axis, bool real, R2R kind);

/// How a step with DCT/DST axes runs: its periodic axes first (one cuFFT step from d.in to
/// d.out, r2c / c2r included; none for real data), then the DCT/DST axes one by one, the
/// first from d.in when there is no periodic axis, every other one in place on d.out. Empty
/// when the box is empty here.
struct R2rSchedule {
  std::vector<int> periodic;
  std::vector<r2r::LineGeom> lines;
};
R2rSchedule schedule_r2r(const FftDesc& d);

/// The step `d` (with DCT/DST axes) on `dev`.
std::unique_ptr<LocalFft> make_cuda_r2r(const FftDesc& d, CudaDevice& dev);

namespace cuda {
/// Kernels around the FFT of one axis (r2r.cu), for the type g.type applies.
/// pre: source data -> work buffer (the real one when r2r::pre_writes_real, else the complex
/// one); post: the FFT's output buffer -> destination data; length1: types II/III with n == 1
/// (no FFT), source -> destination.
cudaError_t launch_r2r_pre(const r2r::LineGeom& g, const void* src, void* work, bool is_double,
                           cudaStream_t s);
cudaError_t launch_r2r_post(const r2r::LineGeom& g, const void* work, void* dst, bool is_double,
                            cudaStream_t s);
cudaError_t launch_r2r_length1(const r2r::LineGeom& g, const void* src, void* dst,
                               bool is_double, cudaStream_t s);
}  // namespace cuda

}  // namespace dfft::detail
