// SPDX-License-Identifier: MIT
// FFTW wisdom on disk (Options::fftw_wisdom): a MEASURE plan of a size whose wisdom the process
// forgot re-reads it from the file and plans much faster than the first time; a corrupt file
// is ignored and replaced. Every rank of the run shares one directory (one writer at a time).
// FFTW wisdom belongs to the cpu backend: the cuda run of this suite skips these tests.
#include <fftw3.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>

#include "support/backend.hpp"
#include "support/test_util.hpp"

namespace dfft_test {
namespace {

// A fresh directory made by rank 0, the same name on every rank.
std::string shared_temp_dir() {
  char name[256] = "/tmp/dfft-wisdom-test-XXXXXX";
  if (world_rank() == 0 && !::mkdtemp(name)) name[0] = 0;
  MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
  EXPECT_NE(name[0], 0) << "mkdtemp failed";
  return name;
}

std::string wisdom_file(const std::string& dir) {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  return dir + "/fftw-" + host + ".wisdom";
}

class FftwWisdom : public ::testing::Test {
 protected:
  void SetUp() override {
    if (on_cuda()) GTEST_SKIP() << "FFTW wisdom is the cpu backend's (cuFFT has none)";
  }
};

dfft::Options measured(const std::string& dir) {
  dfft::Options o;
  // A fixed plan, so that the time to make it is FFTW's planning (no automatic choice beside it).
  o.decomposition = dfft::Decomposition::slab_2d1d;
  o.variant = dfft::Variant::Default;
  o.methods = {dfft::Method::a2a_sync};
  o.chunks = 4;
  o.overlap = 1;
  o.transform = dfft::Transform::c2c;
  o.effort = dfft::Effort::measure;
  o.fftw_wisdom_dir = dir;
  return o;
}

// Seconds to make the plan, the slowest rank's.
double plan_seconds(const dfft::Options& o) {
  MPI_Barrier(MPI_COMM_WORLD);
  const auto t0 = std::chrono::steady_clock::now();
  dfft::Plan<double> plan(MPI_COMM_WORLD, {36, 30, 28}, o);
  const std::chrono::duration<double> t = std::chrono::steady_clock::now() - t0;
  return max_over_ranks(t.count());
}

TEST_F(FftwWisdom, SecondPlanReadsTheFile) {
  const std::string dir = shared_temp_dir();
  fftw_forget_wisdom();
  const double first = plan_seconds(measured(dir));
  fftw_forget_wisdom();  // only the file can make the second plan fast
  const double second = plan_seconds(measured(dir));
  EXPECT_LT(second, 0.3 * first) << "first " << first << " s, second " << second << " s";
  fftw_forget_wisdom();
  EXPECT_EQ(fftw_import_wisdom_from_filename(wisdom_file(dir).c_str()), 1);
}

TEST_F(FftwWisdom, CorruptFileIsIgnoredAndReplaced) {
  const std::string dir = shared_temp_dir();
  if (world_rank() == 0) std::ofstream(wisdom_file(dir)) << "(fftw-3.3.10 fftw_wisdom #x1 (broken";
  MPI_Barrier(MPI_COMM_WORLD);
  fftw_forget_wisdom();
  const auto o = measured(dir);
  EXPECT_NO_THROW(dfft::Plan<double>(MPI_COMM_WORLD, {9, 8, 7}, o));
  MPI_Barrier(MPI_COMM_WORLD);
  fftw_forget_wisdom();
  EXPECT_EQ(fftw_import_wisdom_from_filename(wisdom_file(dir).c_str()), 1);
}

TEST_F(FftwWisdom, OffWritesNothing) {
  const std::string dir = shared_temp_dir();
  auto o = measured(dir);
  o.fftw_wisdom = false;
  dfft::Plan<double> plan(MPI_COMM_WORLD, {9, 8, 7}, o);
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_FALSE(std::ifstream(wisdom_file(dir)).good());
}

// A wisdom folder that cannot be made (its parent is a regular file): planning goes on, and the
// plan says that FFTW's wisdom was not kept, on every rank (each writes the file), in warnings()
// and describe().
TEST_F(FftwWisdom, AFailedWriteIsReported) {
  const std::string dir = shared_temp_dir();
  if (world_rank() == 0) std::ofstream(dir + "/file") << "a file, not a folder";
  MPI_Barrier(MPI_COMM_WORLD);
  auto o = measured(dir + "/file/sub");
  dfft::Plan<double> plan(MPI_COMM_WORLD, {11, 13, 7}, o);  // a size no other test plans
  const auto w = plan.warnings();
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("FFTW wisdom not saved"), std::string::npos) << w[0];
  EXPECT_NE(w[0].find(dir + "/file"), std::string::npos) << w[0];
  EXPECT_NE(plan.describe().find("warning: FFTW wisdom not saved"), std::string::npos);
  dfft::Plan<double> kept(MPI_COMM_WORLD, {11, 13, 9}, measured(dir));
  EXPECT_TRUE(kept.warnings().empty());
}

}  // namespace
}  // namespace dfft_test
