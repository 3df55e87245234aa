// SPDX-License-Identifier: MIT
// The automatic choice (src/tune/automatic.cpp) on made-up machines: which methods the facts
// rule out, that explicit fields are kept, and that the built-in constants order the methods
// the way the stored GPU and CPU measurements do (docs/results/gpu-multi.md, cpu-fftw.md).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "dfft/model.hpp"
#include "transport/methods.hpp"
#include "tune/automatic.hpp"

namespace {

using dfft::Backend;
using dfft::Decomposition;
using dfft::Method;
using dfft::Options;
using dfft::detail::AutoChoice;
using dfft::detail::choose_automatic;
using dfft::detail::MachineFacts;

MachineFacts gpus(int ranks, bool shared, bool ipc, bool nccl, bool aware, std::vector<int> node = {}) {
  MachineFacts f;
  f.backend = Backend::cuda;
  f.ranks = ranks;
  f.node = node.empty() ? std::vector<int>(static_cast<std::size_t>(ranks), 0) : node;
  f.shared_gpu = shared;
  f.ipc = ipc;
  f.ipc_in_node = ipc || f.nodes() > 1;
  f.nccl = nccl && !shared;
  f.cuda_aware = aware;
  return f;
}

MachineFacts cpus(int ranks) {
  MachineFacts f;
  f.ranks = ranks;
  f.node.assign(static_cast<std::size_t>(ranks), 0);
  return f;
}

AutoChoice choose(const MachineFacts& f, std::int64_t n, const Options& o = {}, bool dbl = false) {
  const auto cal = dfft::model::Calibration::builtin(f.backend, f.ranks, f.shared_gpu, f.cuda_aware);
  Options opt = o;
  opt.backend = f.backend;
  return choose_automatic(f, {n, n, n}, opt, dbl, cal);
}

bool staged_on_host(Method m) {
  return dfft::detail::method_info(m).buffers != dfft::detail::MethodBuffers::device &&
         m != Method::per_peer;
}

TEST(Automatic, NothingAutomaticKeepsTheOptions) {
  Options o;
  o.decomposition = Decomposition::pencil;
  o.variant = dfft::Variant::Realigned;
  o.methods = {Method::p2p_sync};
  o.chunks = 2;
  o.overlap = 1;
  const auto r = choose(cpus(4), 32, o);
  EXPECT_FALSE(r.made);
  EXPECT_EQ(r.chosen.methods, o.methods);
  EXPECT_EQ(r.chosen.decomposition, Decomposition::pencil);
}

TEST(Automatic, EveryFieldSettled) {
  for (int ranks : {1, 2, 3, 4}) {
    const auto r = choose(cpus(ranks), 24);
    ASSERT_TRUE(r.made);
    EXPECT_NE(r.chosen.decomposition, Decomposition::automatic);
    EXPECT_NE(r.chosen.variant, dfft::Variant::automatic);
    EXPECT_FALSE(r.chosen.methods.empty());
    EXPECT_GE(r.chosen.chunks, 1);
    EXPECT_EQ(r.chosen.overlap, 1);
    EXPECT_FALSE(dfft::detail::has_automatic(r.chosen)) << ranks;
  }
}

// Host staging lost 5-56x to cuda-ipc and NCCL on 2 and 4 GPUs: never chosen where they run.
TEST(Automatic, GpusNeverStagedOnHostWhereDeviceMethodsRun) {
  // Few rank counts: the model walks every rank's path (slow under the sanitizers).
  for (int ranks : {2, 4})
    for (std::int64_t n : {64, 1024})
      for (bool dbl : {false, true})
        for (auto [ipc, nccl] : {std::pair{true, true}, std::pair{true, false}, std::pair{false, true}}) {
          const auto r = choose(gpus(ranks, false, ipc, nccl, false), n, {}, dbl);
          ASSERT_FALSE(r.ranked.empty());
          for (Method m : r.chosen.methods)
            EXPECT_FALSE(staged_on_host(m)) << ranks << " ranks, " << n << "^3: " << to_string(m);
        }
}

TEST(Automatic, OneNodeOfPeerGpusTakesCudaIpc) {
  for (int ranks : {2, 4})
    for (std::int64_t n : {256, 512, 1024}) {
      const auto r = choose(gpus(ranks, false, true, true, false), n);
      EXPECT_EQ(r.chosen.methods, std::vector<Method>{Method::cuda_ipc}) << ranks << " GPUs, " << n << "^3";
      // A slab where the array has the planes: pencils exchange twice (docs/results/gpu-multi.md).
      EXPECT_NE(r.chosen.decomposition, Decomposition::pencil);
    }
}

TEST(Automatic, TiesAreTheLeadingCandidatesWithinTheModelsResolution) {
  for (int ranks : {2, 4})
    for (std::int64_t n : {12, 64, 256}) {
      const auto r = choose(cpus(ranks), n, {}, true);
      ASSERT_FALSE(r.ranked.empty());
      ASSERT_GE(r.tied, 1);
      ASSERT_LE(r.tied, static_cast<int>(r.ranked.size()));
      double best = r.ranked.front().predicted;
      for (const auto& c : r.ranked) best = std::min(best, c.predicted);
      for (int i = 0; i < static_cast<int>(r.ranked.size()); ++i) {
        const auto& c = r.ranked[static_cast<std::size_t>(i)];
        const double limit = best * (1 + dfft::detail::kModelTie);
        if (i < r.tied) {
          EXPECT_LE(c.predicted, limit) << c.label;
        } else {
          EXPECT_GT(c.predicted, limit) << c.label;
        }
        if (i > 0 && i < r.tied) {
          EXPECT_LT(r.ranked[static_cast<std::size_t>(i) - 1].order, c.order) << c.label;
        }
        if (i > r.tied) {
          EXPECT_LE(r.ranked[static_cast<std::size_t>(i) - 1].predicted, c.predicted) << c.label;
        }
      }
    }
}

TEST(Automatic, SharedGpuRulesOutNccl) {
  const auto r = choose(gpus(2, true, true, true, false), 256);
  for (const auto& c : r.ranked)
    for (Method m : c.options.methods) EXPECT_NE(m, Method::nccl);
  EXPECT_THAT(r.ruled_out, testing::Contains(testing::HasSubstr("nccl: two ranks share a GPU")));
  EXPECT_EQ(r.chosen.methods, std::vector<Method>{Method::cuda_ipc});
}

TEST(Automatic, SeveralNodesTakeNcclOrPerPeer) {
  const auto r = choose(gpus(4, false, false, true, false, {0, 0, 1, 1}), 512);
  ASSERT_EQ(r.chosen.methods.size(), 1u);
  EXPECT_THAT(r.chosen.methods[0], testing::AnyOf(Method::nccl, Method::per_peer));
}

TEST(Automatic, NoDeviceMethodLeavesTheHostStagedOnes) {
  // Ranks sharing a GPU without IPC events: neither nccl nor cuda-ipc, so MPI it is.
  const auto r = choose(gpus(2, true, false, false, false), 128);
  ASSERT_FALSE(r.ranked.empty());
  EXPECT_TRUE(staged_on_host(r.chosen.methods[0]));
}

TEST(Automatic, CpuPrefersDatatypeMethods) {
  for (int ranks : {2, 4})
    for (std::int64_t n : {64, 256}) {
      const auto r = choose(cpus(ranks), n, {}, true);
      ASSERT_EQ(r.chosen.methods.size(), 1u);
      EXPECT_THAT(r.chosen.methods[0], testing::AnyOf(Method::a2a_type, Method::p2p_type))
          << ranks << " ranks, " << n << "^3";
    }
}

TEST(Automatic, SlabRunsOutOfPlanesPencilTakesOver) {
  // 4 planes on 8 ranks: no slab can cut them; a pencil grid can.
  const auto r = choose(cpus(8), 4, {}, true);
  EXPECT_EQ(r.chosen.decomposition, Decomposition::pencil);
}

TEST(Automatic, ExplicitFieldsWin) {
  Options o;
  o.grid = {2, 2};  // implies a pencil
  auto r = choose(cpus(4), 32, o);
  EXPECT_EQ(r.chosen.decomposition, Decomposition::pencil);
  EXPECT_EQ(r.chosen.grid, (std::vector<int>{2, 2}));
  Options m;
  m.methods = {Method::a2a_sync};  // host staging on a GPU, asked for: kept
  r = choose(gpus(2, false, true, true, false), 256, m);
  EXPECT_EQ(r.chosen.methods, std::vector<Method>{Method::a2a_sync});
  Options d;
  d.decomposition = Decomposition::slab_1d2d;
  r = choose(gpus(2, false, true, true, false), 256, d);
  EXPECT_EQ(r.chosen.decomposition, Decomposition::slab_1d2d);
  EXPECT_EQ(r.chosen.methods, std::vector<Method>{Method::cuda_ipc});
}

// A one-exchange pencil grid is built as the model ranked it: 1 x 3 splits other axes than 3 x 1
// (the planner's ordering), so handing it back to the planner would build a candidate the model
// predicted slower. Constants (not a machine's) under which 1 x 3 wins on 3 ranks: FFTs of the
// contiguous axis slow (a slab's 2-D block pays them twice), all-to-alls of 3 ranks slow.
TEST(Automatic, OneExchangePencilKeepsTheRankedGrid) {
  dfft::model::Calibration cal;
  cal.ranks = 3;
  cal.measured = true;
  cal.pingpong = {2, 1e-6, 1e8};
  cal.alltoall = {{3, 1e-6, 1e8}, {2, 1e-7, 1e12}};
  cal.fft_contiguous[0] = 1e8;
  cal.fft_middle[0] = cal.fft_strided[0] = 4e9;
  cal.fft_contiguous[1] = 2e8;
  cal.fft_middle[1] = cal.fft_strided[1] = 8e9;
  cal.pack_rate = 1.2e10;
  const auto r = choose_automatic(cpus(3), {32, 30, 28}, Options{}, true, cal);
  ASSERT_FALSE(r.ranked.empty());
  EXPECT_EQ(r.chosen.decomposition, Decomposition::pencil) << r.describe();
  EXPECT_EQ(r.chosen.grid, (std::vector<int>{1, 3})) << r.describe();
  EXPECT_EQ(r.chosen.grid, r.ranked.front().options.grid) << r.describe();
}

TEST(Automatic, DescribeNamesTheTopThree) {
  const auto r = choose(gpus(2, false, true, true, false), 256);
  const auto text = r.describe();
  EXPECT_THAT(text, testing::HasSubstr("automatic choice: "));
  EXPECT_THAT(text, testing::HasSubstr("  1. "));
  EXPECT_THAT(text, testing::HasSubstr("  3. "));
  EXPECT_THAT(text, testing::HasSubstr("predicted"));
}

// A pencil grid of one factor on 4 ranks: the model predicts no candidate, and the plan is built
// from the fixed defaults. describe() says so and does not also credit the model with the choice.
TEST(Automatic, DescribeWithoutPredictionsCreditsNoModel) {
  Options o;
  o.backend = Backend::cpu;
  o.decomposition = Decomposition::pencil;
  o.grid = {4};
  const auto f = cpus(4);
  const auto r = dfft::detail::choose_automatic(f, {16, 12, 10}, o, true,
                                                dfft::model::Calibration::builtin(f.backend, 4, false, false));
  ASSERT_TRUE(r.made);
  ASSERT_TRUE(r.ranked.empty()) << r.describe();
  EXPECT_EQ(r.chosen.decomposition, Decomposition::pencil);
  const auto text = r.describe();
  EXPECT_THAT(text, testing::HasSubstr("no candidate could be predicted"));
  EXPECT_THAT(text, testing::Not(testing::HasSubstr("predicted by the model"))) << text;
}


// Overlap and chunks are the model's too. Its pipeline terms against the stored measurements
// (docs/results/overlap.md, gpu-multi.md, cpu-fftw.md).
AutoChoice choose_with(const MachineFacts& f, std::int64_t n, int cores, const Options& o = {}, bool dbl = false) {
  auto cal = dfft::model::Calibration::builtin(f.backend, f.ranks, f.shared_gpu, f.cuda_aware);
  cal.cores = cores;
  Options opt = o;
  opt.backend = f.backend;
  return choose_automatic(f, {n, n, n}, opt, dbl, cal);
}

// One core per rank: the communication thread would share the FFT's core (overlapped plans were
// 0.95-1.58x the plain ones), so no slices, and describe() says why.
TEST(Automatic, OneCorePerRankTakesNoSlices) {
  for (int ranks : {2, 4})
    for (std::int64_t n : {64, 256}) {
      const auto r = choose_with(cpus(ranks), n, 1, {}, true);
      EXPECT_EQ(r.chosen.overlap, 1) << r.describe();
      EXPECT_THAT(r.describe(), testing::HasSubstr("overlap 1: predicted"));
      EXPECT_THAT(r.describe(), testing::HasSubstr("one core per rank"));
    }
}

// A second core for the communication thread (the FFT on one thread): the slices hide the
// shorter of FFT and exchange, as with two cores per rank on the 16-core host (0.85-0.96x of the
// plain plan in most rows).
TEST(Automatic, ASpareCoreTakesSlicesWhereTheyHide) {
  Options o;
  o.threads = 1;
  const auto r = choose_with(cpus(4), 256, 2, o, true);
  EXPECT_EQ(r.chosen.overlap, 4) << r.describe();
  EXPECT_THAT(r.describe(), testing::HasSubstr("overlap 4: predicted"));
  // An MPI without MPI_THREAD_SERIALIZED cannot run the communication thread: no slices.
  auto single = cpus(4);
  single.mpi_threads = false;
  const auto s = choose_with(single, 256, 2, o, true);
  EXPECT_EQ(s.chosen.overlap, 1) << s.describe();
  EXPECT_THAT(s.describe(), testing::HasSubstr("MPI_THREAD_SERIALIZED"));
  // The same plan predicted without slices is slower than with them.
  const auto& best = r.ranked.front();
  Options plain = best.options;
  plain.overlap = 1;
  const auto cal = dfft::model::Calibration::builtin(Backend::cpu, 4, false, false);
  auto cal2 = cal;
  cal2.cores = 2;
  const double with = dfft::model::predict(cal2, {256, 256, 256}, best.options, 4, true).total.total();
  const double without = dfft::model::predict(cal2, {256, 256, 256}, plain, 4, true).total.total();
  EXPECT_LT(with, without);
  // Every thread of the rank on the FFT: the communication thread takes one of the two cores.
  o.threads = 2;
  const double halved = dfft::model::predict(cal2, {256, 256, 256}, [&] {
                          Options x = best.options;
                          x.threads = 2;
                          return x;
                        }(), 4, true).total.fft;
  EXPECT_GT(halved, dfft::model::predict(cal2, {256, 256, 256}, best.options, 4, true).total.fft);
}

// Two GPUs with cuda-ipc: 4 slices lost to the plain plan at 512^3 and won at 1024^3 (0.87-0.91x,
// docs/results/overlap.md); ranks sharing a GPU gained nothing (2.2-3.4x at K = 4).
TEST(Automatic, GpuSlicesWhereTheyWereMeasuredToWin) {
  EXPECT_EQ(choose(gpus(2, false, true, true, false), 512).chosen.overlap, 1);
  const auto big = choose(gpus(2, false, true, true, false), 1024);
  EXPECT_EQ(big.chosen.overlap, 4) << big.describe();
  EXPECT_EQ(big.chosen.decomposition, Decomposition::slab_2d1d) << big.describe();
  for (std::int64_t n : {512, 1024}) {
    const auto shared = choose(gpus(2, true, true, false, false), n);
    EXPECT_EQ(shared.chosen.overlap, 1) << shared.describe();
    EXPECT_THAT(shared.describe(), testing::HasSubstr("share a GPU"));
  }
}

// Chunks: on GPUs NCCL's chunks pipeline pack, transfer and unpack (226-244 -> 299-300 GB/s with
// 4 chunks at 1024^3); tiny blocks only pay the extra messages. On the CPU 1-32 chunks were
// within the runs' spread on 16 ranks, so the extra messages decide: one chunk.
TEST(Automatic, ChunksWhereThePipelineHides) {
  Options nccl;
  nccl.methods = {Method::nccl};
  EXPECT_EQ(choose(gpus(2, false, false, true, false), 1024, nccl).chosen.chunks, 4);
  const auto tiny = choose(gpus(2, false, false, true, false), 8, nccl);
  EXPECT_EQ(tiny.chosen.chunks, 1) << tiny.describe();
  EXPECT_THAT(tiny.describe(), testing::HasSubstr("chunks 1: predicted"));
  Options pipelined;
  pipelined.methods = {Method::p2p_pipelined};
  EXPECT_EQ(choose_with(cpus(4), 256, 1, pipelined, true).chosen.chunks, 1);
  // What the caller set stays.
  pipelined.chunks = 3;
  pipelined.overlap = 2;
  const auto kept = choose_with(cpus(4), 256, 1, pipelined, true);
  EXPECT_EQ(kept.chosen.chunks, 3);
  EXPECT_EQ(kept.chosen.overlap, 2);
  EXPECT_TRUE(kept.pipelines.empty());
}

}  // namespace
