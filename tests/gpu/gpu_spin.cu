// SPDX-License-Identifier: MIT
// A kernel that keeps its stream busy until the host sets a flag in mapped host memory: work
// that waits for the whole device, or for the legacy default stream, waits for it as well.
#include "gpu_spin.hpp"

namespace dfft_gpu {

namespace {
__global__ void spin_until_set(const volatile int* flag) {
  while (*flag == 0) {
  }
}
}  // namespace

cudaError_t launch_spin(const volatile int* device_flag, cudaStream_t s) {
  spin_until_set<<<1, 1, 0, s>>>(device_flag);
  return cudaGetLastError();
}

}  // namespace dfft_gpu
