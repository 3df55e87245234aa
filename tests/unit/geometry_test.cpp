// SPDX-License-Identifier: MIT
// Geometry: balanced decomposition, grids, boxes, layouts, contiguity, message splitting.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "exec/overlap.hpp"
#include "plan/geometry.hpp"
#include "transport/transport.hpp"

namespace {

using dfft::Box;
using dfft::Layout;
using namespace dfft::detail;
using V = std::vector<std::int64_t>;

TEST(Decompose, BalancedAndCovering) {
  for (std::int64_t n = 0; n <= 60; ++n)
    for (int parts = 1; parts <= 13; ++parts) {
      std::int64_t next = 0;
      for (int p = 0; p < parts; ++p) {
        Range r = decompose(n, parts, p);
        EXPECT_EQ(r.lo, next) << n << "/" << parts << " part " << p;
        // The first n % parts parts get one more element.
        EXPECT_EQ(r.hi - r.lo, n / parts + (p < n % parts ? 1 : 0)) << n << "/" << parts << " part " << p;
        next = r.hi;
      }
      EXPECT_EQ(next, n);
    }
}

TEST(Decompose, LargeSizesUse64Bits) {
  const std::int64_t n = (std::int64_t{1} << 35) + 5;  // beyond 32-bit counts
  std::int64_t next = 0;
  for (int p = 0; p < 7; ++p) {
    Range r = decompose(n, 7, p);
    EXPECT_EQ(r.lo, next);
    EXPECT_EQ(r.hi - r.lo, n / 7 + (p < n % 7 ? 1 : 0));
    next = r.hi;
  }
  EXPECT_EQ(next, n);
}

TEST(FactorGrid, ProductDescendingBalanced) {
  EXPECT_EQ(factor_grid(12, 2), (std::vector<int>{4, 3}));
  EXPECT_EQ(factor_grid(16, 2), (std::vector<int>{4, 4}));
  EXPECT_EQ(factor_grid(8, 3), (std::vector<int>{2, 2, 2}));
  EXPECT_EQ(factor_grid(7, 2), (std::vector<int>{7, 1}));
  EXPECT_EQ(factor_grid(1, 2), (std::vector<int>{1, 1}));
  EXPECT_EQ(factor_grid(4, 2), (std::vector<int>{2, 2}));
  EXPECT_EQ(factor_grid(6, 1), (std::vector<int>{6}));
  for (int p = 1; p <= 64; ++p)
    for (int dims = 1; dims <= 4; ++dims) {
      auto g = factor_grid(p, dims);
      ASSERT_EQ(static_cast<int>(g.size()), dims);
      int prod = 1;
      for (int f : g) {
        EXPECT_GE(f, 1);
        prod *= f;
      }
      EXPECT_EQ(prod, p) << p << " in " << dims << " dims";
      EXPECT_TRUE(std::is_sorted(g.begin(), g.end(), std::greater<>())) << p;
    }
}

TEST(Grid, CoordsRankRoundTripRowMajor) {
  EXPECT_EQ(grid_coords({2, 3}, 4), (std::vector<int>{1, 1}));
  EXPECT_EQ(grid_coords({2, 3}, 2), (std::vector<int>{0, 2}));  // last dimension fastest
  EXPECT_EQ(grid_rank({2, 3}, {1, 0}), 3);
  for (const auto& grid : std::vector<std::vector<int>>{{1}, {5}, {2, 3}, {3, 1}, {1, 4}, {2, 1, 3}, {2, 2, 2, 2}}) {
    int total = 1;
    for (int g : grid) total *= g;
    std::set<std::vector<int>> seen;
    for (int r = 0; r < total; ++r) {
      auto c = grid_coords(grid, r);
      ASSERT_EQ(c.size(), grid.size());
      for (std::size_t d = 0; d < grid.size(); ++d) {
        EXPECT_GE(c[d], 0);
        EXPECT_LT(c[d], grid[d]);
      }
      EXPECT_EQ(grid_rank(grid, c), r);
      seen.insert(c);
    }
    EXPECT_EQ(static_cast<int>(seen.size()), total);
  }
}

TEST(BoxTest, CountEmptyIntersect) {
  Box a{{0, 2, 4}, {5, 7, 9}};
  EXPECT_EQ(a.count(), 5 * 5 * 5);
  EXPECT_FALSE(a.empty());
  Box b{{3, 0, 8}, {10, 3, 12}};
  Box i = intersect(a, b);
  EXPECT_EQ(i, (Box{{3, 2, 8}, {5, 3, 9}}));
  EXPECT_EQ(i.count(), 2 * 1 * 1);
  Box far{{6, 0, 0}, {8, 10, 10}};  // disjoint in axis 0
  Box none = intersect(a, far);
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.count(), 0);
  for (int ax = 0; ax < 3; ++ax) EXPECT_GE(none.hi[ax], none.lo[ax]);
  Box touching{{5, 2, 4}, {6, 7, 9}};  // shares only a face: half-open boxes do not overlap
  EXPECT_TRUE(intersect(a, touching).empty());
  EXPECT_EQ(intersect(a, a), a);
  Box inner{{1, 3, 5}, {2, 4, 6}};
  EXPECT_EQ(intersect(a, inner), inner);
  EXPECT_EQ(intersect(inner, a), inner);
}

TEST(BoxTest, BoxOfFollowsDistribution) {
  // 3-D array split over a 2x3 grid, grid dim 0 splits axis 0, grid dim 1 splits axis 2.
  const V shape{5, 4, 7};
  Box b = box_of(shape, {0, 2}, {2, 3}, {1, 2});
  EXPECT_EQ(b, (Box{{3, 0, 5}, {5, 4, 7}}));
  Box full = box_of(shape, {-1}, {4}, {3});  // -1: the grid dimension splits nothing
  EXPECT_EQ(full, (Box{{0, 0, 0}, shape}));
}

TEST(LayoutTest, StridesAndOffsets) {
  Layout nat{{{2, 3, 4}, {5, 7, 9}}, {0, 1, 2}, {}};  // extents 3 x 4 x 5
  EXPECT_EQ(nat.strides(), (V{20, 5, 1}));
  EXPECT_EQ(nat.offset_of({2, 3, 4}), 0);
  EXPECT_EQ(nat.offset_of({3, 4, 5}), 26);
  EXPECT_EQ(nat.offset_of({4, 6, 8}), 59);  // last element
  Layout yxz{nat.box, {1, 0, 2}, {}};  // y slowest, z fastest
  EXPECT_EQ(yxz.strides(), (V{5, 15, 1}));
  EXPECT_EQ(yxz.offset_of({3, 4, 5}), 5 + 15 + 1);
  Layout zyx{nat.box, {2, 1, 0}, {}};  // fully reversed: x fastest
  EXPECT_EQ(zyx.strides(), (V{1, 3, 12}));
  // Every order maps the box one-to-one onto [0, count).
  std::vector<int> order{0, 1, 2};
  do {
    Layout l{nat.box, order, {}};
    std::set<std::int64_t> offs;
    for (std::int64_t x = 2; x < 5; ++x)
      for (std::int64_t y = 3; y < 7; ++y)
        for (std::int64_t z = 4; z < 9; ++z) offs.insert(l.offset_of({x, y, z}));
    EXPECT_EQ(offs.size(), 60u);
    EXPECT_EQ(*offs.begin(), 0);
    EXPECT_EQ(*offs.rbegin(), 59);
  } while (std::next_permutation(order.begin(), order.end()));
  EXPECT_EQ(natural_order(4), (std::vector<int>{0, 1, 2, 3}));
}

TEST(Contiguity, HandMadeCases) {
  Layout l{{{0, 0, 0}, {4, 5, 6}}, {0, 1, 2}, {}};
  EXPECT_TRUE(is_contiguous(l.box, l));
  EXPECT_TRUE(is_contiguous({{1, 0, 0}, {3, 5, 6}}, l));   // rows of whole planes
  EXPECT_TRUE(is_contiguous({{2, 1, 0}, {3, 4, 6}}, l));   // one x, some whole z-lines
  EXPECT_TRUE(is_contiguous({{2, 3, 1}, {3, 4, 5}}, l));   // part of one z-line
  EXPECT_FALSE(is_contiguous({{1, 1, 0}, {3, 4, 6}}, l));  // y partial under two x
  EXPECT_FALSE(is_contiguous({{2, 1, 1}, {3, 3, 5}}, l));  // z partial under two y
  EXPECT_TRUE(is_contiguous({{1, 1, 1}, {1, 3, 5}}, l));   // empty
  // The same box in another memory order: y slowest.
  Layout y{l.box, {1, 0, 2}, {}};
  EXPECT_TRUE(is_contiguous({{0, 1, 0}, {4, 3, 6}}, y));   // a y-slab is one run
  EXPECT_FALSE(is_contiguous({{0, 1, 0}, {4, 3, 6}}, l));  // ... but not in natural order
  EXPECT_FALSE(is_contiguous({{1, 0, 0}, {3, 5, 6}}, y));
}

TEST(SameImage, HandMadeCases) {
  Layout dst{{{0, 0, 0}, {4, 5, 6}}, {0, 1, 2}, {}};
  Box block{{1, 0, 0}, {3, 5, 6}};  // contiguous in dst
  EXPECT_TRUE(same_image(block, {0, 1, 2}, dst));
  EXPECT_FALSE(same_image(block, {1, 0, 2}, dst));  // wire walks y before x
  EXPECT_FALSE(same_image(block, {0, 2, 1}, dst));
  // Axes with extent one do not matter for the order.
  Box line{{2, 3, 0}, {3, 4, 6}};
  EXPECT_TRUE(same_image(line, {2, 1, 0}, dst));
  Box plane{{2, 0, 0}, {3, 5, 6}};
  EXPECT_TRUE(same_image(plane, {1, 0, 2}, dst));
  EXPECT_FALSE(same_image(plane, {2, 0, 1}, dst));
  // Not contiguous in the destination: never the same image.
  Box scattered{{1, 1, 0}, {3, 4, 6}};
  EXPECT_FALSE(same_image(scattered, {0, 1, 2}, dst));
}

TEST(SplitBox, PiecesDisjointCoveringWithinLimit) {
  std::mt19937 rng(7);
  for (int it = 0; it < 400; ++it) {
    const int d = 1 + static_cast<int>(rng() % 4);
    Box b{V(d), V(d)};
    for (int a = 0; a < d; ++a) {
      b.lo[a] = rng() % 5;
      b.hi[a] = b.lo[a] + 1 + rng() % 7;
    }
    const std::int64_t limit = it % 10 == 0 ? b.count() + static_cast<std::int64_t>(rng() % 3)
                                            : static_cast<std::int64_t>(rng() % 40);
    auto pieces = split_box(b, limit);
    std::int64_t total = 0;
    std::set<V> seen;
    for (const Box& p : pieces) {
      EXPECT_FALSE(p.empty());
      EXPECT_LE(p.count(), std::max<std::int64_t>(1, limit));
      EXPECT_EQ(intersect(p, b), p) << "piece outside the box";
      total += p.count();
      // Enumerate the piece's elements: none may appear twice.
      V idx = p.lo;
      while (true) {
        EXPECT_TRUE(seen.insert(idx).second) << "pieces overlap";
        int a = d - 1;
        for (; a >= 0; --a) {
          if (++idx[a] < p.hi[a]) break;
          idx[a] = p.lo[a];
        }
        if (a < 0) break;
      }
    }
    EXPECT_EQ(total, b.count());
    EXPECT_EQ(static_cast<std::int64_t>(seen.size()), b.count());
    if (limit >= b.count()) {
      ASSERT_EQ(pieces.size(), 1u);
      EXPECT_EQ(pieces[0], b);
    }
    // Both ends of a message compute the pieces independently: must be deterministic.
    auto again = split_box(b, limit);
    ASSERT_EQ(again.size(), pieces.size());
    for (std::size_t i = 0; i < pieces.size(); ++i) EXPECT_EQ(again[i], pieces[i]);
  }
}

// Overlap slices start at even offsets from the box start (cuFFT needs real pointers aligned
// to the complex element), tile the box in order, and may be empty.
TEST(SliceView, EvenBoundariesTileTheBox) {
  for (std::int64_t n : {1, 2, 3, 5, 9, 17, 64})
    for (int parts : {1, 2, 3, 4, 8, 20}) {
      dfft::Layout l{dfft::Box{{0, 3, 0}, {5, 3 + n, 9}}, {0, 1, 2}, {}};
      std::int64_t next = 3;
      for (int i = 0; i < parts; ++i) {
        dfft::Layout v = dfft::detail::slice_view(l, 1, parts, i);
        EXPECT_EQ(v.box.lo[1], next) << n << " " << parts << " " << i;
        EXPECT_LE(v.box.lo[1], v.box.hi[1]);
        if (!v.box.empty()) {
          EXPECT_EQ(dfft::detail::view_offset(l, v, 4) % 8, 0);
        }
        next = v.box.hi[1];
      }
      EXPECT_EQ(next, 3 + n);
    }
}

TEST(SliceView, TaperedSlicesTileTheBoxWithHalfSizedEnds) {
  for (std::int64_t n : {1, 2, 5, 17, 64, 1024})
    for (int parts : {1, 2, 3, 4, 8, 20}) {
      dfft::Layout l{dfft::Box{{0, 0, 2}, {4, 6, 2 + n}}, {0, 1, 2}, {}};
      std::int64_t next = 2;
      std::vector<std::int64_t> ext;
      for (int i = 0; i < parts; ++i) {
        dfft::Layout v = dfft::detail::slice_view(l, 2, parts, i, true);
        EXPECT_EQ(v.box.lo[2], next) << n << " " << parts << " " << i;
        EXPECT_LE(v.box.lo[2], v.box.hi[2]);
        if (!v.box.empty()) {
          EXPECT_EQ(dfft::detail::view_offset(l, v, 4) % 8, 0);
        }
        ext.push_back(v.box.extent(2));
        next = v.box.hi[2];
      }
      EXPECT_EQ(next, 2 + n);
      if (n == 1024 && parts >= 3) {  // weights 1, 2, ..., 2, 1 (up to the even rounding)
        const double unit = 1024.0 / (2 * parts - 2);
        EXPECT_NEAR(static_cast<double>(ext.front()), unit, 2) << parts;
        EXPECT_NEAR(static_cast<double>(ext.back()), unit, 2) << parts;
        EXPECT_NEAR(static_cast<double>(ext[1]), 2 * unit, 2) << parts;
      }
      if (n == 1024 && parts == 2) {
        EXPECT_EQ(ext.front(), 512);  // two slices: no taper
      }
    }
}

// Coded blocks are 16 + 4n (fp16, bf16) or 16 + 8n (fp32) bytes; in a staging buffer each must
// start on 16 bytes, where the GPU codec writes the header's double and 8-byte values (3 ranks
// sharing a GPU with bf16 otherwise stop on "misaligned address", and the others hang).
TEST(CodedStaging, BlocksStartOn16Bytes) {
  dfft::detail::ExchangeSpec s;
  for (int k = 0; k < 3; ++k) {  // x-slabs of 3, 3, 2 rows -> y-slabs of 5, 5, 3 rows (odd counts)
    const std::int64_t x0 = k * 3, x1 = std::min<std::int64_t>(8, x0 + 3);
    const std::int64_t y0 = 5 * k, y1 = std::min<std::int64_t>(13, y0 + 5);
    s.src.push_back({dfft::Box{{x0, 0, 0}, {x1, 13, 3}}, {0, 1, 2}, {}});
    s.dst.push_back({dfft::Box{{0, y0, 0}, {8, y1, 3}}, {0, 1, 2}, {}});
  }
  for (auto codec : {dfft::Codec::bf16, dfft::Codec::fp16, dfft::Codec::fp32}) {
    s.codec = codec;
    for (int me = 0; me < 3; ++me) {
      s.me = me;
      const dfft::detail::Blocks b(s);
      bool odd_block = false;
      for (int k = 0; k < 3; ++k) {
        EXPECT_EQ(b.stage_send_off[k] % 16, 0) << dfft::to_string(codec) << " " << me << " " << k;
        EXPECT_EQ(b.stage_recv_off[k] % 16, 0) << dfft::to_string(codec) << " " << me << " " << k;
        if (k != me) odd_block |= b.send_bytes[k] % 16 != 0;
      }
      EXPECT_GE(b.stage_send_bytes, b.sent_bytes());
      if (codec != dfft::Codec::fp32 && me == 0) {
        EXPECT_TRUE(odd_block) << "the case should have blocks whose size is not a multiple of 16";
      }
    }
  }
}

}  // namespace
