// SPDX-License-Identifier: MIT
// Stream-ordered execution on the GPU: user workspaces (the CPU suite's checks, on device
// memory), two plans on two user streams running at once from two threads, and executions that
// never wait for the whole device: a kernel spinning on another stream until the host releases
// it would hold up any device-wide or legacy-default-stream synchronisation inside dfft.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "gpu_spin.hpp"
#include "gpu_util.hpp"
#include "support/workspace_check.hpp"

namespace dfft_gpu {

namespace {

using dfft_test::cd;
using dfft_test::PlanArray;
using dfft_test::Shape;

#define GPU_OK(call) ASSERT_EQ((call), cudaSuccess) << #call

/// A stream of the caller's, destroyed at the end of the test.
struct UserStream {
  explicit UserStream(unsigned flags = cudaStreamNonBlocking) { ok = cudaStreamCreateWithFlags(&s, flags) == cudaSuccess; }
  ~UserStream() {
    if (ok) cudaStreamDestroy(s);
  }
  cudaStream_t s = nullptr;
  bool ok = false;
};

class GpuUserWorkspace : public GpuTest, public ::testing::WithParamInterface<dfft_test::WorkspaceCase> {};

TEST_P(GpuUserWorkspace, SameResultsLessMemoryBadWorkspacesRefused) {
  UserStream stream;
  ASSERT_TRUE(stream.ok);
  dfft::Options o = dfft_test::workspace_case_options(GetParam(), dfft::Backend::cuda);
  o.stream = stream.s;
  dfft_test::check_user_workspace_any(o);
}

INSTANTIATE_TEST_SUITE_P(Gpu, GpuUserWorkspace, dfft_test::workspace_cases(), dfft_test::workspace_case_name);

/// One plan on its own user stream with its own workspace, input uploaded, and the serial
/// transform its output must equal.
struct StreamedPlan {
  StreamedPlan(const Shape& shape, dfft::Transform t, dfft::Decomposition d, cudaStream_t s, dfft::Method m,
               int seed)
      : shape_(shape), r2c(t == dfft::Transform::r2c), plan(MPI_COMM_WORLD, shape, options(t, d, s, m)),
        in_count(static_cast<std::size_t>(plan.input_count())),
        in(plan, in_count * (r2c ? sizeof(double) : sizeof(cd))),
        out(plan, static_cast<std::size_t>(plan.output_count()) * sizeof(cd)),
        work(plan, static_cast<std::size_t>(plan.workspace_bytes())),
        want(dfft_test::serial_forward(shape, dfft_test::global_signal(shape, seed, r2c), r2c)) {
    if (r2c) in.upload(dfft_test::make_local<double>(plan.input_layout(), shape, seed));
    else in.upload(dfft_test::make_local<cd>(plan.input_layout(), shape, seed));
    work.fill_garbage();
  }
  static dfft::Options options(dfft::Transform t, dfft::Decomposition d, cudaStream_t s, dfft::Method m) {
    dfft::Options o;
    o.backend = dfft::Backend::cuda;
    o.transform = t;
    o.decomposition = d;
    o.methods = {m};
    o.stream = s;
    o.user_workspace = true;
    // dfft's own staging: a CUDA-aware MPI may copy on the legacy default stream, which would
    // wait for the spinning kernel without any fault of dfft's.
    o.staging = dfft::Staging::host;
    return o;
  }
  void forward() const {
    const dfft::Workspace w{work.get(), plan.workspace_bytes()};
    if (r2c) plan.forward(in.as<double>(), out.as<cd>(), w);
    else plan.forward(in.as<cd>(), out.as<cd>(), w);
  }
  /// Largest relative error of the last forward against the serial transform (collective).
  double error() const {
    const auto n = static_cast<std::size_t>(plan.output_count());
    const auto got = dfft_test::gather_padded(plan.output_layout(), plan.spectral_shape(), out.download<cd>(n).data());
    if (!dfft_test::all_finite(got)) return 1;
    return dfft_test::rel_max(got, want);
  }

  Shape shape_;
  bool r2c;
  dfft::Plan<double> plan;
  std::size_t in_count;
  PlanArray in, out, work;
  std::vector<cd> want;
};

class GpuStreams : public GpuTest {};

TEST_F(GpuStreams, TwoPlansOnTwoStreamsAtOnce) {
  UserStream s1, s2;
  ASSERT_TRUE(s1.ok && s2.ok);
  const StreamedPlan a({17, 12, 10}, dfft::Transform::r2c, dfft::Decomposition::slab_2d1d, s1.s,
                       dfft::Method::a2a_sync, 1);
  const StreamedPlan b({15, 9, 11}, dfft::Transform::c2c, dfft::Decomposition::pencil, s2.s,
                       dfft::Method::p2p_sync, 2);
  // Both threads start together and execute their plan several times; MPI_THREAD_MULTIPLE
  // (tests/support/mpi_gtest_main.cpp) lets their exchanges run on the plans' own communicators at the same time.
  std::atomic<int> ready{0};
  std::string failure[2];
  auto loop = [&](const StreamedPlan& p, int i) {
    ++ready;
    while (ready.load() < 2) std::this_thread::yield();
    try {
      for (int k = 0; k < 5; ++k) p.forward();
    } catch (const std::exception& e) {
      failure[i] = e.what();
    }
  };
  std::thread ta(loop, std::cref(a), 0), tb(loop, std::cref(b), 1);
  ta.join();
  tb.join();
  EXPECT_EQ(failure[0], "");
  EXPECT_EQ(failure[1], "");
  EXPECT_LT(max_over_ranks(a.error()), ref_tol<double>());
  EXPECT_LT(max_over_ranks(b.error()), ref_tol<double>());
}

// A kernel on a blocking stream spins until the host sets a flag; forward() on a non-blocking
// user stream must finish without it. cudaDeviceSynchronize, work on (or a wait for) the legacy
// default stream, or a synchronous copy inside dfft would wait for the kernel, that is until the
// watchdog releases it after kRelease: such a forward() takes that long and fails.
TEST_F(GpuStreams, ExecutionNeverWaitsForTheDevice) {
  constexpr auto kRelease = std::chrono::seconds(5);
  int* flag = nullptr;
  GPU_OK(cudaHostAlloc(reinterpret_cast<void**>(&flag), sizeof(int), cudaHostAllocMapped));
  std::unique_ptr<int, void (*)(int*)> free_flag(flag, [](int* p) { cudaFreeHost(p); });
  int* device_flag = nullptr;
  GPU_OK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_flag), flag, 0));
  UserStream user, blocker(cudaStreamDefault);
  ASSERT_TRUE(user.ok && blocker.ok);
  for (dfft::Method m : {dfft::Method::a2a_sync, dfft::Method::p2p_streams, dfft::Method::nccl,
                         dfft::Method::cuda_ipc}) {
    SCOPED_TRACE(to_string(m));
    std::unique_ptr<StreamedPlan> p;
    const auto made = run_collective(
        [&] { p = std::make_unique<StreamedPlan>(Shape{17, 12, 10}, dfft::Transform::r2c, dfft::Decomposition::pencil,
                                                 user.s, m, 4); });
    if (made.ranks_with_error > 0) continue;  // a method this build or machine does not have
    p->forward();  // first execution: anything done once is done now
    MPI_Barrier(MPI_COMM_WORLD);
    *static_cast<volatile int*>(flag) = 0;
    GPU_OK(launch_spin(device_flag, blocker.s));
    std::atomic<bool> returned{false};
    std::thread watchdog([&] {
      const auto until = std::chrono::steady_clock::now() + kRelease;
      while (!returned.load() && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      *static_cast<volatile int*>(flag) = 1;
    });
    const auto t0 = std::chrono::steady_clock::now();
    std::string failure;
    try {
      p->forward();
    } catch (const std::exception& e) {
      failure = e.what();
    }
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    returned = true;
    watchdog.join();
    GPU_OK(cudaStreamSynchronize(blocker.s));
    EXPECT_EQ(failure, "");
    EXPECT_LT(max_over_ranks(took), 0.8 * std::chrono::duration<double>(kRelease).count())
        << "forward() waited for a kernel on another stream: a device-wide or default-stream synchronisation";
    EXPECT_LT(max_over_ranks(p->error()), ref_tol<double>());
  }
}

}  // namespace

}  // namespace dfft_gpu
