// SPDX-License-Identifier: MIT
// Helpers shared by the MPI tests: collective assertions and an independent view of the
// distributed arrays (own index arithmetic, own gather), so that the checks do not lean on
// the code they check.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "dfft/dfft.hpp"

namespace dfft_test {

using Shape = std::vector<std::int64_t>;
using cd = std::complex<double>;

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
inline int world_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

/// Largest value over all ranks. NaN (a check that did not run) counts as +inf, so it can never
/// pass an upper bound by accident.
inline double max_over_ranks(double v) {
  if (std::isnan(v)) v = std::numeric_limits<double>::infinity();
  double out = v;
  MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return out;
}
inline bool all_ranks(bool v) {
  int in = v ? 1 : 0, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return out == 1;
}

/// gtest name of a (decomposition, transform) parameter, e.g. "slab_2d1d_r2c".
inline constexpr auto decomp_transform_name = [](const auto& pi) {
  std::string s = to_string(std::get<0>(pi.param)) + "_" + to_string(std::get<1>(pi.param));
  for (auto& ch : s)
    if (ch == '-') ch = '_';
  return s;
};

/// Outcome of running `f` on every rank where a dfft::Error is expected.
struct Outcome {
  int ranks_with_error = 0;  // over all ranks
  bool other_exception = false;
  std::string what, call;
  long code = -1;
  int rank = -2;
};

inline Outcome run_collective(const std::function<void()>& f) {
  Outcome o;
  int mine = 0;
  try {
    f();
  } catch (const dfft::Error& e) {
    mine = 1;
    o.what = e.what();
    o.call = e.call();
    o.code = e.code();
    o.rank = e.rank();
  } catch (const std::exception& e) {
    o.other_exception = true;
    o.what = e.what();
  }
  MPI_Allreduce(&mine, &o.ranks_with_error, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return o;
}

/// Every rank must throw a dfft::Error whose message contains `needle`.
inline void expect_error_everywhere(const std::function<void()>& f, const std::string& needle) {
  Outcome o = run_collective(f);
  EXPECT_FALSE(o.other_exception) << o.what;
  EXPECT_EQ(o.ranks_with_error, world_size()) << "only some ranks (or none) threw";
  EXPECT_THAT(o.what, ::testing::HasSubstr(needle));
  EXPECT_TRUE(all_ranks(o.what.find(needle) != std::string::npos))
      << "some rank's message lacks '" << needle << "'";
  EXPECT_EQ(o.rank, world_rank());
}

/// Balanced block partition written here independently of src/plan/geometry.cpp.
struct Part {
  std::int64_t lo, hi;
};
inline Part part(std::int64_t n, int parts, int p) {
  const std::int64_t q = n / parts, r = n % parts;
  const std::int64_t lo = q * p + (p < r ? p : r);
  return {lo, lo + q + (p < r ? 1 : 0)};
}

inline std::int64_t product(const Shape& s) {
  std::int64_t n = 1;
  for (auto v : s) n *= v;
  return n;
}

/// Row-major linear index of a global index.
inline std::int64_t linear(const Shape& idx, const Shape& shape) {
  std::int64_t i = 0;
  for (std::size_t a = 0; a < shape.size(); ++a) i = i * shape[a] + idx[a];
  return i;
}

/// Offset of global index `idx` in a local array with this box, memory order and padding.
inline std::int64_t local_offset(const dfft::Layout& l, const Shape& idx) {
  std::int64_t off = 0;
  for (int ax : l.order) {
    const std::int64_t ext = l.padded.empty() ? l.box.hi[ax] - l.box.lo[ax] : l.padded[ax];
    off = off * ext + (idx[ax] - l.box.lo[ax]);
  }
  return off;
}

/// Call f(global index) for every index of `box` (natural order).
template <class F>
void for_box(const dfft::Box& box, F&& f) {
  const int d = box.dims();
  for (int a = 0; a < d; ++a)
    if (box.hi[a] <= box.lo[a]) return;
  Shape idx = box.lo;
  while (true) {
    f(idx);
    int a = d - 1;
    for (; a >= 0; --a) {
      if (++idx[a] < box.hi[a]) break;
      idx[a] = box.lo[a];
    }
    if (a < 0) return;
  }
}

/// Global array assembled from every rank's local piece (each element is owned by one rank,
/// so a sum over ranks places it); available on every rank.
template <class V>
std::vector<cd> gather(const dfft::Layout& l, const Shape& global, const V* local) {
  std::vector<double> flat(2 * static_cast<std::size_t>(product(global)), 0.0);
  for_box(l.box, [&](const Shape& idx) {
    const auto g = static_cast<std::size_t>(linear(idx, global));
    const cd v(local[local_offset(l, idx)]);
    flat[2 * g] = v.real();
    flat[2 * g + 1] = v.imag();
  });
  MPI_Allreduce(MPI_IN_PLACE, flat.data(), static_cast<int>(flat.size()), MPI_DOUBLE, MPI_SUM,
                MPI_COMM_WORLD);
  std::vector<cd> out(flat.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = {flat[2 * i], flat[2 * i + 1]};
  return out;
}

/// How many ranks hold each global element (every entry must be 1 for a distribution).
inline std::vector<int> coverage(const dfft::Box& mine, const Shape& global) {
  std::vector<int> c(static_cast<std::size_t>(product(global)), 0);
  for_box(mine, [&](const Shape& idx) { ++c[static_cast<std::size_t>(linear(idx, global))]; });
  MPI_Allreduce(MPI_IN_PLACE, c.data(), static_cast<int>(c.size()), MPI_INT, MPI_SUM,
                MPI_COMM_WORLD);
  return c;
}

/// Deterministic test signal of a global linear index, independent of dfft::validate.
inline double signal(std::int64_t i, int seed) {
  const double x = static_cast<double>(i);
  return std::sin(0.37 * x + seed) + 0.5 * std::cos(1.91 * x * (seed + 1)) + 0.01 * seed;
}

/// Relative L2 distance of two global arrays.
inline double rel_l2(const std::vector<cd>& got, const std::vector<cd>& want) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    num += std::norm(got[i] - want[i]);
    den += std::norm(want[i]);
  }
  return std::sqrt(num / (den > 0 ? den : 1));
}

template <class T>
constexpr double ref_tol() {
  return std::is_same_v<T, double> ? 1e-12 : 1e-5;
}
template <class T>
constexpr double lap_tol() {
  return std::is_same_v<T, double> ? 1e-10 : 1e-4;
}

}  // namespace dfft_test
