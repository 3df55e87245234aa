// SPDX-License-Identifier: MIT
// GPU backend behaviour beyond the sweep: rank-to-GPU binding, staging choices (CUDA-aware MPI
// or its clear refusal), split messages, unsupported features, the single-GPU reference, and
// device-memory leaks over 1000 plan create/execute/destroy cycles.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <mpi.h>

#if __has_include(<mpi-ext.h>)  // after mpi.h, which it needs
#include <mpi-ext.h>
#endif

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "dfft/reference.hpp"
#include "dfft/validate.hpp"
#include "gpu_util.hpp"

namespace dfft_gpu {

namespace {

using dfft::Method;

bool mpi_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

dfft::Options cuda_options(dfft::Decomposition dec, Method m) {
  dfft::Options o;
  o.decomposition = dec;
  o.methods = {m};
  o.backend = dfft::Backend::cuda;
  return o;
}

template <class T>
void expect_accurate(const std::vector<std::int64_t>& shape, const dfft::Options& o) {
  dfft::Plan<T> plan(MPI_COMM_WORLD, shape, o);
  EXPECT_LE(max_over_ranks(dfft::validate::reference_error(plan, MPI_COMM_WORLD)), ref_tol<T>())
      << plan.describe();
  EXPECT_LE(max_over_ranks(dfft::validate::roundtrip_error(plan, MPI_COMM_WORLD)), ref_tol<T>());
}

class GpuMisc : public GpuTest {};

TEST_F(GpuMisc, BindsLocalRankModuloDevices) {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int local = 0, count = 0;
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  dfft::Plan<float> plan(MPI_COMM_WORLD, {16, 12, 10}, cuda_options(dfft::Decomposition::slab_2d1d, Method::a2a_sync));
  EXPECT_EQ(plan.device(), local % count);
  auto o = cuda_options(dfft::Decomposition::slab_2d1d, Method::a2a_sync);
  o.device = count - 1;
  dfft::Plan<float> forced(MPI_COMM_WORLD, {16, 12, 10}, o);
  EXPECT_EQ(forced.device(), count - 1);
  o.device = count;
  const Outcome bad = run_collective([&] { dfft::Plan<float> p(MPI_COMM_WORLD, {16, 12, 10}, o); });
  EXPECT_EQ(bad.ranks_with_error, world_size());
  EXPECT_NE(bad.what.find("requested"), std::string::npos) << bad.what;
}

TEST_F(GpuMisc, CudaAwareRunsOrRefusesClearly) {
  for (Method m : {Method::a2a_sync, Method::a2a_type, Method::p2p_sync, Method::p2p_type, Method::p2p_streams,
                   Method::p2p_pipelined}) {
    auto o = cuda_options(dfft::Decomposition::pencil, m);
    o.staging = dfft::Staging::cuda_aware;
    if (mpi_cuda_aware()) {
      expect_accurate<double>({17, 12, 10}, o);
      continue;
    }
    const Outcome r = run_collective([&] { dfft::Plan<double> p(MPI_COMM_WORLD, {17, 12, 10}, o); });
    EXPECT_EQ(r.ranks_with_error, world_size()) << to_string(m);
    EXPECT_NE(r.what.find("cuda-aware"), std::string::npos) << r.what;
    if (world_rank() == 0 && m == Method::a2a_sync)
      std::printf("    (this MPI is not CUDA-aware; cuda-aware staging refused: %s)\n", r.what.c_str());
  }
}

TEST_F(GpuMisc, HostStagingExplicit) {
  for (Method m : {Method::a2a_sync, Method::p2p_type, Method::p2p_pipelined}) {
    auto o = cuda_options(dfft::Decomposition::slab_1d2d, m);
    o.staging = dfft::Staging::host;
    SCOPED_TRACE(to_string(m));
    expect_accurate<float>({12, 10, 9}, o);
  }
}

TEST_F(GpuMisc, SplitsLargeMessages) {
  for (Method m : {Method::a2a_sync, Method::a2a_type, Method::p2p_sync, Method::p2p_type, Method::p2p_streams,
                   Method::p2p_pipelined}) {
    auto o = cuda_options(dfft::Decomposition::slab_2d1d, m);
    o.max_message_bytes = 4096;
    SCOPED_TRACE(to_string(m));
    expect_accurate<double>({33, 20, 18}, o);
  }
}

// p2p-pipelined: chunk counts 1, 3 and more than rows, 1, 2 and n steps in flight, on both
// stagings (cuda-aware only where MPI has it), and a codec split by a small message limit.
TEST_F(GpuMisc, PipelinedChunksAndSteps) {
  std::vector<dfft::Staging> stagings{dfft::Staging::host};
  if (mpi_cuda_aware()) stagings.push_back(dfft::Staging::cuda_aware);
  for (auto staging : stagings)
    for (int chunks : {1, 3, 64})
      for (int in_flight : {1, 2, world_size()}) {
        auto o = cuda_options(dfft::Decomposition::pencil, Method::p2p_pipelined);
        o.staging = staging;
        o.chunks = chunks;
        o.in_flight = in_flight;
        SCOPED_TRACE(to_string(staging) + " chunks " + std::to_string(chunks) + " in_flight " +
                     std::to_string(in_flight));
        expect_accurate<double>({17, 12, 10}, o);
        o.transform = dfft::Transform::c2c;
        expect_accurate<float>({12, 10, 9}, o);
      }
  auto o = cuda_options(dfft::Decomposition::slab_2d1d, Method::p2p_pipelined);
  o.codec = dfft::Codec::bf16;
  o.max_message_bytes = 700;
  dfft::Plan<double> plan(MPI_COMM_WORLD, {17, 12, 10}, o);
  // bf16 (u = 2^-8), one exchange: tests/codec/codec_test.cpp's bound 4 u sqrt(1/3) + 1e-13.
  const double bound = 4 * std::ldexp(1.0, -8) * std::sqrt(1.0 / 3.0) + 1e-13;
  EXPECT_LE(max_over_ranks(dfft::validate::reference_error(plan, MPI_COMM_WORLD)), bound);
}

// nccl cut into chunks (pack / transfer / unpack pipelined on three streams): 1, 3 and more
// chunks than rows, every decomposition and variant, with and without a codec. The 1 MiB
// minimum chunk is lifted so these small sizes are cut at all.
TEST_F(GpuMisc, NcclChunks) {
  setenv("DFFT_NCCL_MIN_CHUNK", "0", 1);
  for (auto dec : {dfft::Decomposition::slab_2d1d, dfft::Decomposition::slab_1d2d, dfft::Decomposition::pencil})
    for (auto var : {dfft::Variant::Default, dfft::Variant::Realigned})
      for (int chunks : {1, 3, 64}) {
        auto o = cuda_options(dec, Method::nccl);
        o.variant = var;
        o.chunks = chunks;
        const Outcome made = run_collective([&] { dfft::Plan<double> p(MPI_COMM_WORLD, {17, 12, 10}, o); });
        if (made.ranks_with_error) {  // more ranks than GPUs: refused on every rank
          EXPECT_EQ(made.ranks_with_error, world_size()) << made.what;
          EXPECT_NE(made.what.find("share a GPU"), std::string::npos) << made.what;
          unsetenv("DFFT_NCCL_MIN_CHUNK");
          return dfft_test::skip_shared_gpu(made.what);
        }
        SCOPED_TRACE(to_string(dec) + " " + to_string(var) + " chunks " + std::to_string(chunks));
        expect_accurate<double>({17, 12, 10}, o);
        o.transform = dfft::Transform::c2c;
        expect_accurate<float>({12, 10, 9}, o);
        o.transform = dfft::Transform::r2c;
        o.codec = dfft::Codec::fp32;
        dfft::Plan<double> coded(MPI_COMM_WORLD, {17, 12, 10}, o);
        // fp32 on the wire: a few units of 2^-24 per exchange (docs/compression.md).
        EXPECT_LE(max_over_ranks(dfft::validate::reference_error(coded, MPI_COMM_WORLD)), 1e-6);
        EXPECT_LE(max_over_ranks(dfft::validate::roundtrip_error(coded, MPI_COMM_WORLD)), 1e-6);
      }
  unsetenv("DFFT_NCCL_MIN_CHUNK");
}

// nccl with tapered chunks (DFFT_CHUNK_TAPER=1: first and last chunk half-sized), on sizes
// whose cut axis is long enough to taper (17, 96) and one too short for it (chunks 64).
TEST_F(GpuMisc, NcclTaperedChunks) {
  setenv("DFFT_NCCL_MIN_CHUNK", "0", 1);
  setenv("DFFT_CHUNK_TAPER", "1", 1);
  for (auto dec : {dfft::Decomposition::slab_2d1d, dfft::Decomposition::slab_1d2d, dfft::Decomposition::pencil})
    for (int chunks : {3, 4, 64}) {
      auto o = cuda_options(dec, Method::nccl);
      o.chunks = chunks;
      const Outcome made = run_collective([&] { dfft::Plan<double> p(MPI_COMM_WORLD, {17, 12, 10}, o); });
      if (made.ranks_with_error) {  // more ranks than GPUs: refused on every rank
        EXPECT_EQ(made.ranks_with_error, world_size()) << made.what;
        break;
      }
      SCOPED_TRACE(to_string(dec) + " chunks " + std::to_string(chunks));
      expect_accurate<double>({17, 12, 10}, o);
      expect_accurate<float>({96, 80, 72}, o);
      o.codec = dfft::Codec::fp32;
      dfft::Plan<double> coded(MPI_COMM_WORLD, {96, 80, 72}, o);
      EXPECT_LE(max_over_ranks(dfft::validate::reference_error(coded, MPI_COMM_WORLD)), 1e-6);
      EXPECT_LE(max_over_ranks(dfft::validate::roundtrip_error(coded, MPI_COMM_WORLD)), 1e-6);
    }
  unsetenv("DFFT_CHUNK_TAPER");
  unsetenv("DFFT_NCCL_MIN_CHUNK");
}

// Compressed exchanges through the host-staged methods and onesided (chunked) on blocks whose
// coded size is not a multiple of 16 bytes: the GPU codec needs each coded block 16-byte aligned
// in its staging buffer (3 ranks sharing a GPU with bf16 stopped on "misaligned address" and
// left the other ranks waiting, until staging offsets were aligned: CodedStaging unit test).
TEST_F(GpuMisc, CodecsOnOddBlocksEveryStagedMethod) {
  for (auto m : {Method::a2a_sync, Method::p2p_sync, Method::p2p_pipelined, Method::onesided})
    for (auto codec : {dfft::Codec::fp32, dfft::Codec::fp16, dfft::Codec::bf16}) {
      const double u = codec == dfft::Codec::fp32 ? std::ldexp(1.0, -24)
                       : codec == dfft::Codec::fp16 ? std::ldexp(1.0, -11)
                                                    : std::ldexp(1.0, -8);
      for (auto dec : {dfft::Decomposition::pencil, dfft::Decomposition::slab_2d1d}) {
        auto o = cuda_options(dec, m);
        o.codec = codec;
        o.chunks = 3;
        o.transform = dec == dfft::Decomposition::pencil ? dfft::Transform::c2c : dfft::Transform::r2c;
        const std::vector<std::int64_t> shape = dec == dfft::Decomposition::pencil
                                                    ? std::vector<std::int64_t>{8, 3, 13}
                                                    : std::vector<std::int64_t>{9, 7, 5};
        SCOPED_TRACE(dfft::to_string(m) + " " + dfft::to_string(codec) + " " + dfft::to_string(dec));
        dfft::Plan<double> plan(MPI_COMM_WORLD, shape, o);
        EXPECT_LE(max_over_ranks(dfft::validate::reference_error(plan, MPI_COMM_WORLD)), 8 * u * std::sqrt(2.0));
        EXPECT_LE(max_over_ranks(dfft::validate::roundtrip_error(plan, MPI_COMM_WORLD)), 16 * u * std::sqrt(2.0));
      }
    }
}

TEST_F(GpuMisc, PencilExplicitGrids) {
  if (world_size() != 2 && world_size() != 4) return;
  for (auto grid : {std::vector<int>{1, world_size()}, std::vector<int>{world_size(), 1}}) {
    auto o = cuda_options(dfft::Decomposition::pencil, Method::p2p_streams);
    o.grid = grid;
    o.variant = dfft::Variant::Default;
    expect_accurate<double>({17, 12, 10}, o);
    o.variant = dfft::Variant::Realigned;
    expect_accurate<float>({12, 10, 9}, o);
  }
}

// Options::stream: the plan queues its work on the caller's stream (results still exact) and
// leaves the stream alive when it is destroyed.
TEST_F(GpuMisc, UserStream) {
  auto o = cuda_options(dfft::Decomposition::pencil, Method::p2p_sync);
  const int gpu = dfft::Plan<double>(MPI_COMM_WORLD, {12, 10, 9}, o).device();
  ASSERT_EQ(cudaSetDevice(gpu), cudaSuccess);
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  o.stream = s;
  expect_accurate<double>({17, 12, 10}, o);
  EXPECT_EQ(cudaStreamQuery(s), cudaSuccess) << "the plan destroyed or left work on the caller's stream";
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
}

// Plan::memory() on the GPU: work buffers in device memory; a limit below it is refused on every
// rank with both numbers.
TEST_F(GpuMisc, DeviceMemoryAndLimit) {
  auto o = cuda_options(dfft::Decomposition::slab_2d1d, Method::a2a_sync);
  const auto m = dfft::Plan<double>(MPI_COMM_WORLD, {17, 12, 10}, o).memory();
  EXPECT_GT(m.device_bytes, 0);
  o.memory_limit_bytes = m.device_bytes - 1;
  int refused = 0;
  try {
    dfft::Plan<double> p(MPI_COMM_WORLD, {17, 12, 10}, o);
  } catch (const dfft::OutOfMemory& e) {
    refused = std::string(e.what()).find("bytes are available") != std::string::npos;
  }
  EXPECT_EQ(max_over_ranks(1.0 - refused), 0.0) << "some rank was not refused";
}

TEST_F(GpuMisc, SingleGpuReference) {
  const auto r = dfft::single_device_reference(dfft::Backend::cuda, {64, 64, 64}, dfft::Transform::r2c,
                                               false, true, 1, 5);
  ASSERT_TRUE(r.ran) << r.why;
  EXPECT_GT(r.median, 0.0);
  EXPECT_LE(r.min, r.median);
  EXPECT_LE(r.median, r.max);
}

bool ranks_share_gpus() {
  int gpus = 0;
  return cudaGetDeviceCount(&gpus) != cudaSuccess || world_size() > gpus;
}

// One create/execute/destroy cycle of a small plan; methods and decompositions rotate.
void one_cycle(int i, Method m) {
  const dfft::Decomposition decs[] = {dfft::Decomposition::slab_2d1d, dfft::Decomposition::slab_1d2d,
                                      dfft::Decomposition::pencil};
  auto o = cuda_options(decs[i % 3], m);
  o.variant = i % 2 ? dfft::Variant::Realigned : dfft::Variant::Default;
  dfft::Plan<float> plan(MPI_COMM_WORLD, {32, 24, 20}, o);
  void* in = plan.allocate(static_cast<std::size_t>(plan.input_count()) * sizeof(float));
  void* out = plan.allocate(static_cast<std::size_t>(plan.output_count()) * sizeof(std::complex<float>));
  cudaMemset(in, 0, static_cast<std::size_t>(plan.input_count()) * sizeof(float));
  plan.forward(static_cast<float*>(in), static_cast<std::complex<float>*>(out));
  plan.inverse(static_cast<std::complex<float>*>(out), static_cast<float*>(in));
  plan.deallocate(in);
  plan.deallocate(out);
}

// Plan::memory() against what the plan really takes from the GPU (cudaMemGetInfo before and after
// it is made), slab and pencil, within 5%. A first plan of each kind loads cuFFT's kernels and
// the libraries' one-time buffers, which are the process's, not the plan's. Sizes large enough
// that the allocator's 2 MiB granularity is noise. Needs one rank per GPU, like the leak check.
TEST_F(GpuMisc, DeviceMemoryMatchesMeasured) {
  if (ranks_share_gpus()) GTEST_SKIP() << "ranks share a GPU: cudaMemGetInfo would count the others' plans";
  for (auto dec : {dfft::Decomposition::slab_2d1d, dfft::Decomposition::pencil})
    for (Method m : {Method::a2a_sync, Method::p2p_pipelined}) {
      const auto o = cuda_options(dec, m);
      const std::vector<std::int64_t> shape{192, 200, 160};
      { dfft::Plan<double> warm(MPI_COMM_WORLD, shape, o); }
      cudaDeviceSynchronize();
      MPI_Barrier(MPI_COMM_WORLD);
      const std::size_t before = free_device_bytes();
      dfft::Plan<double> plan(MPI_COMM_WORLD, shape, o);
      cudaDeviceSynchronize();
      const double used = static_cast<double>(before) - static_cast<double>(free_device_bytes());
      const double said = static_cast<double>(plan.memory().device_bytes);
      if (world_rank() == 0)
        std::printf("    %s %s: memory() %.0f, measured %.0f device bytes\n", dfft::to_string(dec).c_str(),
                    dfft::to_string(m).c_str(), said, used);
      EXPECT_GT(used, 0.0);
      EXPECT_LE(max_over_ranks(std::abs(said - used) / std::max(used, 1.0)), 0.05)
          << dfft::to_string(dec) << " " << dfft::to_string(m);
    }
}

// Needs one rank per GPU (other ranks' allocations would show in cudaMemGetInfo); the 4-rank
// ctest run filters it out.
TEST_F(GpuMisc, NoLeakOver1000Cycles) {
  if (ranks_share_gpus()) GTEST_SKIP() << "ranks share a GPU: cudaMemGetInfo would count the others' plans";
  const Method mpi[] = {Method::a2a_sync, Method::a2a_type, Method::p2p_sync, Method::p2p_type, Method::p2p_streams,
                        Method::p2p_pipelined};
  constexpr int nm = static_cast<int>(sizeof(mpi) / sizeof(mpi[0]));
  for (int i = 0; i < nm; ++i) one_cycle(i, mpi[i]);  // warm-up: libraries' one-time allocations
  one_cycle(0, Method::nccl);
  cudaDeviceSynchronize();
  MPI_Barrier(MPI_COMM_WORLD);
  const std::size_t before = free_device_bytes();
  for (int i = 0; i < 1000; ++i) one_cycle(i, mpi[i % nm]);
  for (int i = 0; i < 20; ++i) one_cycle(i, Method::nccl);
  cudaDeviceSynchronize();
  MPI_Barrier(MPI_COMM_WORLD);
  const std::size_t after = free_device_bytes();
  const double lost_mib = (static_cast<double>(before) - static_cast<double>(after)) / (1 << 20);
  if (world_rank() == 0) std::printf("    device memory free before %zu, after %zu bytes\n", before, after);
  EXPECT_LE(max_over_ranks(lost_mib), 16.0) << "device memory lost over 1020 cycles (MiB)";
}

}  // namespace

}  // namespace dfft_gpu
