// SPDX-License-Identifier: MIT
// Helpers of the GPU-only suite (what exists only on GPUs; the suites shared with the cpu backend
// run their cuda instances from tests/features, mpi, overlap, codec): is there a GPU (and why
// not), collective assertions, tolerances. The binary runs with --backend=cuda (support/backend.hpp).
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <string>

#include "dfft/dfft.hpp"
#include "support/backend.hpp"
#include "support/test_util.hpp"

namespace dfft_gpu {

/// Empty when every rank sees a GPU; otherwise the reason (the same on every rank).
inline const std::string& no_gpu_reason() { return dfft_test::backend_unavailable(); }

/// Free device memory of this rank's GPU (0 when the query fails; the error is cleared).
inline std::size_t free_device_bytes() {
  std::size_t f = 0, t = 0;
  if (cudaMemGetInfo(&f, &t) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return f;
}

/// Skips the test, with the reason, on machines without a GPU (main skips every test then
/// already; this keeps a test honest when run from another main).
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!dfft_test::on_cuda() || !no_gpu_reason().empty()) GTEST_SKIP() << "no GPU: " << no_gpu_reason();
  }
};

// Rank queries, collective reductions and tolerances: the MPI suite's (tests/support).
using dfft_test::all_ranks;
using dfft_test::lap_tol;
using dfft_test::max_over_ranks;
using dfft_test::ref_tol;
using dfft_test::world_rank;
using dfft_test::world_size;

/// Runs f on every rank; returns how many ranks threw a dfft::Error and this rank's message.
/// Unlike dfft_test::run_collective it lets every other exception through, so that a CUDA or
/// library failure fails the test instead of being counted as "no dfft::Error".
struct Outcome {
  int ranks_with_error = 0;
  std::string what;
};
inline Outcome run_collective(const std::function<void()>& f) {
  Outcome o;
  int mine = 0;
  try {
    f();
  } catch (const dfft::Error& e) {
    mine = 1;
    o.what = e.what();
  }
  MPI_Allreduce(&mine, &o.ranks_with_error, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return o;
}

}  // namespace dfft_gpu
