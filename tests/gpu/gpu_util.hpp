// Helpers of the GPU suite: is there a GPU (and why not), collective assertions, tolerances.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "dfft/dfft.hpp"

namespace dfft_gpu {

/// Empty when every rank sees a GPU; otherwise the reason (the same on every rank).
const std::string& no_gpu_reason();

/// Skips the test, with the reason, on machines without a GPU.
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!no_gpu_reason().empty()) GTEST_SKIP() << no_gpu_reason();
  }
};

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
inline int world_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}
/// Largest value over all ranks; NaN (a check that did not run) counts as +inf.
inline double max_over_ranks(double v) {
  if (std::isnan(v)) v = std::numeric_limits<double>::infinity();
  double out = v;
  MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return out;
}
inline bool all_ranks(bool v) {
  int in = v ? 1 : 0, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return out == 1;
}

/// Runs f on every rank; returns how many ranks threw a dfft::Error and this rank's message.
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

template <class T>
constexpr double ref_tol() {
  return std::is_same_v<T, double> ? 1e-12 : 1e-5;
}
template <class T>
constexpr double lap_tol() {
  return std::is_same_v<T, double> ? 1e-10 : 1e-4;
}

}  // namespace dfft_gpu
