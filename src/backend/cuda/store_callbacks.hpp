// SPDX-License-Identifier: MIT
// The normalisation folded into a cuFFT plan's stores (src/backend/cuda/scale_callbacks.cu).
#pragma once

#include <cufft.h>

namespace dfft::detail {

/// Whether cuFFT links store callbacks in this process: decided once, by planning a small
/// transform with one (a cuFFT or driver without JIT LTO fails there), unless
/// DFFT_CUFFT_CALLBACKS=0 turns them off. The calling thread's GPU must be current.
bool store_callbacks_available();

/// Attaches the scaling callback for `type` to `h`, after cufftCreate and before cufftMakePlan*:
/// a store callback on its output, or with `on_load` a load callback on its input; it
/// multiplies by `factor` (rounded to float for single precision).
void set_scale_callback(cufftHandle h, cufftType type, double factor, bool on_load = false);

}  // namespace dfft::detail
