// SPDX-License-Identifier: MIT
// GoogleTest main of the GPU suite: MPI with MPI_THREAD_MULTIPLE (p2p-streams sends from a
// second thread), output on rank 0 only (other ranks print their own failures), and the one
// decision whether a GPU is there at all.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

#include "gpu_util.hpp"

namespace dfft_gpu {

namespace {
std::string g_reason;

std::string probe() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) return std::string("no CUDA device: cudaGetDeviceCount failed (") + cudaGetErrorString(e) + ")";
  if (n == 0) return "no CUDA device: cudaGetDeviceCount returned 0";
  return "";
}
}  // namespace

const std::string& no_gpu_reason() { return g_reason; }

}  // namespace dfft_gpu

namespace {

class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: failure\n%s\n", rank_, r.file_name() ? r.file_name() : "?",
                 r.line_number(), r.summary());
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  setenv("NCCL_NVLS_ENABLE", "0", 0);
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // The same verdict on every rank, so that all ranks skip or none does.
  std::string mine = dfft_gpu::probe();
  int ok = mine.empty() ? 1 : 0, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all) dfft_gpu::g_reason = mine.empty() ? "another rank sees no CUDA device" : mine;
  if (rank == 0 && !all) std::printf("GPU tests skipped: %s\n", dfft_gpu::g_reason.c_str());
  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (rank != 0) {
    delete listeners.Release(listeners.default_result_printer());
    delete listeners.Release(listeners.default_xml_generator());
    listeners.Append(new RankFailurePrinter(rank));
  }
  int rc = RUN_ALL_TESTS();
  int worst = rc;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
