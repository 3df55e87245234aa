// SPDX-License-Identifier: MIT
// GoogleTest main for every dfft test binary: MPI initialised before the tests are registered
// (the parametrised suites size themselves from the number of ranks), full output on rank 0 only.
// MPI_THREAD_MULTIPLE is requested because the overlap executor and the concurrent-plans test
// call MPI from several threads; tests that need it check MPI_Query_thread and skip without it.
// Other ranks still print their own failures, prefixed with the rank, so that an assertion
// that (wrongly) fails on one rank only is never invisible. `--backend=cpu|cuda` picks the
// backend the suites run on (support/backend.hpp); a backend that cannot run here (no GPU) skips
// every test and says so in a line that ctest's SKIP_REGULAR_EXPRESSION recognises.
// At the end rank 0 prints how many tests were skipped for each reason (the first line of a
// test's first skip message), and "every test skipped" when nothing ran, which ctest also
// reports as skipped. DFFT_TEST_TIMEOUT=S: a test still running after S seconds prints its name
// on every rank (and, where gdb is installed, the stacks of all its threads) and aborts the job,
// so that a stall names itself instead of running into ctest's timeout in silence.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "support/backend.hpp"

namespace {

class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: failure\n%s\n", rank_,
                 r.file_name() ? r.file_name() : "?", r.line_number(), r.summary());
  }

 private:
  int rank_;
};

// Skipped tests by reason: the first line of each skipped test's first skip message. A skip
// outside any test (the global set-up) skips every test.
class SkipTally : public ::testing::EmptyTestEventListener {
 public:
  // In a test or not is tracked here: UnitTest::current_test_info() takes the lock that
  // AddTestPartResult holds while it calls this listener.
  void OnTestStart(const ::testing::TestInfo&) override {
    in_test_ = true;
    reason_.clear();
  }
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.skipped()) return;
    std::string why = r.message();
    why = why.substr(0, why.find('\n'));
    if (why.empty()) why = "(no reason given)";
    if (!in_test_) global_ = why;
    else if (reason_.empty()) reason_ = why;
  }
  void OnTestEnd(const ::testing::TestInfo& t) override {
    in_test_ = false;
    if (t.result()->Skipped()) ++count_[reason_.empty() ? "(no reason given)" : reason_];
  }
  /// Tests skipped per reason in this run.
  std::map<std::string, int> counts(const ::testing::UnitTest& u) const {
    auto c = count_;
    if (!global_.empty()) c[global_] += u.test_to_run_count();
    return c;
  }

 private:
  bool in_test_ = false;
  std::string reason_, global_;
  std::map<std::string, int> count_;
};

// DFFT_TEST_TIMEOUT: names the test that runs too long, dumps the stacks where gdb can, aborts.
class Watchdog : public ::testing::EmptyTestEventListener {
 public:
  Watchdog(int rank, int seconds) : rank_(rank), seconds_(seconds), thread_([this] { watch(); }) {}
  ~Watchdog() override {
    {
      std::lock_guard<std::mutex> l(m_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  void OnTestStart(const ::testing::TestInfo& t) override {
    std::lock_guard<std::mutex> l(m_);
    name_ = std::string(t.test_suite_name()) + "." + t.name();
    start_ = std::chrono::steady_clock::now();
    running_ = true;
  }
  void OnTestEnd(const ::testing::TestInfo&) override {
    std::lock_guard<std::mutex> l(m_);
    running_ = false;
  }

 private:
  void watch() {
    std::unique_lock<std::mutex> l(m_);
    while (!stop_) {
      cv_.wait_for(l, std::chrono::seconds(1));
      if (!running_ || std::chrono::steady_clock::now() - start_ < std::chrono::seconds(seconds_)) continue;
      std::fprintf(stderr, "[rank %d] %s still running after %d s (DFFT_TEST_TIMEOUT): stacks follow where gdb is installed, then abort\n",
                   rank_, name_.c_str(), seconds_);
      std::fflush(stderr);
      const std::string gdb = "command -v gdb >/dev/null 2>&1 && gdb -q -batch -p " + std::to_string(getpid()) +
                              " -ex 'thread apply all bt' 1>&2";
      if (std::system(gdb.c_str()) != 0)
        std::fprintf(stderr, "[rank %d] no stacks: gdb is not installed or could not attach\n", rank_);
      std::abort();
    }
  }

  int rank_, seconds_;
  std::mutex m_;
  std::condition_variable cv_;
  std::string name_;
  std::chrono::steady_clock::time_point start_;
  bool running_ = false, stop_ = false;
  std::thread thread_;
};

// Skips every test (global set-up) when the backend under test cannot run on this machine.
class BackendUnavailable : public ::testing::Environment {
 public:
  void SetUp() override { GTEST_SKIP() << "backend unavailable: " << dfft_test::backend_unavailable(); }
};

}  // namespace

int main(int argc, char** argv) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  dfft_test::select_backend(&argc, argv);  // before InitGoogleMock: it registers the cases
  ::testing::InitGoogleMock(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (!dfft_test::backend_unavailable().empty()) {
    if (rank == 0)
      std::printf("dfft tests: backend %s unavailable, every test skipped: %s\n",
                  to_string(dfft_test::backend()).c_str(), dfft_test::backend_unavailable().c_str());
    ::testing::AddGlobalTestEnvironment(new BackendUnavailable);
  }
  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (rank != 0) {
    delete listeners.Release(listeners.default_result_printer());
    delete listeners.Release(listeners.default_xml_generator());
    listeners.Append(new RankFailurePrinter(rank));
  }
  auto* tally = new SkipTally;  // owned by the listener list
  listeners.Append(tally);
  const char* timeout = std::getenv("DFFT_TEST_TIMEOUT");
  Watchdog* watchdog = nullptr;
  if (timeout && std::atoi(timeout) > 0) listeners.Append(watchdog = new Watchdog(rank, std::atoi(timeout)));
  int rc = RUN_ALL_TESTS();
  if (watchdog) delete listeners.Release(watchdog);  // its thread ends before MPI does
  const auto& unit = *::testing::UnitTest::GetInstance();
  int skipped = 0;
  for (const auto& [why, n] : tally->counts(unit)) {
    skipped += n;
    if (rank == 0) std::printf("dfft tests: skipped %d: %s\n", n, why.c_str());
  }
  // Skips are decided collectively; a rank that skipped a different number says so.
  int lo = skipped, hi = skipped;
  MPI_Allreduce(&skipped, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&skipped, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (lo != hi && skipped != lo) std::printf("dfft tests: rank %d skipped %d tests, another rank %d\n", rank, skipped, lo);
  int worst = rc;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  // Only where no rank failed: ctest turns this line into "skipped", which must not hide a failure.
  if (rank == 0 && worst == 0 && lo == hi && skipped > 0 && skipped == unit.test_to_run_count())
    std::printf("dfft tests: every test skipped\n");
  std::fflush(stdout);
  MPI_Finalize();
  return worst;
}
