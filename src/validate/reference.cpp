// SPDX-License-Identifier: MIT
#include "dfft/reference.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "util/check.hpp"

namespace dfft {

namespace detail {
ReferenceTiming cuda_single_device_reference(const std::vector<std::int64_t>& shape, Transform t,
                                             bool is_double, bool forward, int warmup, int reps,
                                             int device);
}

namespace {

template <class F>
ReferenceTiming time_it(F&& run, int warmup, int reps) {
  for (int i = 0; i < warmup; ++i) run();
  std::vector<double> t;
  for (int i = 0; i < std::max(1, reps); ++i) {
    auto t0 = std::chrono::steady_clock::now();
    run();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  ReferenceTiming r;
  r.ran = true;
  r.min = t.front();
  r.max = t.back();
  r.median = t[t.size() / 2];
  return r;
}

template <class R, class C, class P>
ReferenceTiming cpu_reference(const std::vector<int>& n, std::size_t nreal, std::size_t ncplx, Transform t,
                              bool forward, int warmup, int reps, unsigned flags,
                              P (*plan_r2c)(int, const int*, R*, C*, unsigned),
                              P (*plan_c2r)(int, const int*, C*, R*, unsigned),
                              P (*plan_dft)(int, const int*, C*, C*, int, unsigned),
                              void (*exec)(P), void (*destroy)(P), void* (*alloc)(std::size_t),
                              void (*release)(void*)) {
  const std::size_t in_b = (t == Transform::r2c ? nreal * sizeof(R) : ncplx * sizeof(C));
  auto* a = alloc(std::max(in_b, ncplx * sizeof(C)));
  auto* b = alloc(std::max(in_b, ncplx * sizeof(C)));
  if (!a || !b) detail::fail_alloc("fftw_malloc", ENOMEM, static_cast<std::int64_t>(2 * std::max(in_b, ncplx * sizeof(C))), "out of memory for the single-device reference");
  std::fill_n(static_cast<char*>(a), std::max(in_b, ncplx * sizeof(C)), 0);
  const int d = static_cast<int>(n.size());
  P p;
  if (t == Transform::r2c)
    p = forward ? plan_r2c(d, n.data(), static_cast<R*>(a), static_cast<C*>(b), flags)
                : plan_c2r(d, n.data(), static_cast<C*>(a), static_cast<R*>(b), flags);
  else
    p = plan_dft(d, n.data(), static_cast<C*>(a), static_cast<C*>(b),
                 forward ? FFTW_FORWARD : FFTW_BACKWARD, flags);
  if (!p) detail::fail_library(LibraryError::Library::fftw, "fftw_plan_dft", -1, "FFTW could not plan the single-device reference");
  auto r = time_it([&] { exec(p); }, warmup, reps);
  destroy(p);
  release(a);
  release(b);
  return r;
}

}  // namespace

ReferenceTiming single_device_reference(Backend backend, const std::vector<std::int64_t>& shape,
                                        Transform t, bool is_double, bool forward, int warmup,
                                        int reps, Effort effort, int device) {
  if (t == Transform::r2r) {
    ReferenceTiming r;
    r.why = "no single-device DCT/DST transform to compare with (cuFFT has none); time a c2c or r2c plan of the same size beside it";
    return r;
  }
  if (backend == Backend::cuda)
    return detail::cuda_single_device_reference(shape, t, is_double, forward, warmup, reps, device);
  std::vector<int> n(shape.begin(), shape.end());
  std::size_t nreal = 1, ncplx = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    nreal *= static_cast<std::size_t>(shape[i]);
    ncplx *= static_cast<std::size_t>(i + 1 == shape.size() && t == Transform::r2c ? shape[i] / 2 + 1 : shape[i]);
  }
  unsigned flags = effort == Effort::estimate ? FFTW_ESTIMATE : FFTW_MEASURE;
  if (is_double)
    return cpu_reference<double, fftw_complex, fftw_plan>(
        n, nreal, ncplx, t, forward, warmup, reps, flags, fftw_plan_dft_r2c, fftw_plan_dft_c2r,
        fftw_plan_dft, fftw_execute, fftw_destroy_plan, fftw_malloc, fftw_free);
  return cpu_reference<float, fftwf_complex, fftwf_plan>(
      n, nreal, ncplx, t, forward, warmup, reps, flags, fftwf_plan_dft_r2c, fftwf_plan_dft_c2r,
      fftwf_plan_dft, fftwf_execute, fftwf_destroy_plan, fftwf_malloc, fftwf_free);
}

}  // namespace dfft
