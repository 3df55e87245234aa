// SPDX-License-Identifier: MIT
// Failed writes of dfft::io::write_npy (docs/io.md): MPI-IO calls made to fail, or to succeed
// having written nothing (what a full disk looks like to some MPI-IO implementations), on every
// rank or on one. Each must reach every rank as an MpiError naming the call, leave the earlier
// file at the path byte for byte and no temporary file; the next write must then succeed. Output
// paths that are not regular files are refused before anything is written, and a symbolic link
// is not followed.
#include <gtest/gtest.h>
#include <mpi.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "dfft/io.hpp"
#include "../support/test_util.hpp"
#include "mpi_counters.hpp"

// The library's MPI-IO calls land here first (the test links the static library). An armed
// failure still joins the collective call, with nothing to write, so that no rank is left
// waiting; its code MPI_SUCCESS stands for a write that "succeeds" having written nothing.
extern "C" {

int MPI_File_write_at_all(MPI_File fh, MPI_Offset off, const void* buf, int count, MPI_Datatype t,
                          MPI_Status* st) {
  if (!hardening::should_fail("MPI_File_write_at_all")) return PMPI_File_write_at_all(fh, off, buf, count, t, st);
  const int rc = PMPI_File_write_at_all(fh, off, buf, 0, t, st);
  return rc != MPI_SUCCESS ? rc : hardening::injected_code();
}
int MPI_File_write_at(MPI_File fh, MPI_Offset off, const void* buf, int count, MPI_Datatype t, MPI_Status* st) {
  if (!hardening::should_fail("MPI_File_write_at")) return PMPI_File_write_at(fh, off, buf, count, t, st);
  const int rc = PMPI_File_write_at(fh, off, buf, 0, t, st);
  return rc != MPI_SUCCESS ? rc : hardening::injected_code();
}
int MPI_File_sync(MPI_File fh) {
  const int rc = PMPI_File_sync(fh);
  return hardening::should_fail("MPI_File_sync") && rc == MPI_SUCCESS ? hardening::injected_code() : rc;
}
// A close that reports a write the file system could not complete (as NFS does at close).
int MPI_File_close(MPI_File* fh) {
  const int rc = PMPI_File_close(fh);
  return hardening::should_fail("MPI_File_close") && rc == MPI_SUCCESS ? hardening::injected_code() : rc;
}

}  // extern "C"

namespace {

namespace fs = std::filesystem;

using dfft_test::world_rank;
using dfft_test::world_size;

// A directory of this run, the same on every rank.
std::string work_dir() {
  long pid = static_cast<long>(getpid());
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  const fs::path d = fs::temp_directory_path() / ("dfft-io-failure-" + std::to_string(pid));
  if (world_rank() == 0) fs::create_directories(d);
  MPI_Barrier(MPI_COMM_WORLD);
  return d.string();
}

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A 6 x 5 x 4 float64 array, element i = 0.5 i, cut into slabs of the first axis over the ranks.
const std::vector<std::int64_t> kShape{6, 5, 4};
struct Part {
  dfft::Layout layout;
  std::vector<double> data;
};
Part my_part() {
  const std::int64_t n = kShape[0], p = world_size(), r = world_rank();
  Part part;
  part.layout.box = {{n * r / p, 0, 0}, {n * (r + 1) / p, kShape[1], kShape[2]}};
  const std::int64_t plane = kShape[1] * kShape[2];
  for (std::int64_t i = part.layout.box.lo[0] * plane; i < part.layout.box.hi[0] * plane; ++i)
    part.data.push_back(0.5 * static_cast<double>(i));
  return part;
}
// The file's data as this test writes it: C order, little endian doubles.
std::string expected_data() {
  std::string s;
  for (std::int64_t i = 0; i < kShape[0] * kShape[1] * kShape[2]; ++i) {
    const double v = 0.5 * static_cast<double>(i);
    s.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  return s;
}

void write(const std::string& path, bool atomic = true) {
  const Part p = my_part();
  dfft::io::WriteOptions w;
  w.atomic = atomic;
  dfft::io::write_npy(MPI_COMM_WORLD, path, kShape, dfft::io::Dtype::float64, p.layout, p.data.data(), w);
}

struct Fault {
  const char* call;
  int code;       // MPI_SUCCESS: the call reports success having written nothing
  int where;      // the rank it happens on; -1: every rank
  const char* says;
};

class WriteFault : public ::testing::TestWithParam<Fault> {};

TEST_P(WriteFault, ReportedOnEveryRankAndTheOldFileKept) {
  const Fault f = GetParam();
  if (f.where >= world_size()) GTEST_SKIP() << "needs " << f.where + 1 << " ranks";
  const std::string dir = work_dir(), path = dir + "/checkpoint.npy";
  const std::string old = "an earlier checkpoint, not to be lost";
  if (world_rank() == 0) std::ofstream(path, std::ios::binary) << old;
  MPI_Barrier(MPI_COMM_WORLD);
  if (f.where < 0 || f.where == world_rank()) hardening::inject_failure(f.call, f.code);
  bool threw = false;
  try {
    write(path);
  } catch (const dfft::MpiError& e) {
    threw = true;
    EXPECT_EQ(e.call(), f.call) << e.what();
    EXPECT_NE(std::string(e.what()).find(f.says), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  const bool delivered = hardening::injected_and_disarm();
  EXPECT_TRUE(threw) << f.call << " failed on rank " << f.where << " but write_npy returned normally";
  if (f.where < 0 || f.where == world_rank()) {
    EXPECT_TRUE(delivered) << f.call << " was never called";
  }
  if (world_rank() == 0) {
    EXPECT_EQ(bytes_of(path), old) << "the earlier file was changed";
    EXPECT_FALSE(fs::exists(path + ".dfft-tmp")) << "the temporary file was left behind";
  }
  // Nothing is stuck: the same write now succeeds, with the data as written above.
  write(path);
  if (world_rank() == 0) {
    const std::string got = bytes_of(path), data = expected_data();
    ASSERT_GE(got.size(), data.size());
    EXPECT_EQ(got.compare(0, 6, "\x93NUMPY"), 0);
    EXPECT_EQ(got.substr(got.size() - data.size()), data);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(
    Io, WriteFault,
    ::testing::Values(Fault{"MPI_File_write_at_all", MPI_ERR_IO, -1, "MPI_File_write_at_all failed"},
                      Fault{"MPI_File_write_at_all", MPI_ERR_NO_SPACE, 1, "on rank 1"},
                      Fault{"MPI_File_write_at_all", MPI_SUCCESS, 1, "moved less than asked"},
                      Fault{"MPI_File_write_at_all", MPI_SUCCESS, -1, "moved less than asked"},
                      Fault{"MPI_File_write_at", MPI_SUCCESS, 0, "moved less than asked"},
                      Fault{"MPI_File_write_at", MPI_ERR_NO_SPACE, 0, "MPI_File_write_at failed"},
                      Fault{"MPI_File_sync", MPI_ERR_IO, 1, "MPI_File_sync failed"},
                      Fault{"MPI_File_close", MPI_ERR_IO, -1, "MPI_File_close failed"}),
    [](const ::testing::TestParamInfo<Fault>& p) { return "case" + std::to_string(p.index); });

// Rewriting the file itself (atomic = false) cannot keep the old content, but the failure is
// still reported, not returned as success.
TEST(WriteFaultInPlace, ShortWriteReported) {
  const std::string dir = work_dir(), path = dir + "/inplace.npy";
  if (world_rank() == 0) std::ofstream(path, std::ios::binary) << "old";
  MPI_Barrier(MPI_COMM_WORLD);
  hardening::inject_failure("MPI_File_write_at_all", MPI_SUCCESS);
  EXPECT_THROW(write(path, false), dfft::MpiError);
  EXPECT_TRUE(hardening::injected_and_disarm());
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) fs::remove_all(dir);
}

// Output paths that are not regular files: refused on every rank before anything is written,
// whatever the mode; a link is not followed and the file it names keeps its content.
TEST(WriteTarget, NonRegularRefusedAndLinksNotFollowed) {
  const std::string dir = work_dir();
  const std::string target = dir + "/target.npy", link = dir + "/link.npy", fifo = dir + "/fifo.npy",
                    sub = dir + "/sub.npy", node = dir + "/null-node";
  bool have_node = false;
  if (world_rank() == 0) {
    std::ofstream(target, std::ios::binary) << "the link's target";
    fs::create_symlink(target, link);
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    fs::create_directory(sub);
    // A character device of our own (the null device's numbers), never a real /dev entry.
    have_node = mknod(node.c_str(), S_IFCHR | 0600, makedev(1, 3)) == 0;
  }
  int hn = have_node;
  MPI_Bcast(&hn, 1, MPI_INT, 0, MPI_COMM_WORLD);
  struct Case {
    std::string path, says;
  };
  std::vector<Case> cases{{link, "symbolic link"}, {fifo, "not a regular file"}, {sub, "directory"}};
  if (hn) cases.push_back({node, "not a regular file"});
  for (const auto& c : cases)
    for (bool atomic : {true, false}) {
      try {
        write(c.path, atomic);
        ADD_FAILURE() << c.path << " (atomic " << atomic << ") was written";
      } catch (const dfft::InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << e.what();
      }
    }
  if (world_rank() == 0) {
    EXPECT_TRUE(fs::is_symlink(link)) << "the link was replaced";
    EXPECT_EQ(bytes_of(target), "the link's target") << "the link was followed";
    EXPECT_TRUE(fs::is_fifo(fifo));
    EXPECT_TRUE(fs::is_directory(sub));
    if (hn) {
      EXPECT_TRUE(fs::is_character_file(node));
    }
    for (const auto& c : cases) EXPECT_FALSE(fs::exists(c.path + ".dfft-tmp")) << c.path;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) fs::remove_all(dir);
}

}  // namespace
