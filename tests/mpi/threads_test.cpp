// SPDX-License-Identifier: MIT
// Threads inside a rank (Options::threads): threaded FFTW plans and the copy/codec team give the
// serial reference's results on odd sizes, slab and pencil, r2c and c2c, with and without a
// codec and beside the overlap executor's communication thread.
#include <fftw3.h>
#include <sched.h>
#include <unistd.h>

#include "dfft/option_fields.hpp"

#include "support/sweep.hpp"

namespace dfft_test {
namespace {

struct ThreadCase {
  Decomposition dec;
  Transform tr;
  int threads;
  dfft::Codec codec;
  int overlap;
};

void PrintTo(const ThreadCase& c, std::ostream* os) {
  *os << to_string(c.dec) << " " << to_string(c.tr) << " threads=" << c.threads << " "
      << to_string(c.codec) << " overlap=" << c.overlap;
}

std::vector<ThreadCase> thread_cases() {
  std::vector<ThreadCase> v;
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::pencil})
    for (auto tr : {Transform::r2c, Transform::c2c})
      for (int t : {2, 3}) {
        v.push_back({dec, tr, t, dfft::Codec::none, 1});
        v.push_back({dec, tr, t, dfft::Codec::fp32, 1});
      }
  v.push_back({Decomposition::pencil, Transform::c2c, 3, dfft::Codec::bf16, 2});
  v.push_back({Decomposition::slab_2d1d, Transform::r2c, 2, dfft::Codec::none, 3});
  return v;
}

bool overlap_supported() {
  int p = MPI_THREAD_SINGLE;
  MPI_Query_thread(&p);
  return p >= MPI_THREAD_SERIALIZED || world_size() == 1;
}

class Threads : public ::testing::TestWithParam<ThreadCase> {};

// 17x12x10 is the odd size of the other suites; 33x26x21 gives blocks of several kMinPartBytes
// on 3 ranks, so the team splits the exchanges' packs, unpacks and codecs there too.
TEST_P(Threads, MatchesSerialReference) {
  const auto& c = GetParam();
  if (c.overlap > 1 && !overlap_supported()) GTEST_SKIP() << "MPI without MPI_THREAD_SERIALIZED";
  dfft::Options o;
  o.decomposition = c.dec;
  o.transform = c.tr;
  o.threads = c.threads;
  o.codec = c.codec;
  o.overlap = c.overlap;
  o.methods = {Method::p2p_sync};
  // Wire rounding: a few unit round-offs per exchange (docs/compression.md).
  const double tol = c.codec == dfft::Codec::none ? 1e-12 : 8 * dfft::unit_roundoff(c.codec);
  for (const Shape& shape : {Shape{17, 12, 10}, Shape{33, 26, 21}}) {
    dfft::Plan<double> plan(MPI_COMM_WORLD, shape, o);
    EXPECT_LE(max_over_ranks(dfft::validate::reference_error(plan, MPI_COMM_WORLD)), tol)
        << shape[0] << "x" << shape[1] << "x" << shape[2];
    EXPECT_LE(max_over_ranks(dfft::validate::roundtrip_error(plan, MPI_COMM_WORLD)), tol);
  }
}

INSTANTIATE_TEST_SUITE_P(Opt, Threads, ::testing::ValuesIn(thread_cases()),
                         [](const ::testing::TestParamInfo<ThreadCase>& i) {
                           std::string s = to_string(i.param.dec) + "_" + to_string(i.param.tr) + "_t" +
                                           std::to_string(i.param.threads) + "_" +
                                           to_string(i.param.codec) + "_o" + std::to_string(i.param.overlap);
                           for (auto& ch : s)
                             if (ch == '-') ch = '_';
                           return s;
                         });

// Float plans (8-byte elements, fftwf's threads) and threads = 0 (the affinity mask).
TEST(ThreadsFloat, AffinityThreadsMatchReference) {
  dfft::Options o;
  o.decomposition = Decomposition::pencil;
  o.transform = Transform::c2c;
  o.threads = 0;
  dfft::Plan<float> plan(MPI_COMM_WORLD, {17, 12, 10}, o);
  EXPECT_LE(max_over_ranks(dfft::validate::reference_error(plan, MPI_COMM_WORLD)), 1e-5);
}

// A plan without options takes the rank's share of its affinity mask (threads = 0 is the
// default): a rank bound to one core runs one thread and says so; whatever the mask, never more
// threads than it holds, and the transform stays right.
TEST(ThreadsDefault, OneCoreMaskRunsOneThread) {
  EXPECT_EQ(dfft::Options{}.threads, 0);
  cpu_set_t saved, one;
  ASSERT_EQ(sched_getaffinity(0, sizeof saved, &saved), 0);
  {
    dfft::Plan<double> plan(MPI_COMM_WORLD, {17, 12, 10});
    EXPECT_GE(plan.threads(), 1);
    EXPECT_LE(plan.threads(), CPU_COUNT(&saved));
    EXPECT_NE(plan.describe().find("threads 0: " + std::to_string(plan.threads()) + " per rank"), std::string::npos)
        << plan.describe();
    EXPECT_EQ(dfft::resolved_options(plan).threads, plan.threads());
  }
  int first = 0;
  while (!CPU_ISSET(first, &saved)) ++first;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  {
    dfft::Plan<double> plan(MPI_COMM_WORLD, {17, 12, 10});
    EXPECT_EQ(plan.threads(), 1);
    if (sysconf(_SC_NPROCESSORS_ONLN) > 1) {
      EXPECT_NE(plan.describe().find("the 1 core of the rank's affinity mask"), std::string::npos) << plan.describe();
    }
    EXPECT_LE(max_over_ranks(dfft::validate::reference_error(plan, MPI_COMM_WORLD)), 1e-12);
  }
  ASSERT_EQ(sched_setaffinity(0, sizeof saved, &saved), 0);
}

// Another library in the process setting FFTW's thread count before anyone initialised FFTW's
// threads (mpi4py-fft does so on every plan): FFTW then initialises them itself after a
// fftw_cleanup(), which invalidates the plans made before. dfft's plans must survive it. Run alone
// (ctest threads_foreign): in a process where an earlier test used threads it cannot fail. The
// size matters: a 17x12x10 plan happened to survive FFTW's cleanup, a 32x30x28 one does not.
TEST(ThreadsForeign, PlansSurviveAnotherLibrarySettingFftwThreads) {
  dfft::Options o;
  o.threads = 1;  // dfft itself needs no threaded FFTW: the other library initialises them first
  o.effort = dfft::Effort::estimate;
  o.fftw_wisdom = false;
  dfft::Plan<double> plan(MPI_COMM_WORLD, {32, 30, 28}, o);
  dfft::Plan<float> fplan(MPI_COMM_WORLD, {32, 30, 28}, o);
  fftw_plan_with_nthreads(2);  // what the other library does before each of its plans
  fftwf_plan_with_nthreads(2);
  std::vector<double> r(64);
  std::vector<float> rf(64);
  std::vector<fftw_complex> c(33);
  std::vector<fftwf_complex> cf(33);
  fftw_destroy_plan(fftw_plan_dft_r2c_1d(64, r.data(), c.data(), FFTW_ESTIMATE));
  fftwf_destroy_plan(fftwf_plan_dft_r2c_1d(64, rf.data(), cf.data(), FFTW_ESTIMATE));
  EXPECT_LE(max_over_ranks(dfft::validate::reference_error(plan, MPI_COMM_WORLD)), 1e-12);
  EXPECT_LE(max_over_ranks(dfft::validate::reference_error(fplan, MPI_COMM_WORLD)), 1e-5);
}

TEST(ThreadsRefused, NegativeIsRefusedOnEveryRank) {
  dfft::Options o;
  o.threads = -1;
  auto r = run_collective([&] { dfft::Plan<double> p(MPI_COMM_WORLD, {8, 6, 5}, o); });
  EXPECT_EQ(r.ranks_with_error, world_size());
  EXPECT_THAT(r.what, ::testing::HasSubstr("threads must be at least 1"));
}

}  // namespace
}  // namespace dfft_test
