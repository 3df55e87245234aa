// SPDX-License-Identifier: MIT
// Overlap as only the GPU has it (the overlap suite of every backend is tests/overlap): with
// DFFT_OVERLAP_QUEUE=1, cuda-ipc and nccl queue every slice's exchange on the device
// (Transport::enqueue) and the communication thread never waits for the GPU; and the
// device-direct methods on a size larger than the CPU suite can afford. Overlapped plans equal
// plain ones to rounding (overlap/overlap_util.hpp).
#include <cstdlib>

#include "gpu_util.hpp"
#include "overlap/overlap_util.hpp"

namespace dfft_gpu {
namespace {

using dfft::Decomposition;
using dfft::Method;
using dfft::Transform;
using dfft::Variant;
using dfft_test::compare_overlap;
using dfft_test::OverlapCase;
using Shape = std::vector<std::int64_t>;

class GpuOverlap : public GpuTest {};

TEST_F(GpuOverlap, LargerSizeSlabAndPencil) {
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::pencil})
    for (auto m : {Method::nccl, Method::cuda_ipc})
      compare_overlap<float, float>({dec, Variant::Default, Transform::r2c, false, m}, Shape{96, 80, 72}, 4, 1);
}

TEST_F(GpuOverlap, QueuedSlicesEqualPlain) {
  ASSERT_EQ(setenv("DFFT_OVERLAP_QUEUE", "1", 1), 0);
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil})
    for (auto m : {Method::nccl, Method::cuda_ipc})
      for (int slices : {2, 3, 64}) {
        compare_overlap<double, double>({dec, Variant::Default, Transform::r2c, true, m}, Shape{17, 12, 10}, slices, 1);
        compare_overlap<float, float>({dec, Variant::Default, Transform::r2c, false, m}, Shape{96, 80, 72}, slices, 1);
      }
  unsetenv("DFFT_OVERLAP_QUEUE");
}

}  // namespace
}  // namespace dfft_gpu
