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

// The same factor applied as cuFFT reads the input (FftDesc::scale_on_load): a kernel linked
// with a load callback may cost less than one linked with a store callback, depending on the
// transform; the planner times both where it can choose.
__device__ cufftReal dfft_scale_load_r(void* in, unsigned long long i, void* info, void*) {
  return static_cast<const cufftReal*>(in)[i] * static_cast<float>(dfft_factor(info));
}

__device__ cufftDoubleReal dfft_scale_load_d(void* in, unsigned long long i, void* info, void*) {
  return static_cast<const cufftDoubleReal*>(in)[i] * dfft_factor(info);
}

__device__ cufftComplex dfft_scale_load_c(void* in, unsigned long long i, void* info, void*) {
  const float f = static_cast<float>(dfft_factor(info));
  const cufftComplex v = static_cast<const cufftComplex*>(in)[i];
  return make_cuComplex(v.x * f, v.y * f);
}

__device__ cufftDoubleComplex dfft_scale_load_z(void* in, unsigned long long i, void* info, void*) {
  const double f = dfft_factor(info);
  const cufftDoubleComplex v = static_cast<const cufftDoubleComplex*>(in)[i];
  return make_cuDoubleComplex(v.x * f, v.y * f);
}
