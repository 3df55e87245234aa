// SPDX-License-Identifier: MIT
// Concurrent plans (docs/hardening.md): several threads per rank, each making, executing and destroying
// its own plans on its own communicator (MPI_Comm_dup per thread), must get exactly what one
// thread gets alone. Run under ThreadSanitizer by tools/tsan.sh; in the normal suites it checks
// the results. kThreads threads x kRepeats plans per case. Needs MPI_THREAD_MULTIPLE (skipped,
// with the reason, without it).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <complex>
#include <cstdio>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "dfft/dfft.hpp"

namespace {

using dfft::Method;
using cd = std::complex<double>;

constexpr int kThreads = 3;
constexpr int kRepeats = 3;
const std::vector<std::int64_t> kShape{16, 12, 10};

struct Case {
  Method method;
  int overlap;
  dfft::Decomposition decomposition;
  std::string name() const {
    return dfft::to_string(method) + " overlap " + std::to_string(overlap) + " " +
           dfft::to_string(decomposition);
  }
};

const std::vector<Case> kCases{
    {Method::a2a_sync, 1, dfft::Decomposition::slab_2d1d},
    {Method::p2p_sync, 1, dfft::Decomposition::pencil},
    {Method::p2p_pipelined, 1, dfft::Decomposition::pencil},
    {Method::a2a_sync, 2, dfft::Decomposition::slab_2d1d},
    {Method::p2p_sync, 2, dfft::Decomposition::pencil},
};

dfft::Options options(const Case& c) {
  dfft::Options o;
  o.methods = {c.method};
  o.overlap = c.overlap;
  o.decomposition = c.decomposition;
  return o;
}

// Forward then inverse of thread t's input; returns the spectrum followed by the round trip
// (complex, so both compare the same way).
std::vector<cd> run(MPI_Comm comm, const Case& c, int t) {
  dfft::Plan<double> plan(comm, kShape, options(c));
  std::vector<double> in(plan.input_count()), back(plan.input_count());
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<double>((i * (3 + t)) % 13) - 6.0;
  std::vector<cd> out(plan.output_count());
  plan.forward(in.data(), out.data());
  plan.inverse(out.data(), back.data());
  for (double v : back) out.emplace_back(v, 0.0);
  return out;
}

double max_diff(const std::vector<cd>& a, const std::vector<cd>& b) {
  if (a.size() != b.size()) return 1e300;
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

int all_ranks_min(int v) {
  int out = 0;
  MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return out;
}

// p2p-pipelined may still be a placeholder that refuses to plan: that (and only that) skips.
std::string unavailable(const Case& c) {
  int fine = 1;
  std::string why;
  try {
    run(MPI_COMM_WORLD, c, 0);
  } catch (const dfft::Error& e) {
    fine = 0;
    why = e.what();
  }
  if (all_ranks_min(fine)) return "";
  EXPECT_NE(why.find("not implemented"), std::string::npos) << c.name() << ": " << why;
  return why.empty() ? "another rank could not plan" : why;
}

class ConcurrentPlans : public ::testing::TestWithParam<Case> {};

TEST_P(ConcurrentPlans, ThreadsOnOwnCommunicatorsMatchOneThread) {
  const Case& c = GetParam();
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  if (provided < MPI_THREAD_MULTIPLE)
    GTEST_SKIP() << "MPI provides thread level " << provided << ", not MPI_THREAD_MULTIPLE";
  const std::string why = unavailable(c);
  if (!why.empty()) GTEST_SKIP() << c.name() << ": " << why;
  // Expected results: one thread alone on MPI_COMM_WORLD.
  std::vector<std::vector<cd>> expected;
  for (int t = 0; t < kThreads; ++t) expected.push_back(run(MPI_COMM_WORLD, c, t));
  // Communicators are made in the same order on every rank, before any thread starts.
  std::vector<MPI_Comm> comms(kThreads);
  for (auto& comm : comms) MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  std::vector<double> worst(kThreads, 0.0);
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      try {
        for (int r = 0; r < kRepeats; ++r)
          worst[t] = std::max(worst[t], max_diff(run(comms[t], c, t), expected[t]));
      } catch (const std::exception& e) {
        errors[t] = e.what();  // its peer thread on the other rank then waits: ctest's TIMEOUT
      }
    });
  for (auto& th : threads) th.join();
  for (auto& comm : comms) MPI_Comm_free(&comm);
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(errors[t], "") << "thread " << t;
    // Identical plans on identical data: the same FFTW plans and the same sums.
    EXPECT_LE(worst[t], 1e-12) << "thread " << t;
  }
}

std::string case_name(const ::testing::TestParamInfo<Case>& p) {
  std::string s = dfft::to_string(p.param.method) + "_overlap" + std::to_string(p.param.overlap) +
                  "_" + dfft::to_string(p.param.decomposition);
  for (auto& ch : s) ch = ch == '-' ? '_' : ch;
  return s;
}

INSTANTIATE_TEST_SUITE_P(Hardening, ConcurrentPlans, ::testing::ValuesIn(kCases), case_name);

}  // namespace
