// SPDX-License-Identifier: MIT
// The error classes, each provoked for real through the public API (bad argument, unsupported
// combination, memory limit, injected MPI and FFTW failures), and Plan::memory() against the
// bytes really allocated. 1-4 ranks: every rank must see the same class.
#include <dlfcn.h>
#include <fftw3.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <atomic>
#include <cmath>
#include <string>
#include <vector>

#include "backend/device.hpp"
#include "dfft/dfft.hpp"
#include "hardening/mpi_counters.hpp"

// FFTW failure injection: this definition comes before libfftw3's in the link, so the library's
// c2c double planning lands here; armed, it fails as FFTW does (a NULL plan).
namespace {
std::atomic<bool> fail_fftw_planning{false};
}
extern "C" fftw_plan fftw_plan_guru64_dft(int rank, const fftw_iodim64* dims, int howmany_rank,
                                          const fftw_iodim64* howmany_dims, fftw_complex* in,
                                          fftw_complex* out, int sign, unsigned flags) {
  if (fail_fftw_planning) return nullptr;
  using Fn = fftw_plan (*)(int, const fftw_iodim64*, int, const fftw_iodim64*, fftw_complex*,
                           fftw_complex*, int, unsigned);
  static const auto real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "fftw_plan_guru64_dft"));
  return real(rank, dims, howmany_rank, howmany_dims, in, out, sign, flags);
}

namespace {

using ::testing::HasSubstr;
using Shape = std::vector<std::int64_t>;
const Shape kShape{17, 12, 10};

int world_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

int ranks_with(bool v) {
  int mine = v, sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return sum;
}

// Runs f on every rank; true where it threw E with status s (any other exception fails).
template <class E, class F>
bool throws_as(F&& f, dfft::Status s, std::string* what = nullptr) {
  try {
    f();
  } catch (const E& e) {
    EXPECT_EQ(e.status(), s);
    if (what) *what = e.what();
    return true;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception: " << e.what();
  }
  return false;
}

TEST(ErrorClass, BadSizeIsInvalidArgument) {
  const bool ok = throws_as<dfft::InvalidArgument>([] { dfft::Plan<double> p(MPI_COMM_WORLD, {17, 0, 10}); },
                                                   dfft::Status::invalid_argument);
  EXPECT_EQ(ranks_with(ok), world_size());
}

TEST(ErrorClass, GpuMethodOnCpuIsUnsupported) {
  dfft::Options o;
  o.methods = {dfft::Method::nccl};
  std::string what;
  const bool ok = throws_as<dfft::Unsupported>([&] { dfft::Plan<double> p(MPI_COMM_WORLD, kShape, o); },
                                               dfft::Status::unsupported, &what);
  EXPECT_EQ(ranks_with(ok), world_size());
  EXPECT_THAT(what, HasSubstr("needs the CUDA backend"));
}

TEST(ErrorClass, MemoryLimitIsOutOfMemoryOnEveryRankWithBothNumbers) {
  dfft::Options o;
  o.memory_limit_bytes = 1000;
  o.decomposition = dfft::Decomposition::pencil;
  std::int64_t needed = 0, available = 0;
  std::string what;
  try {
    dfft::Plan<double> p(MPI_COMM_WORLD, kShape, o);
  } catch (const dfft::OutOfMemory& e) {
    EXPECT_EQ(e.status(), dfft::Status::out_of_memory);
    needed = e.needed_bytes();
    available = e.available_bytes();
    what = e.what();
  }
  EXPECT_EQ(ranks_with(available == 1000), world_size());
  EXPECT_GT(needed, 1000);
  EXPECT_THAT(what, HasSubstr(std::to_string(needed)));
  EXPECT_THAT(what, HasSubstr("1000 bytes are available"));
  // A limit above the need builds the plan.
  o.memory_limit_bytes = 1 << 30;
  dfft::Plan<double> p(MPI_COMM_WORLD, kShape, o);
  EXPECT_LE(p.memory().host_bytes, o.memory_limit_bytes);
}

TEST(ErrorClass, InjectedMpiFailureIsMpiError) {
  dfft::Plan<double> p(MPI_COMM_WORLD, kShape);
  std::vector<double> in(static_cast<std::size_t>(p.input_count()), 1.0);
  std::vector<std::complex<double>> out(static_cast<std::size_t>(p.output_count()));
  if (world_size() == 1) GTEST_SKIP() << "one rank exchanges nothing through MPI";
  hardening::inject_failure("MPI_Alltoallv", MPI_ERR_OTHER);
  const bool ok = throws_as<dfft::MpiError>([&] { p.forward(in.data(), out.data()); }, dfft::Status::mpi_error);
  EXPECT_TRUE(hardening::injected_and_disarm());
  EXPECT_EQ(ranks_with(ok), world_size());
}

TEST(ErrorClass, FftwPlanningFailureIsLibraryError) {
  dfft::Options o;
  o.transform = dfft::Transform::c2c;
  fail_fftw_planning = true;
  dfft::LibraryError::Library lib{};
  const bool ok = [&] {
    try {
      dfft::Plan<double> p(MPI_COMM_WORLD, kShape, o);
    } catch (const dfft::LibraryError& e) {
      lib = e.library();
      return e.status() == dfft::Status::library_error;
    }
    return false;
  }();
  fail_fftw_planning = false;
  EXPECT_TRUE(ok);
  EXPECT_EQ(lib, dfft::LibraryError::Library::fftw);
  EXPECT_EQ(to_string(lib), "FFTW");
}

// memory() is computed before allocating; the live Buffer bytes are what was allocated.
class MemoryMatches : public ::testing::TestWithParam<std::tuple<dfft::Decomposition, dfft::Method>> {};

TEST_P(MemoryMatches, AllocatedBytesWithinFivePercent) {
  dfft::Options o;
  o.decomposition = std::get<0>(GetParam());
  o.methods = {std::get<1>(GetParam())};
  // per-peer on nodes of two ranks where there are several: both its transports allocate.
  if (o.methods[0] == dfft::Method::per_peer) o.ranks_per_node = {world_size() % 2 == 0 ? 2 : 1};
  const std::int64_t before = dfft::detail::live_buffer_bytes;
  dfft::Plan<double> p(MPI_COMM_WORLD, kShape, o);
  const std::int64_t allocated = dfft::detail::live_buffer_bytes - before;
  const dfft::Memory m = p.memory();
  EXPECT_EQ(m.device_bytes, 0);
  EXPECT_GT(allocated, 0);
  EXPECT_LE(std::abs(static_cast<double>(m.host_bytes - allocated)), 0.05 * static_cast<double>(allocated))
      << "memory() " << m.host_bytes << " allocated " << allocated;
}

INSTANTIATE_TEST_SUITE_P(
    Api, MemoryMatches,
    ::testing::Combine(::testing::Values(dfft::Decomposition::slab_2d1d, dfft::Decomposition::pencil),
                       ::testing::Values(dfft::Method::a2a_sync, dfft::Method::p2p_sync,
                                         dfft::Method::a2a_type, dfft::Method::per_peer)));

}  // namespace
