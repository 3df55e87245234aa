// SPDX-License-Identifier: MIT
// GoogleTest main for every dfft test binary: MPI initialised before the tests are registered
// (the parametrised suites size themselves from the number of ranks), full output on rank 0 only.
// MPI_THREAD_MULTIPLE is requested because the overlap executor and the concurrent-plans test
// call MPI from several threads; tests that need it check MPI_Query_thread and skip without it.
// Other ranks still print their own failures, prefixed with the rank, so that an assertion
// that (wrongly) fails on one rank only is never invisible. `--backend=cpu|cuda` picks the
// backend the suites run on (support/backend.hpp); a backend that cannot run here (no GPU) skips
// every test and says so in a line that ctest's SKIP_REGULAR_EXPRESSION recognises.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>

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
  int rc = RUN_ALL_TESTS();
  int worst = rc;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
