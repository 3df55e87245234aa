// SPDX-License-Identifier: MIT
// The roots table of the register DFTs of dfft's own kernels (column_fft::root), in constant
// memory: one copy per translation unit that includes it (each kernel file).
#pragma once

namespace dfft::detail::cuda {
namespace {

// cos(2 pi j / 64) for j in [0, 16]: the roots of the register DFTs (column_fft::root).
__constant__ double c_quadrant[17] = {
    1.0,
    0.99518472667219688624,
    0.98078528040323044913,
    0.95694033573220886494,
    0.92387953251128675613,
    0.88192126434835502971,
    0.83146961230254523708,
    0.77301045336273696081,
    0.70710678118654752440,
    0.63439328416364549822,
    0.55557023301960222474,
    0.47139673682599764856,
    0.38268343236508977173,
    0.29028467725446236764,
    0.19509032201612826785,
    0.098017140329560601994,
    0.0};

struct Quadrant {
  __device__ double operator[](int j) const { return c_quadrant[j]; }
};

}  // namespace
}  // namespace dfft::detail::cuda
