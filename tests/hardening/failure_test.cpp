// SPDX-License-Identifier: MIT
// Failure paths (docs/hardening.md): non-finite input propagates through every exchange method without
// hanging, and an MPI error inside an exchange reaches the user as a dfft::Error naming the call,
// the code and the rank, on every rank, after which new plans still work.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "dfft/dfft.hpp"
#include "mpi_counters.hpp"

namespace {

using dfft::Method;
using cd = std::complex<double>;

const std::vector<Method> kMethods{Method::a2a_sync, Method::a2a_type, Method::p2p_sync,
                                   Method::p2p_type, Method::onesided, Method::p2p_pipelined};

int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int min_over_ranks(int v) {
  int out = 0;
  MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return out;
}

dfft::Options options(Method m, dfft::Decomposition d) {
  dfft::Options o;
  o.methods = {m};
  o.decomposition = d;
  return o;
}

std::string method_name(const ::testing::TestParamInfo<Method>& p) {
  std::string s = dfft::to_string(p.param);
  for (auto& c : s) c = c == '-' ? '_' : c;
  return s;
}

class NonFinite : public ::testing::TestWithParam<Method> {};

// One NaN (or Inf) anywhere in the input reaches every output element through the sums of the
// DFT, so every element on every rank must come out non-finite; the inverse then runs too.
void check_non_finite(Method m, dfft::Decomposition d, double bad) {
  dfft::Options o = options(m, d);
  o.transform = dfft::Transform::c2c;
  dfft::Plan<double> plan(MPI_COMM_WORLD, {12, 10, 9}, o);
  std::vector<cd> in(plan.input_count(), cd{1.0, 0.5}), out(plan.output_count()),
      back(plan.input_count());
  // c2c so that Inf*0 terms cannot cancel into finite values of one symmetric half only.
  if (rank() == 0 && !in.empty()) in[0] = {bad, 0.0};
  plan.forward(in.data(), out.data());
  int all_bad = 1;
  for (const auto& v : out) all_bad &= !(std::isfinite(v.real()) && std::isfinite(v.imag()));
  plan.inverse(out.data(), back.data());
  for (const auto& v : back) all_bad &= !(std::isfinite(v.real()) && std::isfinite(v.imag()));
  EXPECT_EQ(min_over_ranks(all_bad), 1) << "finite values survived " << bad;
}

TEST_P(NonFinite, PropagatesWithoutHanging) {
  for (auto d : {dfft::Decomposition::slab_2d1d, dfft::Decomposition::pencil}) {
    SCOPED_TRACE(dfft::to_string(GetParam()) + " " + dfft::to_string(d));
    check_non_finite(GetParam(), d, std::numeric_limits<double>::quiet_NaN());
    check_non_finite(GetParam(), d, std::numeric_limits<double>::infinity());
  }
}

INSTANTIATE_TEST_SUITE_P(Hardening, NonFinite, ::testing::ValuesIn(kMethods), method_name);

const char* injected_call(Method m) {
  switch (m) {
    case Method::a2a_sync: return "MPI_Alltoallv";
    case Method::a2a_type: return "MPI_Alltoallw";
    case Method::onesided: return "MPI_Put";
    default: return "MPI_Isend";
  }
}

class InjectedFault : public ::testing::TestWithParam<Method> {};

// The fault is injected on every rank at the same call: a failure on one rank only would leave
// the others inside the exchange (a collective, or waits for messages never sent), which MPI
// cannot interrupt; docs/hardening.md says what happens then.
TEST_P(InjectedFault, ReachesTheUserOnEveryRank) {
  const Method m = GetParam();
  const char* call = injected_call(m);
  const int code = MPI_ERR_OTHER;
  int threw = 0;
  {
    dfft::Plan<double> plan(MPI_COMM_WORLD, {12, 10, 9}, options(m, dfft::Decomposition::pencil));
    std::vector<double> in(plan.input_count(), 1.0);
    std::vector<cd> out(plan.output_count());
    hardening::inject_failure(call, code);
    try {
      plan.forward(in.data(), out.data());
    } catch (const dfft::Error& e) {
      threw = 1;
      EXPECT_THAT(e.call(), ::testing::HasSubstr(call));
      EXPECT_EQ(e.code(), code);
      EXPECT_EQ(e.rank(), rank());
      const std::string what = e.what();
      EXPECT_THAT(what, ::testing::HasSubstr(call));
      EXPECT_THAT(what, ::testing::HasSubstr("code " + std::to_string(code)));
      EXPECT_THAT(what, ::testing::HasSubstr("on rank " + std::to_string(rank())));
      if (rank() == 0) std::printf("[failure] %s: %s\n", dfft::to_string(m).c_str(), what.c_str());
    }
    EXPECT_TRUE(hardening::injected_and_disarm()) << call << " was never called";
  }  // the failed plan is destroyed here, collectively
  EXPECT_EQ(min_over_ranks(threw), 1) << "some rank did not see the error";
  // The library is still usable: a new plan of the same method runs and round-trips.
  dfft::Options o = options(m, dfft::Decomposition::pencil);
  dfft::Plan<double> plan(MPI_COMM_WORLD, {12, 10, 9}, o);
  std::vector<double> in(plan.input_count(), 2.0), back(plan.input_count());
  std::vector<cd> out(plan.output_count());
  plan.forward(in.data(), out.data());
  plan.inverse(out.data(), back.data());
  double err = 0;
  for (std::size_t i = 0; i < in.size(); ++i) err = std::max(err, std::abs(in[i] - back[i]));
  EXPECT_LT(err, 1e-12);
}

INSTANTIATE_TEST_SUITE_P(Hardening, InjectedFault, ::testing::ValuesIn(kMethods), method_name);

// A fault on one rank only: rank 1's exchange call fails, rank 0's does not. Rank 0 then waits
// inside the exchange (in the collective, or for messages rank 1 will never send) and MPI offers
// no way to interrupt that wait, so no rank but the failing one can be told. What this shows:
// the failing rank gets the complete dfft::Error, and the response docs/hardening.md asks of
// applications (MPI_Abort on a dfft::Error from forward/inverse) ends every rank. ctest runs
// each method as its own job (MPI_Abort ends the job): it passes on the printed message and a
// TIMEOUT turns a hang into a failure. Skipped unless DFFT_ONE_RANK_FAULT=1 (set by ctest), so
// that a plain run of the binary is not aborted.
class OneRankFault : public ::testing::TestWithParam<Method> {};

TEST_P(OneRankFault, FailingRankReportsAndAbortEndsTheJob) {
  const char* armed = std::getenv("DFFT_ONE_RANK_FAULT");
  if (!armed || std::string(armed) != "1") GTEST_SKIP() << "set DFFT_ONE_RANK_FAULT=1 (ctest does)";
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) GTEST_SKIP() << "needs 2 ranks";
  const Method m = GetParam();
  dfft::Plan<double> plan(MPI_COMM_WORLD, {12, 10, 9}, options(m, dfft::Decomposition::pencil));
  std::vector<double> in(plan.input_count(), 1.0);
  std::vector<cd> out(plan.output_count());
  plan.forward(in.data(), out.data());  // one good run: connections and windows are set up
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank() == 1) hardening::inject_failure(injected_call(m), MPI_ERR_OTHER);
  const double t0 = MPI_Wtime();
  try {
    plan.forward(in.data(), out.data());
  } catch (const dfft::Error& e) {
    std::fprintf(stderr, "[one-rank-fault] rank %d after %.3f s: %s\n", rank(), MPI_Wtime() - t0,
                 e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  // Only a rank whose exchange did not depend on the failed call gets here; it then waits in
  // the next collective until the abort ends it.
  std::fprintf(stderr, "[one-rank-fault] rank %d: forward returned normally after %.3f s\n", rank(),
               MPI_Wtime() - t0);
  std::fflush(stderr);
  MPI_Barrier(MPI_COMM_WORLD);
  ADD_FAILURE() << "the job was not aborted";
}

INSTANTIATE_TEST_SUITE_P(Hardening, OneRankFault,
                         ::testing::Values(Method::a2a_sync, Method::p2p_sync, Method::onesided),
                         method_name);

}  // namespace
