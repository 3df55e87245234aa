// SPDX-License-Identifier: MIT
// The backend a test binary runs its suites on. Every suite is written once; the binary is run
// once per backend (`--backend=cpu`, the default, or `--backend=cuda`), so the case lists, names
// and ctest labels are the same for both and ctest can report a backend without a GPU as
// skipped. Arrays handed to a plan live in the backend's memory (host or GPU): DevArray uploads
// a host vector and downloads it back, and the checks run on the host copies.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <algorithm>
#include <cstdio>

#include "support/test_util.hpp"

namespace dfft_test {

/// The backend under test in this run.
dfft::Backend backend();
inline bool on_cuda() { return backend() == dfft::Backend::cuda; }

/// Empty when the backend can run on every rank; otherwise why not (the same on every rank).
const std::string& backend_unavailable();

/// Reads `--backend=NAME` from the command line (removing it) and decides, collectively, whether
/// the backend can run. Called by main after MPI_Init and before the tests are registered.
void select_backend(int* argc, char** argv);

/// The GPU of this rank on the cuda backend (node-local rank modulo visible devices, as the
/// plans choose by default); -1 on the cpu backend.
int test_device();

/// Plan options on the backend under test (and its device).
inline dfft::Options backend_options() {
  dfft::Options o;
  o.backend = backend();
  o.device = test_device();
  // The suites make thousands of small plans: FFTW_MEASURE with its per-node wisdom file (read,
  // then written by one rank after another) took about 60% of their time on 3-4 ranks. The
  // transforms are the same either way; the tests of measure and of the wisdom file set it.
  o.effort = dfft::Effort::estimate;
  return o;
}

/// Memory of the backend under test: host memory on cpu, device memory on cuda. Every call
/// checks its CUDA status and throws std::runtime_error with the call's name on failure.
void* backend_alloc(std::size_t bytes);
void backend_free(void* p);
void backend_upload(void* dst, const void* host_src, std::size_t bytes);
void backend_download(void* host_dst, const void* src, std::size_t bytes);

/// An array in the backend's memory, filled from a host vector (at least one element is
/// allocated, so an empty box still gets a valid pointer).
template <class V>
class DevArray {
 public:
  explicit DevArray(const std::vector<V>& host)
      : n_(host.size()), p_(backend_alloc(std::max<std::size_t>(n_, 1) * sizeof(V))) {
    if (n_) backend_upload(p_, host.data(), n_ * sizeof(V));
  }
  explicit DevArray(std::size_t n) : DevArray(std::vector<V>(n)) {}
  ~DevArray() { backend_free(p_); }
  DevArray(const DevArray&) = delete;
  DevArray& operator=(const DevArray&) = delete;
  V* get() const { return static_cast<V*>(p_); }
  std::size_t size() const { return n_; }
  std::vector<V> host() const {
    std::vector<V> h(n_);
    if (n_) backend_download(h.data(), p_, n_ * sizeof(V));
    return h;
  }

 private:
  std::size_t n_;
  void* p_;
};

/// The first line of the skip message of a test whose method the backend refused because ranks
/// share a GPU (mpi_gtest_main.cpp counts skipped tests by that line).
inline constexpr const char* kSharedGpuSkip = "refused: ranks share a GPU (NCCL needs one GPU per rank)";

/// Marks the running test skipped for ranks sharing a GPU, with the library's refusal `what` on
/// the second line. Returns to the caller, which must stop testing (make_plan returns nullptr).
inline void skip_shared_gpu(const std::string& what) { GTEST_SKIP() << kSharedGpuSkip << "\n" << what; }

/// A plan made on every rank; nullptr on every rank when the backend refused it because ranks
/// share a GPU (NCCL cannot put two ranks of a communicator on one GPU: the refusal itself is
/// checked to reach every rank), and the test is then marked skipped with that reason. Any other
/// refusal fails the test.
template <class T, class... Args>
std::unique_ptr<dfft::Plan<T>> make_plan(const Args&... args) {
  std::unique_ptr<dfft::Plan<T>> p;
  const Outcome o = run_collective([&] { p = std::make_unique<dfft::Plan<T>>(MPI_COMM_WORLD, args...); });
  const bool clean = all_ranks(!o.other_exception);
  EXPECT_TRUE(clean) << "not a dfft::Error: " << o.what;
  if (o.ranks_with_error > 0 && o.what.find("share a GPU") != std::string::npos) {
    EXPECT_EQ(o.ranks_with_error, world_size()) << o.what;
    skip_shared_gpu(o.what);
    return nullptr;
  }
  EXPECT_EQ(o.ranks_with_error, 0) << o.what;
  if (o.ranks_with_error > 0 || !clean) p.reset();
  return p;
}

}  // namespace dfft_test
