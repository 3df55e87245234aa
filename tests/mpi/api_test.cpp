// SPDX-License-Identifier: MIT
// The error classes, each provoked for real through the public API (bad argument, unsupported
// combination, memory limit, injected MPI and FFTW failures), and Plan::memory() against the
// bytes really allocated. 1-4 ranks: every rank must see the same class.
#include <dlfcn.h>
#include <unistd.h>
#include <fftw3.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "backend/device.hpp"
#include "backend/host_memory.hpp"
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
  dfft::Options a2a;
  a2a.methods = {dfft::Method::a2a_sync};  // the method whose MPI_Alltoallv fails
  dfft::Plan<double> p(MPI_COMM_WORLD, kShape, a2a);
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

// A stand-in for "/" (DFFT_SYSTEM_ROOT) holding /proc/meminfo, /proc/self/cgroup and cgroup
// files, one for all ranks, as on one node; the variable is set while the object lives. Its
// members are collective (rank 0 writes).
class FakeSystem {
 public:
  FakeSystem() {
    long id = static_cast<long>(::getpid());
    MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    root_ = std::filesystem::temp_directory_path() / ("dfft_fake_root_" + std::to_string(id));
    if (rank0()) std::filesystem::remove_all(root_);
    file("proc/self/cgroup", "0::/\n");
    setenv("DFFT_SYSTEM_ROOT", root_.c_str(), 1);
  }
  ~FakeSystem() {
    unsetenv("DFFT_SYSTEM_ROOT");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank0()) std::filesystem::remove_all(root_);
  }
  FakeSystem(const FakeSystem&) = delete;
  FakeSystem& operator=(const FakeSystem&) = delete;
  void file(const std::string& path, const std::string& text) const {
    MPI_Barrier(MPI_COMM_WORLD);  // every rank has read what it read before
    if (rank0()) {
      std::filesystem::create_directories((root_ / path).parent_path());
      std::ofstream(root_ / path) << text;
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  void mem_available(std::int64_t bytes) const {
    file("proc/meminfo", "MemTotal: " + std::to_string(bytes / 512) + " kB\nMemAvailable: " +
                             std::to_string(bytes / 1024) + " kB\n");
  }
  std::string path(const std::string& p) const { return (root_ / p).string(); }

 private:
  static bool rank0() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r == 0;
  }
  std::filesystem::path root_;
};

constexpr std::int64_t kGiB = std::int64_t{1} << 30;

TEST(HostMemory, ReadsMemAvailableAndTheTightestCgroupLimit) {
  FakeSystem sys;
  sys.mem_available(23 * kGiB);
  // cgroup v2: a job's limit above its step's (which has none) binds; page cache it can
  // reclaim (inactive_file) does not count as used.
  sys.file("proc/self/cgroup", "0::/job/step\n");
  sys.file("sys/fs/cgroup/job/memory.max", std::to_string(6 * kGiB) + "\n");
  sys.file("sys/fs/cgroup/job/memory.current", std::to_string(2 * kGiB) + "\n");
  sys.file("sys/fs/cgroup/job/memory.stat", "anon 1\ninactive_file " + std::to_string(kGiB) + "\n");
  sys.file("sys/fs/cgroup/job/step/memory.max", "max\n");
  sys.file("sys/fs/cgroup/job/step/memory.current", "100\n");
  dfft::detail::HostMemory m = dfft::detail::host_memory();
  EXPECT_EQ(m.mem_available, 23 * kGiB);
  EXPECT_EQ(m.cgroup_available, 5 * kGiB);
  EXPECT_EQ(m.cgroup_limit_file, sys.path("sys/fs/cgroup/job/memory.max"));
  // A tighter limit on the step wins.
  sys.file("sys/fs/cgroup/job/step/memory.max", std::to_string(kGiB) + "\n");
  m = dfft::detail::host_memory();
  EXPECT_EQ(m.cgroup_available, kGiB - 100);
  EXPECT_EQ(m.cgroup_limit_file, sys.path("sys/fs/cgroup/job/step/memory.max"));
  // cgroup v1 (a hybrid system: the memory controller's line decides); its "no limit" is a
  // number near 2^63.
  sys.file("proc/self/cgroup", "4:memory:/slurm/uid\n0::/\n");
  sys.file("sys/fs/cgroup/memory/slurm/memory.limit_in_bytes", "9223372036854771712\n");
  sys.file("sys/fs/cgroup/memory/slurm/uid/memory.limit_in_bytes", std::to_string(3 * kGiB) + "\n");
  sys.file("sys/fs/cgroup/memory/slurm/uid/memory.usage_in_bytes", std::to_string(kGiB) + "\n");
  sys.file("sys/fs/cgroup/memory/slurm/uid/memory.stat", "total_inactive_file " + std::to_string(kGiB / 2) + "\n");
  m = dfft::detail::host_memory();
  EXPECT_EQ(m.cgroup_available, 3 * kGiB - kGiB / 2);
  EXPECT_EQ(m.cgroup_limit_file, sys.path("sys/fs/cgroup/memory/slurm/uid/memory.limit_in_bytes"));
  // No limit anywhere: none applies.
  sys.file("sys/fs/cgroup/memory/slurm/uid/memory.limit_in_bytes", "9223372036854771712\n");
  EXPECT_EQ(dfft::detail::host_memory().cgroup_available, -1);
}

// The refusal of `make` on every rank: its OutOfMemory's numbers and message (empty where the
// plan was made, or another exception came).
struct Refused {
  bool refused = false;
  std::int64_t needed = 0, available = 0;
  std::string what;
};
template <class F>
Refused refusal(F&& make) {
  Refused r;
  try {
    make();
  } catch (const dfft::OutOfMemory& e) {
    r = {true, e.needed_bytes(), e.available_bytes(), e.what()};
  }
  return r;
}

// The ranks of one node draw on one MemAvailable: 1100^3 double on 2 ranks needs ~16 GB each
// (by Plan::memory()), which each rank alone would find in a 23 GB node, but not both together.
TEST(MemoryRefusal, RanksOfANodeShareMemAvailable) {
  if (world_size() == 1) GTEST_SKIP() << "one rank shares its node with nobody";
  FakeSystem sys;
  const std::int64_t avail = 23'000'000'000 / 1024 * 1024;
  sys.mem_available(avail);
  dfft::Options o;
  o.effort = dfft::Effort::estimate;
  o.decomposition = dfft::Decomposition::slab_2d1d;
  o.methods = {dfft::Method::a2a_sync};  // staging buffers beside the work buffers: ~16 GB
  const Refused r = refusal([&] { dfft::Plan<double> p(MPI_COMM_WORLD, {1100, 1100, 1100}, o); });
  EXPECT_EQ(ranks_with(r.refused), world_size()) << r.what;
  EXPECT_EQ(r.available, avail);
  EXPECT_GT(r.needed, avail);
  EXPECT_THAT(r.what, HasSubstr("MemAvailable in /proc/meminfo"));
  EXPECT_THAT(r.what, HasSubstr("for the " + std::to_string(world_size()) + " ranks of its node"));
  long long own = 0;
  int rank = -1;
  ASSERT_EQ(std::sscanf(r.what.c_str(), "dfft: the plan needs %lld bytes of host memory on rank %d", &own, &rank), 2)
      << r.what;
  EXPECT_LT(own, avail) << "each rank alone fits";
}

// A memory cgroup limit (a batch job's) refuses a plan that MemAvailable would let through,
// instead of the kernel killing the job while it allocates.
TEST(MemoryRefusal, CgroupLimitRefusesBeforeAllocating) {
  FakeSystem sys;
  sys.mem_available(23 * kGiB);
  sys.file("proc/self/cgroup", "0::/job\n");
  sys.file("sys/fs/cgroup/job/memory.max", std::to_string(6 * kGiB) + "\n");
  sys.file("sys/fs/cgroup/job/memory.current", "0\n");
  dfft::Options o;
  o.effort = dfft::Effort::estimate;
  o.decomposition = dfft::Decomposition::slab_2d1d;
  o.methods = {dfft::Method::a2a_sync};
  const std::int64_t live = dfft::detail::live_buffer_bytes;
  const Refused r = refusal([&] { dfft::Plan<double> p(MPI_COMM_WORLD, {800, 800, 800}, o); });
  EXPECT_EQ(ranks_with(r.refused), world_size()) << r.what;
  EXPECT_EQ(dfft::detail::live_buffer_bytes, live) << "nothing allocated";
  EXPECT_EQ(r.available, 6 * kGiB);
  EXPECT_GT(r.needed, 6 * kGiB);
  EXPECT_THAT(r.what, HasSubstr("memory cgroup limit " + sys.path("sys/fs/cgroup/job/memory.max")));
  // Within the limit the same options make a plan.
  dfft::Plan<double> small(MPI_COMM_WORLD, {40, 40, 40}, o);
  EXPECT_GT(small.memory().host_bytes, 0);
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
