// SPDX-License-Identifier: MIT
// Return-code checks for CUDA runtime, cuFFT and NCCL calls: a failure becomes a dfft::Error
// naming the call, the library's code and the world rank.
#pragma once

#include <cuda_runtime.h>
#include <cufft.h>

#include "util/check.hpp"

namespace dfft::detail {

[[noreturn]] void throw_cuda(const char* call, cudaError_t code);
[[noreturn]] void throw_cufft(const char* call, cufftResult code);
const char* cufft_result_name(cufftResult code);
/// A failed allocation of `bytes` (cudaMalloc, cudaMallocHost): the message adds the size in
/// GiB, the rank, the GPU and its free/total memory, which is what the user needs to act on.
[[noreturn]] void throw_cuda_alloc(const char* call, std::size_t bytes, int gpu, cudaError_t code);

inline void check_cuda(cudaError_t code, const char* call) {
  if (code != cudaSuccess) throw_cuda(call, code);
}
inline void check_cufft(cufftResult code, const char* call) {
  if (code != CUFFT_SUCCESS) throw_cufft(call, code);
}

}  // namespace dfft::detail

#define DFFT_CUDA(call) ::dfft::detail::check_cuda((call), #call)
#define DFFT_CUFFT(call) ::dfft::detail::check_cufft((call), #call)
