// SPDX-License-Identifier: MIT
// Single-GPU reference (the thesis' "3D-FFT" row): the whole d-dimensional transform with one
// cuFFT plan on one GPU, timed with CUDA events around each execution.
#include <algorithm>
#include <vector>

#include "backend/cuda/check.hpp"
#include "dfft/reference.hpp"

namespace dfft::detail {

namespace {

struct Resources {
  cufftHandle plan = 0;
  bool have_plan = false;
  void *in = nullptr, *out = nullptr;
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  cudaStream_t s = nullptr;
  ~Resources() {
    if (have_plan) cufftDestroy(plan);
    if (in) cudaFree(in);
    if (out) cudaFree(out);
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    if (s) cudaStreamDestroy(s);
  }
};

}  // namespace

ReferenceTiming cuda_single_device_reference(const std::vector<std::int64_t>& shape, Transform t,
                                             bool is_double, bool forward, int warmup, int reps,
                                             int device) {
  ReferenceTiming r;
  if (shape.size() < 1 || shape.size() > 3) {
    r.why = "cuFFT plans have 1 to 3 dimensions";
    return r;
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();
    r.why = "no CUDA device";
    return r;
  }
  DFFT_CUDA(cudaSetDevice(device < 0 ? 0 : device));
  std::vector<long long> n(shape.begin(), shape.end());
  std::size_t nreal = 1, ncplx = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    nreal *= static_cast<std::size_t>(shape[i]);
    ncplx *= static_cast<std::size_t>(i + 1 == shape.size() && t == Transform::r2c ? shape[i] / 2 + 1 : shape[i]);
  }
  const std::size_t cplx = is_double ? 16 : 8;
  const std::size_t real_b = t == Transform::r2c ? nreal * cplx / 2 : ncplx * cplx;
  const std::size_t in_b = forward ? real_b : ncplx * cplx;
  const std::size_t out_b = forward ? ncplx * cplx : real_b;
  cufftType type = t == Transform::c2c ? (is_double ? CUFFT_Z2Z : CUFFT_C2C)
                   : forward           ? (is_double ? CUFFT_D2Z : CUFFT_R2C)
                                       : (is_double ? CUFFT_Z2D : CUFFT_C2R);
  Resources res;
  std::size_t free_b = 0, total_b = 0;
  DFFT_CUDA(cudaMemGetInfo(&free_b, &total_b));
  if (in_b + out_b > free_b) {
    r.why = "does not fit on one GPU (" + std::to_string(in_b + out_b) + " bytes needed, " +
            std::to_string(free_b) + " free)";
    return r;
  }
  DFFT_CUDA(cudaMalloc(&res.in, in_b));
  DFFT_CUDA(cudaMalloc(&res.out, out_b));
  DFFT_CUDA(cudaStreamCreateWithFlags(&res.s, cudaStreamNonBlocking));
  DFFT_CUDA(cudaMemsetAsync(res.in, 0, in_b, res.s));
  DFFT_CUFFT(cufftCreate(&res.plan));
  res.have_plan = true;
  std::size_t work = 0;
  const cufftResult pr = cufftMakePlanMany64(res.plan, static_cast<int>(n.size()), n.data(), nullptr, 1, 0,
                                             nullptr, 1, 0, type, 1, &work);
  if (pr == CUFFT_ALLOC_FAILED) {
    r.why = "cuFFT work area does not fit on one GPU";
    return r;
  }
  check_cufft(pr, "cufftMakePlanMany64");
  DFFT_CUFFT(cufftSetStream(res.plan, res.s));
  DFFT_CUDA(cudaEventCreate(&res.e0));
  DFFT_CUDA(cudaEventCreate(&res.e1));
  auto exec = [&] {
    switch (type) {
      case CUFFT_R2C: DFFT_CUFFT(cufftExecR2C(res.plan, (cufftReal*)res.in, (cufftComplex*)res.out)); break;
      case CUFFT_C2R: DFFT_CUFFT(cufftExecC2R(res.plan, (cufftComplex*)res.in, (cufftReal*)res.out)); break;
      case CUFFT_D2Z:
        DFFT_CUFFT(cufftExecD2Z(res.plan, (cufftDoubleReal*)res.in, (cufftDoubleComplex*)res.out));
        break;
      case CUFFT_Z2D:
        DFFT_CUFFT(cufftExecZ2D(res.plan, (cufftDoubleComplex*)res.in, (cufftDoubleReal*)res.out));
        break;
      case CUFFT_C2C:
        DFFT_CUFFT(cufftExecC2C(res.plan, (cufftComplex*)res.in, (cufftComplex*)res.out,
                                forward ? CUFFT_FORWARD : CUFFT_INVERSE));
        break;
      case CUFFT_Z2Z:
        DFFT_CUFFT(cufftExecZ2Z(res.plan, (cufftDoubleComplex*)res.in, (cufftDoubleComplex*)res.out,
                                forward ? CUFFT_FORWARD : CUFFT_INVERSE));
        break;
    }
  };
  for (int i = 0; i < warmup; ++i) exec();
  DFFT_CUDA(cudaStreamSynchronize(res.s));
  // Seconds of each of `reps` runs of `f` on the stream (CUDA events), sorted.
  auto times_of = [&](const auto& f) {
    std::vector<double> secs;
    for (int i = 0; i < std::max(1, reps); ++i) {
      DFFT_CUDA(cudaEventRecord(res.e0, res.s));
      f();
      DFFT_CUDA(cudaEventRecord(res.e1, res.s));
      DFFT_CUDA(cudaEventSynchronize(res.e1));
      float ms = 0;
      DFFT_CUDA(cudaEventElapsedTime(&ms, res.e0, res.e1));
      secs.push_back(ms * 1e-3);
    }
    std::sort(secs.begin(), secs.end());
    return secs;
  };
  const std::vector<double> times = times_of(exec);
  // One pass: the smaller array copied into the larger one (read and written once), timed the
  // same way; the transform reads in_b and writes out_b bytes at that rate.
  const std::size_t copy_b = std::min(in_b, out_b);
  const std::vector<double> copies =
      times_of([&] { DFFT_CUDA(cudaMemcpyAsync(res.out, res.in, copy_b, cudaMemcpyDeviceToDevice, res.s)); });
  const double rate = 2.0 * static_cast<double>(copy_b) / copies[copies.size() / 2];  // bytes read + written per s
  r.pass = static_cast<double>(in_b + out_b) / rate;
  r.ran = true;
  r.min = times.front();
  r.max = times.back();
  r.median = times[times.size() / 2];
  return r;
}

}  // namespace dfft::detail
