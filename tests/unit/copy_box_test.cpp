// SPDX-License-Identifier: MIT
// Host copy_box (pack, unpack, local transpose) against a naive element-by-element copy, for
// random boxes, random memory orders and 4/8/16-byte elements.
#include <gtest/gtest.h>

#include "layout_util.hpp"

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <cstring>
#include <numeric>
#include <random>

#include "backend/cpu/copy_box.hpp"

namespace {

using dfft::Box;
using dfft::Layout;
using dfft_unit::elements;
using dfft_unit::offset;
using dfft_unit::random_order;
using dfft_unit::V;

template <class F>
void for_each(const Box& b, F&& f) {
  if (b.empty()) return;
  V idx = b.lo;
  const int d = b.dims();
  while (true) {
    f(idx);
    int a = d - 1;
    for (; a >= 0; --a) {
      if (++idx[a] < b.hi[a]) break;
      idx[a] = b.lo[a];
    }
    if (a < 0) return;
  }
}


// Random layouts of two overlapping boxes and a copy box inside their intersection; sometimes
// the copy box is one of the whole boxes and sometimes the orders match (the memcpy path).
struct Scenario {
  Layout src, dst;
  Box box;
};

Scenario random_scenario(std::mt19937& rng, int it) {
  const int d = 1 + static_cast<int>(rng() % 4);
  Box core{V(d), V(d)};
  for (int a = 0; a < d; ++a) {
    core.lo[a] = rng() % 4;
    core.hi[a] = core.lo[a] + 1 + rng() % (d >= 4 ? 4 : 6);
  }
  auto grow = [&](const Box& b) {
    Box g = b;
    for (int a = 0; a < d; ++a) {
      g.lo[a] -= rng() % 3;
      g.hi[a] += rng() % 3;
    }
    return g;
  };
  Scenario s{{grow(core), random_order(d, rng), {}}, {grow(core), random_order(d, rng), {}}, core};
  if (it % 5 == 0) s.dst.order = s.src.order;
  if (it % 7 == 0) s.dst.box = s.box;
  if (it % 11 == 0) s.src.box = s.box;
  // Shrink the copy box inside the core now and then (partial lines and planes).
  if (it % 3 == 0)
    for (int a = 0; a < d; ++a)
      if (s.box.extent(a) > 1 && rng() % 2) s.box.hi[a] -= 1;
  // Padded allocations (as the in-place r2c layout) on either side now and then.
  for (Layout* l : {&s.src, &s.dst})
    if (rng() % 4 == 0)
      for (int a = 0; a < d; ++a) l->padded.push_back(l->box.extent(a) + static_cast<std::int64_t>(rng() % 3));
  return s;
}

// copy(src, dst, scenario, rng) does the copy under test.
template <std::size_t N, class Copy>
void run_random_copies(unsigned seed, Copy&& copy) {
  std::mt19937 rng(seed);
  for (int it = 0; it < 500; ++it) {
    Scenario s = random_scenario(rng, it);
    const auto ns = elements(s.src), nd = elements(s.dst);
    std::vector<unsigned char> src(ns * N), dst(nd * N), want;
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(rng());
    for (auto& b : dst) b = 0xAB;
    want = dst;
    for_each(s.box, [&](const V& idx) {
      std::memcpy(&want[static_cast<std::size_t>(offset(s.dst, idx)) * N],
                  &src[static_cast<std::size_t>(offset(s.src, idx)) * N], N);
    });
    copy(src.data(), dst.data(), s, rng);
    ASSERT_EQ(dst, want) << "iteration " << it << " elem " << N << " dims " << s.box.dims();
  }
}

template <std::size_t N>
void run_random_copies(unsigned seed) {
  run_random_copies<N>(seed, [](const void* src, void* dst, const Scenario& s, std::mt19937&) {
    dfft::detail::host_copy_box(src, s.src, dst, s.dst, s.box, N);
  });
}

TEST(CopyBox, Random4ByteElements) { run_random_copies<4>(1); }
TEST(CopyBox, Random8ByteElements) { run_random_copies<8>(2); }
TEST(CopyBox, Random16ByteElements) { run_random_copies<16>(3); }

// Threads inside a rank: the same copies cut into 2-7 uneven parts along a random axis and run
// by a team of 3 (more parts than threads, parts of one row more than others, empty parts when
// the axis is shorter than the part count).
template <std::size_t N>
void run_split_copies(unsigned seed) {
  dfft::detail::WorkPool pool(3);
  run_random_copies<N>(seed, [&](const void* src, void* dst, const Scenario& s, std::mt19937& rng) {
    const int axis = static_cast<int>(rng() % static_cast<unsigned>(s.box.dims()));
    const int parts = 2 + static_cast<int>(rng() % 6);
    dfft::detail::host_copy_box_split(src, s.src, dst, s.dst, s.box, N, &pool, axis, parts);
  });
}

TEST(CopyBox, SplitAmongThreads4ByteElements) { run_split_copies<4>(4); }
TEST(CopyBox, SplitAmongThreads16ByteElements) { run_split_copies<16>(5); }

// The parts of a split, run on a team, visit every element of the box exactly once: a split
// that drops a row leaves a zero, one that repeats a row (or a team that runs a part twice)
// leaves a two. A copy alone would not see repeats.
TEST(CopyBox, SplitPartsTileTheBoxOnce) {
  dfft::detail::WorkPool pool(3);
  const Box box{{2, 0, 1}, {19, 12, 11}};  // 17 x 12 x 10
  for (int axis = 0; axis < 3; ++axis)
    for (int parts = 1; parts <= 19; ++parts) {
      std::vector<std::atomic<int>> seen(17 * 12 * 10);
      pool.run(parts, [&](int p) {
        for_each(dfft::detail::box_part(box, axis, parts, p), [&](const V& i) {
          ++seen[static_cast<std::size_t>(((i[0] - 2) * 12 + i[1]) * 10 + (i[2] - 1))];
        });
      });
      for (std::size_t k = 0; k < seen.size(); ++k)
        ASSERT_EQ(seen[k].load(), 1) << "axis " << axis << " parts " << parts << " element " << k;
    }
}

// The first exception of a part reaches the caller, after the whole team has finished.
TEST(CopyBox, TeamRethrowsAPartsException) {
  dfft::detail::WorkPool pool(3);
  std::atomic<int> ran{0};
  EXPECT_THROW(pool.run(8, [&](int p) {
    ++ran;
    if (p == 5) throw std::runtime_error("part 5");
  }), std::runtime_error);
  EXPECT_EQ(ran.load(), 8);
}

TEST(CopyBox, EmptyBoxCopiesNothing) {
  Layout l{{{0, 0}, {3, 3}}, {0, 1}, {}};
  std::vector<double> src(9, 1.0), dst(9, 2.0);
  dfft::detail::host_copy_box(src.data(), l, dst.data(), l, Box{{1, 1}, {1, 3}}, 8);
  EXPECT_EQ(dst, std::vector<double>(9, 2.0));
}

TEST(CopyBox, TransposeOfAPlane) {
  // 3x4 natural -> 4x3 transposed storage of the same box.
  Layout a{{{0, 0}, {3, 4}}, {0, 1}, {}}, t{a.box, {1, 0}, {}};
  std::vector<float> src(12), dst(12, -1);
  std::iota(src.begin(), src.end(), 0.0f);
  dfft::detail::host_copy_box(src.data(), a, dst.data(), t, a.box, 4);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(dst[j * 3 + i], src[i * 4 + j]);
}

}  // namespace
