// SPDX-License-Identifier: MIT
// The normalisation folded into a cuFFT plan's stores (src/backend/cuda/scale_callbacks.cu).
#pragma once

#include <cufft.h>

namespace dfft::detail {

/// Whether cuFFT links store callbacks in this process: decided once, by planning a small
/// transform with one (a cuFFT or driver without JIT LTO fails there), unless
/// DFFT_CUFFT_CALLBACKS=0 turns them off. The calling thread's GPU must be current.
bool store_callbacks_available();

/// Attaches the scaling store callback for `type`'s output to `h`, after cufftCreate and before
/// cufftMakePlan*; the callback multiplies by `factor` (rounded to float for single precision).
void set_scale_callback(cufftHandle h, cufftType type, double factor);

}  // namespace dfft::detail
