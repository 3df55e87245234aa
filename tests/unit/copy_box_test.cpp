// SPDX-License-Identifier: MIT
// Host copy_box (pack, unpack, local transpose) against a naive element-by-element copy, for
// random boxes, random memory orders and 4/8/16-byte elements.
#include <gtest/gtest.h>

#include "layout_util.hpp"

#include <algorithm>
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

template <std::size_t N>
void run_random_copies(unsigned seed) {
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
    dfft::detail::host_copy_box(src.data(), s.src, dst.data(), s.dst, s.box, N);
    ASSERT_EQ(dst, want) << "iteration " << it << " elem " << N << " dims " << s.box.dims();
  }
}

TEST(CopyBox, Random4ByteElements) { run_random_copies<4>(1); }
TEST(CopyBox, Random8ByteElements) { run_random_copies<8>(2); }
TEST(CopyBox, Random16ByteElements) { run_random_copies<16>(3); }

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
