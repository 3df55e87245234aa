// SPDX-License-Identifier: MIT
// dfft's plane kernel (plane_fft_core.hpp says why and how): the launcher, which host code calls
// without nvcc, and the LocalFft that runs an r2c or c2r step of two axes with it where it
// applies.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>

#include "backend/cuda/plane_fft_core.hpp"
#include "backend/device.hpp"

namespace dfft::detail {

class CudaDevice;

namespace cuda {

/// Blocks per cluster (one cluster per plane in flight) and the most clusters launched (0: as
/// many as fit on the GPU at once).
struct PlaneLaunch {
  int cluster = 0;
  std::int64_t clusters = 0;
};

/// Queues the r2c (`forward`) or the c2r of the planes of `g` (2^log2n x 2^log2n each) on `s`. The
/// c2r overwrites `cplx`. Returns the launch error (cudaErrorInvalidValue for a length not
/// built, cudaErrorInvalidConfiguration where no cluster of that size fits).
cudaError_t launch_plane_fft(void* real, void* cplx, const plane_fft::Geom& g, int log2n, bool is_double, bool forward,
                             const PlaneLaunch& how, cudaStream_t s);

/// Shared memory of one block for 2^log2n (-1: not built).
std::int64_t plane_fft_shared_bytes(int log2n, bool is_double);

}  // namespace cuda

/// The blocks per cluster that share a plane's rows and columns most evenly (the most of those
/// within a few per cent of the best: fewer planes in flight).
int plane_cluster_size(int log2n, bool is_double);

/// Whether `d` can run on the plane kernel on `dev`: an r2c or c2r over the two fastest axes of
/// square planes of a built length, each plane one block of rows on both sides (the real side's
/// rows padded or not), on a GPU with thread block clusters and the shared memory.
bool plane_fft_applies(const FftDesc& d, const CudaDevice& dev);

/// The LocalFft of such a step; it applies d.scale.
std::unique_ptr<LocalFft> make_plane_fft(const FftDesc& d, CudaDevice& dev);

}  // namespace dfft::detail
