// SPDX-License-Identifier: MIT
// dfft's own batched FFT along a strided axis with a contiguous batch, the normalisation folded
// into its stores (column_fft_core.hpp says why and how): the launcher, which host code calls
// without nvcc, and the LocalFft that runs an FFT step with it where it applies.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/cuda/column_fft_core.hpp"
#include "backend/cuda/cufft_layout.hpp"
#include "backend/device.hpp"
#include "backend/timed_fft.hpp"

namespace dfft::detail {

class CudaDevice;

namespace cuda {

/// The widest tile (columns per block, column_fft::wide_columns or narrow_columns) whose shared
/// memory fits in `max_shared` bytes (the GPU's opt-in limit per block); 0 where none does.
int column_fft_width(int log2n, bool is_double, std::int64_t max_shared);

/// Queues the transform of `g` (length 2^log2n, column_fft::supported_log2) on `s`, with
/// `columns` columns per thread block (one of the two widths built). Returns the launch error
/// (cudaErrorInvalidValue for a length or width it is not built for).
cudaError_t launch_column_fft(const void* in, void* out, const column_fft::Geom& g, int log2n, bool is_double,
                              int columns, cudaStream_t s);

}  // namespace cuda

/// The loops of a cuFFT mapping as the kernel's launches: a run of loops whose offsets advance
/// by the same step in the input and in the output is one launch of `count` groups of columns
/// (a pencil's y-step looped over z: one launch instead of one per z); offsets in elements.
struct ColumnLaunch {
  std::int64_t in = 0, out = 0, count = 1, istep = 0, ostep = 0;
};
std::vector<ColumnLaunch> column_launches(const CufftMapping& m);

/// Whether `d` can run as dfft's column FFT on `dev`: one complex axis (forward or backward) of a
/// length the kernel is built for, whose batch cuFFT's mapping would run at distance 1 on both
/// sides, with a tile that fits in the GPU's shared memory.
bool column_fft_applies(const FftDesc& d, const CudaDevice& dev);

/// The LocalFft of such a step (FftDesc::Engine::own); it applies d.scale as it stores.
std::unique_ptr<LocalFft> make_column_fft(const FftDesc& d, CudaDevice& dev);

/// A step of two or more axes split into the FFT of all but its slowest axis in the output
/// (`rest`, out of place, unnormalised, its engine again automatic) and the column kernel over
/// that axis in place on the output (`column`, with the normalisation): where the column kernel
/// applies to it and, for an r2c, the slowest axis is not the halved one. c2r steps are not
/// split (the column FFT would have to come first and overwrite the input).
struct ColumnSplit {
  FftDesc rest, column;
};
std::optional<ColumnSplit> column_split(const FftDesc& d, const CudaDevice& dev);
std::unique_ptr<LocalFft> make_split_fft(const ColumnSplit& s, CudaDevice& dev, void* scratch_in, void* scratch_out);

/// The faster of `library_fft()` (cuFFT's plan of `d`) and `own_fft()` (the column kernel, a
/// split onto it, cuFFT in groups of the batch), timed on `in` and `out` (the plan's scratch
/// buffers, large enough for the step's layouts) the first time the process meets the problem
/// and `choice` (which choice this is: one step may meet several); engine_timing() gives both
/// times.
std::unique_ptr<LocalFft> timed_cuda_fft(const FftDesc& d, CudaDevice& dev, void* in, void* out, const std::string& choice,
                                         const FftMaker& library_fft, const FftMaker& own_fft);

}  // namespace dfft::detail
