// SPDX-License-Identifier: MIT
// Collective .npy files on 1-4 ranks: every element of a known global array is written from the
// layouts of plans (slab, pencil, realigned and so transposed orders, padded in-place r2c) and of
// user boxes (empty boxes included), checked byte for byte against a serial writer of this file
// (header and C-order data), and read back with another rank count and other layouts; files in
// Fortran order; large requests cut into pieces; every refusal thrown on every rank.
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "dfft/io.hpp"
#include "../support/test_util.hpp"

namespace {

namespace fs = std::filesystem;
using dfft::Box;
using dfft::Layout;
using dfft::io::Dtype;
using dfft::io::Side;
using dfft_test::Shape;
using dfft_test::world_rank;
using dfft_test::world_size;

// A directory of this run, the same on every rank.
std::string work_dir() {
  long pid = static_cast<long>(getpid());
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  const fs::path d = fs::temp_directory_path() / ("dfft-npy-io-" + std::to_string(pid));
  if (world_rank() == 0) fs::create_directories(d);
  MPI_Barrier(MPI_COMM_WORLD);
  return d.string();
}

// The global array: element `lin` (C-order linear index) is (lin + 0.25 * seed, -2 lin) for
// complex dtypes and lin + 0.25 * seed for real ones; exact in float up to 2^24.
double value(std::int64_t lin, int seed, int part) { return part == 0 ? lin + 0.25 * seed : -2.0 * lin; }

bool is_complex(Dtype t) { return t == Dtype::complex64 || t == Dtype::complex128; }

void put(char* at, Dtype t, std::int64_t lin, int seed) {
  const int parts = is_complex(t) ? 2 : 1;
  for (int p = 0; p < parts; ++p) {
    if (t == Dtype::float32 || t == Dtype::complex64) {
      const float v = static_cast<float>(value(lin, seed, p));
      std::memcpy(at + p * 4, &v, 4);
    } else {
      const double v = value(lin, seed, p);
      std::memcpy(at + p * 8, &v, 8);
    }
  }
}

std::int64_t linear(const Shape& shape, const std::vector<std::int64_t>& idx) {
  std::int64_t lin = 0;
  for (std::size_t a = 0; a < shape.size(); ++a) lin = lin * shape[a] + idx[a];
  return lin;
}

// Calls f(global index) for every element of `box`.
template <class F>
void for_each_index(const Box& box, F&& f) {
  if (box.empty()) return;
  std::vector<std::int64_t> idx = box.lo;
  for (;;) {
    f(idx);
    int a = box.dims() - 1;
    for (; a >= 0; --a) {
      if (++idx[a] < box.hi[a]) break;
      idx[a] = box.lo[a];
    }
    if (a < 0) return;
  }
}

// Local array of layout `l` holding the global array's values (padding left at a marker).
std::vector<char> local_array(const Layout& l, const Shape& shape, Dtype t, int seed) {
  const auto item = static_cast<std::int64_t>(dfft::io::itemsize(t));
  std::vector<char> out(static_cast<std::size_t>(std::max<std::int64_t>(l.alloc_count(), 1) * item), '\x7f');
  for_each_index(l.box, [&](const auto& idx) { put(out.data() + l.offset_of(idx) * item, t, linear(shape, idx), seed); });
  return out;
}

// Elements of the local array that differ from the global array's values.
std::int64_t wrong_elements(const std::vector<char>& got, const Layout& l, const Shape& shape, Dtype t, int seed) {
  const auto item = static_cast<std::int64_t>(dfft::io::itemsize(t));
  std::int64_t wrong = 0;
  char want[16];
  for_each_index(l.box, [&](const auto& idx) {
    put(want, t, linear(shape, idx), seed);
    wrong += std::memcmp(got.data() + l.offset_of(idx) * item, want, static_cast<std::size_t>(item)) != 0;
  });
  return wrong;
}

// The file a serial writer makes: numpy's header, then every element in C order.
std::string serial_file(const Shape& shape, Dtype t, int seed) {
  std::string out = dfft::io::make_npy_header(t, shape);
  Box all{Shape(shape.size(), 0), shape};
  char v[16];
  for_each_index(all, [&](const auto& idx) {
    put(v, t, linear(shape, idx), seed);
    out.append(v, dfft::io::itemsize(t));
  });
  return out;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// Rank 0 compares the file with the serial writer's; every rank gets the verdict.
bool file_matches(const std::string& path, const Shape& shape, Dtype t, int seed) {
  int ok = world_rank() == 0 ? slurp(path) == serial_file(shape, t, seed) : 0;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok != 0;
}

// Ranks [0, k) of the world, split along `axis` into k slabs stored in memory order `order`;
// MPI_COMM_NULL and an empty layout elsewhere.
MPI_Comm first_ranks(int k) {
  MPI_Comm c = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank() < k ? 0 : MPI_UNDEFINED, world_rank(), &c);
  return c;
}

Layout slab_layout(const Shape& shape, int axis, int parts, int part, std::vector<int> order) {
  Layout l;
  l.box.lo.assign(shape.size(), 0);
  l.box.hi = shape;
  const std::int64_t n = shape[axis];
  l.box.lo[axis] = n * part / parts;
  l.box.hi[axis] = n * (part + 1) / parts;
  l.order = std::move(order);
  return l;
}

std::vector<int> reversed(int d) {
  std::vector<int> o;
  for (int a = d - 1; a >= 0; --a) o.push_back(a);
  return o;
}

struct PlanCase {
  Shape shape;
  dfft::Decomposition decomposition;
  dfft::Variant variant;
  dfft::Transform transform;
  bool in_place;
};

std::string case_name(const PlanCase& c) {
  std::string s = to_string(c.decomposition) + "_" + to_string(c.variant) + "_" + to_string(c.transform);
  for (auto n : c.shape) s += "_" + std::to_string(n);
  if (c.in_place) s += "_inplace";
  for (auto& ch : s)
    if (ch == '-') ch = '_';
  return s;
}

class PlanSides : public ::testing::TestWithParam<PlanCase> {};

// Both sides of a plan written from its layouts, checked against the serial file, read back by
// fewer ranks in a transposed user layout and by the plan itself.
template <class T>
void plan_sides(const PlanCase& c, const std::string& dir) {
  dfft::Options o;
  o.decomposition = c.decomposition;
  o.variant = c.variant;
  o.transform = c.transform;
  o.in_place = c.in_place;
  o.effort = dfft::Effort::estimate;
  o.fftw_wisdom = false;
  dfft::Plan<T> plan(MPI_COMM_WORLD, c.shape, o);
  for (Side side : {Side::input, Side::output}) {
    const Layout& l = side == Side::input ? plan.input_layout() : plan.output_layout();
    const Shape shape = dfft::io::side_shape(plan, side);
    const Dtype t = dfft::io::side_dtype(plan, side);
    const int seed = side == Side::input ? 1 : 2;
    const std::string path = dir + "/" + case_name(c) + (side == Side::input ? "_in.npy" : "_out.npy");
    const auto mine = local_array(l, shape, t, seed);
    dfft::io::write_npy(plan, side, path, mine.data());
    EXPECT_TRUE(file_matches(path, shape, t, seed)) << path;
    EXPECT_FALSE(fs::exists(path + ".dfft-tmp"));
    // The plan reads its own file back.
    std::vector<char> back(mine.size(), '\x7f');
    dfft::io::read_npy(plan, side, path, back.data());
    EXPECT_TRUE(dfft_test::all_ranks(wrong_elements(back, l, shape, t, seed) == 0)) << path;
    // One rank fewer reads it into slabs of the last axis, stored in reversed axis order.
    const int k = std::max(1, world_size() - 1);
    MPI_Comm sub = first_ranks(k);
    if (sub != MPI_COMM_NULL) {
      const int d = static_cast<int>(shape.size());
      const Layout u = slab_layout(shape, d - 1, k, world_rank(), reversed(d));
      std::vector<char> got(std::max<std::size_t>(1, static_cast<std::size_t>(u.alloc_count()) * dfft::io::itemsize(t)));
      dfft::io::read_npy(sub, path, shape, t, u, got.data());
      EXPECT_EQ(wrong_elements(got, u, shape, t, seed), 0) << path << " read by " << k << " ranks";
      MPI_Comm_free(&sub);
    }
  }
}

TEST_P(PlanSides, WriteMatchesSerialFileAndReadsBack) {
  const std::string dir = work_dir();
  if (to_string(GetParam().transform) == "c2c")
    plan_sides<float>(GetParam(), dir);
  else
    plan_sides<double>(GetParam(), dir);
}

using D = dfft::Decomposition;
using V = dfft::Variant;
using X = dfft::Transform;
INSTANTIATE_TEST_SUITE_P(
    Layouts, PlanSides,
    ::testing::Values(PlanCase{{17, 12, 10}, D::slab_2d1d, V::Default, X::r2c, false},
                      PlanCase{{17, 12, 10}, D::slab_2d1d, V::Realigned, X::r2c, false},
                      PlanCase{{17, 12, 10}, D::pencil, V::Realigned, X::c2c, false},
                      PlanCase{{17, 12, 10}, D::pencil, V::Default, X::r2c, true},
                      PlanCase{{11, 13, 9}, D::slab_1d2d, V::Realigned, X::c2c, false},
                      PlanCase{{5, 6, 7, 3}, D::pencil, V::Realigned, X::r2c, false}),
    [](const auto& pi) { return case_name(pi.param); });

// Rank 0 holds nothing (its box is empty, its data null); the others hold slabs of axis 1.
TEST(NpyIo, EmptyBoxesAndPieces) {
  const std::string dir = work_dir();
  const Shape shape{17, 12, 10};
  const int p = world_size();
  const int parts = std::max(1, p - 1), part = std::max(0, world_rank() - 1);
  Layout l = slab_layout(shape, 1, parts, part, {2, 0, 1});
  if (p > 1 && world_rank() == 0) l.box.hi = l.box.lo;
  for (Dtype t : {Dtype::float64, Dtype::complex64}) {
    const auto mine = local_array(l, shape, t, 3);
    const void* data = l.box.empty() ? nullptr : mine.data();
    const std::string path = dir + "/empty_" + dfft::io::to_string(t) + ".npy";
    // Pieces of 40 bytes: many collective calls, more on some ranks than on others.
    dfft::io::detail::write_npy_pieces(MPI_COMM_WORLD, path, shape, t, l, data, {}, 40);
    EXPECT_TRUE(file_matches(path, shape, t, 3));
    std::vector<char> back(mine.size(), '\x7f');
    dfft::io::detail::read_npy_pieces(MPI_COMM_WORLD, path, shape, t, l, l.box.empty() ? nullptr : back.data(), 24);
    EXPECT_EQ(wrong_elements(back, l, shape, t, 3), 0);
    dfft::io::read_npy(MPI_COMM_WORLD, path, shape, t, l, back.data());
    EXPECT_EQ(wrong_elements(back, l, shape, t, 3), 0);
  }
}

// numpy writes F-contiguous arrays in Fortran order: such a file reads into any layout.
TEST(NpyIo, ReadsFortranOrderFiles) {
  const std::string dir = work_dir();
  const Shape shape{9, 7, 5};
  const std::string path = dir + "/fortran.npy";
  if (world_rank() == 0) {
    std::string h = dfft::io::make_npy_header(Dtype::float64, shape);
    h.replace(h.find("False"), 5, "True ");
    std::ofstream f(path, std::ios::binary);
    f << h;
    char v[8];
    for (std::int64_t k = 0; k < 5; ++k)
      for (std::int64_t j = 0; j < 7; ++j)
        for (std::int64_t i = 0; i < 9; ++i) {
          put(v, Dtype::float64, linear(shape, {i, j, k}), 4);
          f.write(v, 8);
        }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_TRUE(dfft::io::read_npy_header(MPI_COMM_WORLD, path).fortran_order);
  const Layout l = slab_layout(shape, 0, world_size(), world_rank(), {1, 2, 0});
  std::vector<char> got(std::max<std::size_t>(8, static_cast<std::size_t>(l.alloc_count()) * 8));
  dfft::io::detail::read_npy_pieces(MPI_COMM_WORLD, path, shape, Dtype::float64, l, got.data(), 56);
  EXPECT_EQ(wrong_elements(got, l, shape, Dtype::float64, 4), 0);
}

// Every rank throws the error, of the same class, naming the failing rank where one rank failed.
template <class E, class F>
void expect_on_every_rank(F&& f, const std::string& phrase, const char* call = nullptr, int failing_rank = -1) {
  bool thrown = false, matches = false;
  try {
    f();
  } catch (const E& e) {
    thrown = true;
    matches = std::string(e.what()).find(phrase) != std::string::npos && (!call || e.call() == call) &&
              (failing_rank < 0 || e.rank() == failing_rank);
    if (!matches) ADD_FAILURE() << e.what() << " (call " << e.call() << ", rank " << e.rank() << ")";
  }
  EXPECT_TRUE(dfft_test::all_ranks(thrown && matches)) << phrase;
}

TEST(NpyIo, RefusalsReachEveryRank) {
  const std::string dir = work_dir();
  const Shape shape{17, 12, 10};
  const Layout l = slab_layout(shape, 0, world_size(), world_rank(), {0, 1, 2});
  const auto mine = local_array(l, shape, Dtype::float64, 5);
  const std::string path = dir + "/good.npy";
  dfft::io::write_npy(MPI_COMM_WORLD, path, shape, Dtype::float64, l, mine.data());
  std::vector<char> buf(mine.size());
  using dfft::InvalidArgument;
  using dfft::MpiError;
  using dfft::io::read_npy;
  expect_on_every_rank<InvalidArgument>([&] { read_npy(MPI_COMM_WORLD, path, {17, 12, 11}, Dtype::float64, l, buf.data()); },
                                        "holds float64 of shape (17, 12, 10); expected float64 of shape (17, 12, 11)");
  expect_on_every_rank<InvalidArgument>([&] { read_npy(MPI_COMM_WORLD, path, shape, Dtype::complex128, l, buf.data()); },
                                        "expected complex128");
  expect_on_every_rank<MpiError>([&] { read_npy(MPI_COMM_WORLD, dir + "/absent.npy", shape, Dtype::float64, l, buf.data()); },
                                 "cannot open", "MPI_File_open");
  // Rank 0 creates the temporary file beside the target (open with O_EXCL) before MPI opens it.
  expect_on_every_rank<dfft::LibraryError>(
      [&] { dfft::io::write_npy(MPI_COMM_WORLD, dir + "/no/such/dir.npy", shape, Dtype::float64, l, mine.data()); },
      "cannot write");
  EXPECT_FALSE(fs::exists(dir + "/no/such/dir.npy.dfft-tmp"));
  // The last rank's box leaves the array; the others' arguments are fine.
  const int last = world_size() - 1;
  Layout bad = l;
  if (world_rank() == last) bad.box.hi[2] = 11;
  expect_on_every_rank<InvalidArgument>([&] { read_npy(MPI_COMM_WORLD, path, shape, Dtype::float64, bad, buf.data()); },
                                        "is not inside [0, 10)", nullptr, last);
  // Writing needs the boxes to tile the array: rank 0 holding one row less leaves a gap.
  Layout gap = l;
  if (world_rank() == 0) gap.box.hi[0] -= 1;
  expect_on_every_rank<InvalidArgument>(
      [&] { dfft::io::write_npy(MPI_COMM_WORLD, path, shape, Dtype::float64, gap, mine.data()); }, "cover");
  // A truncated file and a file that is not .npy at all.
  if (world_rank() == 0) {
    const std::string raw = slurp(path);
    std::ofstream(dir + "/truncated.npy", std::ios::binary) << raw.substr(0, raw.size() - 8);
    std::ofstream(dir + "/text.npy", std::ios::binary) << "hello";
  }
  MPI_Barrier(MPI_COMM_WORLD);
  expect_on_every_rank<InvalidArgument>([&] { dfft::io::read_npy_header(MPI_COMM_WORLD, dir + "/truncated.npy"); },
                                        "truncated");
  expect_on_every_rank<InvalidArgument>([&] { dfft::io::read_npy_header(MPI_COMM_WORLD, dir + "/text.npy"); },
                                        "not a .npy file");
  // The refused writes left the first file as it was.
  EXPECT_TRUE(file_matches(path, shape, Dtype::float64, 5));
}

// atomic = false rewrites the existing file itself (same inode, truncated to the new size); the
// default writes a new file and renames it into place.
TEST(NpyIo, InPlaceRewriteKeepsTheFile) {
  const std::string dir = work_dir();
  const Shape shape{13, 9};
  const Layout l = slab_layout(shape, 1, world_size(), world_rank(), {1, 0});
  const std::string path = dir + "/inplace.npy";
  if (world_rank() == 0) std::ofstream(path, std::ios::binary) << std::string(100000, 'x');
  MPI_Barrier(MPI_COMM_WORLD);
  auto inode = [&] {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? static_cast<long>(st.st_ino) : -1L;
  };
  const long before = inode();
  const auto mine = local_array(l, shape, Dtype::complex128, 6);
  dfft::io::WriteOptions w;
  w.atomic = false;
  dfft::io::write_npy(MPI_COMM_WORLD, path, shape, Dtype::complex128, l, mine.data(), w);
  EXPECT_EQ(inode(), before);
  EXPECT_TRUE(file_matches(path, shape, Dtype::complex128, 6));
  dfft::io::write_npy(MPI_COMM_WORLD, path, shape, Dtype::complex128, l, mine.data());
  EXPECT_NE(inode(), before);
  EXPECT_TRUE(file_matches(path, shape, Dtype::complex128, 6));
}

}  // namespace

namespace {

// A file of more than 2 GiB whose blocks exceed 2 GiB on one rank: the requests are cut into
// pieces, and the subarray views span more than 2^31 bytes. Needs about 5 GB of memory and
// 2.2 GB of disk on one rank, so it runs only when asked for
// (--gtest_also_run_disabled_tests --gtest_filter='*LargerThan2GiB*').
TEST(NpyIo, DISABLED_LargerThan2GiB) {
  const std::string dir = work_dir();
  const Shape shape{3, 11000, 8200};  // 2.16e9 bytes of float64
  const Layout w = slab_layout(shape, 2, world_size(), world_rank(), {0, 1, 2});
  const std::string path = dir + "/large.npy";
  {
    const auto mine = local_array(w, shape, Dtype::float64, 7);
    dfft::io::write_npy(MPI_COMM_WORLD, path, shape, Dtype::float64, w, mine.data());
  }
  const auto header = dfft::io::make_npy_header(Dtype::float64, shape);
  EXPECT_EQ(fs::file_size(path), header.size() + 3u * 11000u * 8200u * 8u);
  const Layout r = slab_layout(shape, 1, world_size(), world_rank(), {2, 1, 0});
  std::vector<char> got(static_cast<std::size_t>(r.alloc_count()) * 8);
  dfft::io::read_npy(MPI_COMM_WORLD, path, shape, Dtype::float64, r, got.data());
  EXPECT_EQ(wrong_elements(got, r, shape, Dtype::float64, 7), 0);
  if (world_rank() == 0) {  // the last element, past 2^31 bytes, read without MPI
    std::ifstream f(path, std::ios::binary);
    f.seekg(static_cast<std::streamoff>(fs::file_size(path) - 8));
    double last = 0;
    f.read(reinterpret_cast<char*>(&last), 8);
    EXPECT_EQ(last, value(3LL * 11000 * 8200 - 1, 7, 0));
    fs::remove(path);
  }
}

}  // namespace
