// SPDX-License-Identifier: MIT
// cuFFT store callbacks that multiply each element by the plan's normalisation as cuFFT writes
// it, so that a direction's last FFT applies 1/N without a pass of its own over the output.
// Compiled at build time to LTO-IR (cmake/cuda.cmake) and handed to cufftXtSetJITCallback, which
// links them into cuFFT's kernels. `info` is not a pointer: it carries the factor's double bits
// (cuFFT passes it through untouched), so that a plan needs no device memory for it.
#include <cufftXt.h>

__device__ double dfft_factor(void* info) {
  return __longlong_as_double(static_cast<long long>(reinterpret_cast<unsigned long long>(info)));
}

__device__ void dfft_scale_store_r(void* out, unsigned long long i, cufftReal v, void* info, void*) {
  static_cast<cufftReal*>(out)[i] = v * static_cast<float>(dfft_factor(info));
}

__device__ void dfft_scale_store_d(void* out, unsigned long long i, cufftDoubleReal v, void* info, void*) {
  static_cast<cufftDoubleReal*>(out)[i] = v * dfft_factor(info);
}

__device__ void dfft_scale_store_c(void* out, unsigned long long i, cufftComplex v, void* info, void*) {
  const float f = static_cast<float>(dfft_factor(info));
  static_cast<cufftComplex*>(out)[i] = make_cuComplex(v.x * f, v.y * f);
}

__device__ void dfft_scale_store_z(void* out, unsigned long long i, cufftDoubleComplex v, void* info, void*) {
  const double f = dfft_factor(info);
  static_cast<cufftDoubleComplex*>(out)[i] = make_cuDoubleComplex(v.x * f, v.y * f);
}
