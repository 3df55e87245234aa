// SPDX-License-Identifier: MIT
// The backend switch of the test binaries (support/backend.hpp). CUDA calls are made only in
// binaries built with the CUDA backend (DFFT_TEST_HAS_CUDA); elsewhere `--backend=cuda` runs
// nothing and says why.
#include "support/backend.hpp"

#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>

#if DFFT_TEST_HAS_CUDA
#include <cuda_runtime.h>
#endif

namespace dfft_test {

namespace {

dfft::Backend g_backend = dfft::Backend::cpu;
std::string g_unavailable;
int g_device = -1;

#if DFFT_TEST_HAS_CUDA
void check(cudaError_t e, const char* call) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(call) + ": " + cudaGetErrorString(e));
}

// Why this rank cannot run the cuda backend (empty: it can); picks this rank's GPU.
std::string probe_cuda() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) return std::string("no CUDA device: cudaGetDeviceCount failed (") + cudaGetErrorString(e) + ")";
  if (n == 0) return "no CUDA device: cudaGetDeviceCount returned 0";
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int local = 0;
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  g_device = local % n;
  return "";
}
#else
std::string probe_cuda() { return "this build has no CUDA backend (DFFT_CUDA off or no CUDA toolkit)"; }
#endif

}  // namespace

dfft::Backend backend() { return g_backend; }
const std::string& backend_unavailable() { return g_unavailable; }
int test_device() { return g_device; }

void select_backend(int* argc, char** argv) {
  const char* flag = "--backend=";
  int kept = 0;
  for (int i = 0; i < *argc; ++i) {
    if (std::strncmp(argv[i], flag, std::strlen(flag)) == 0) g_backend = dfft::parse_backend(argv[i] + std::strlen(flag));
    else argv[kept++] = argv[i];
  }
  *argc = kept;
  if (g_backend != dfft::Backend::cuda) return;
  setenv("NCCL_NVLS_ENABLE", "0", 0);  // NVLink multicast stays off on shared test machines
  const std::string mine = probe_cuda();
  int ok = mine.empty() ? 1 : 0, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all) g_unavailable = mine.empty() ? "another rank sees no CUDA device" : mine;
}

void* backend_alloc(std::size_t bytes) {
#if DFFT_TEST_HAS_CUDA
  if (on_cuda()) {
    void* p = nullptr;
    check(cudaSetDevice(g_device), "cudaSetDevice");
    check(cudaMalloc(&p, bytes), "cudaMalloc");
    return p;
  }
#endif
  void* p = std::malloc(bytes);
  if (!p) throw std::runtime_error("malloc failed");
  return p;
}

void backend_free(void* p) {
#if DFFT_TEST_HAS_CUDA
  if (on_cuda()) {
    cudaFree(p);
    return;
  }
#endif
  std::free(p);
}

void backend_upload(void* dst, const void* host_src, std::size_t bytes) {
#if DFFT_TEST_HAS_CUDA
  if (on_cuda()) return check(cudaMemcpy(dst, host_src, bytes, cudaMemcpyHostToDevice), "cudaMemcpy (upload)");
#endif
  std::memcpy(dst, host_src, bytes);
}

void backend_download(void* host_dst, const void* src, std::size_t bytes) {
#if DFFT_TEST_HAS_CUDA
  if (on_cuda()) return check(cudaMemcpy(host_dst, src, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy (download)");
#endif
  std::memcpy(host_dst, src, bytes);
}

}  // namespace dfft_test
