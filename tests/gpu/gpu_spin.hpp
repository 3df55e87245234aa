// SPDX-License-Identifier: MIT
#pragma once

#include <cuda_runtime.h>

namespace dfft_gpu {
/// Queues on `s` a kernel that runs until *device_flag (mapped host memory) is not 0.
cudaError_t launch_spin(const volatile int* device_flag, cudaStream_t s);
}  // namespace dfft_gpu
