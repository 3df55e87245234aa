// SPDX-License-Identifier: MIT
// Shared by the one-GPU micro-benchmarks (gpu-pack-bench, gpu-codec-bench).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "backend/cuda/check.hpp"

namespace gpubench {

/// True when a GPU is visible; otherwise says that `tool` measured nothing.
inline bool gpu_present(const char* tool) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) return true;
  std::printf("%s: no GPU, nothing measured\n", tool);
  return false;
}

/// Median over `reps` runs of f() (work queued on s), timed with events, after two untimed
/// runs. f returns false when it could not queue the work: then -1.
template <class F>
double time_ms(cudaStream_t s, int reps, F&& f) {
  cudaEvent_t e0, e1;
  DFFT_CUDA(cudaEventCreate(&e0));
  DFFT_CUDA(cudaEventCreate(&e1));
  std::vector<float> t;
  bool ok = true;
  for (int r = 0; r < reps + 2 && ok; ++r) {
    DFFT_CUDA(cudaEventRecord(e0, s));
    ok = f();
    DFFT_CUDA(cudaEventRecord(e1, s));
    DFFT_CUDA(cudaEventSynchronize(e1));
    float ms = 0;
    DFFT_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    if (r >= 2) t.push_back(ms);
  }
  DFFT_CUDA(cudaEventDestroy(e0));
  DFFT_CUDA(cudaEventDestroy(e1));
  if (!ok || t.empty()) return -1;
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace gpubench
