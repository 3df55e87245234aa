// SPDX-License-Identifier: MIT
// The planner: distributions, FFT axes and memory orders per decomposition and variant, and the
// pack/unpack needs each exchange derives from its layouts (thesis chapter 4).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plan/path.hpp"
#include "transport/transport.hpp"

namespace {

using namespace dfft;
using namespace dfft::detail;
using Shape = std::vector<std::int64_t>;
using Order = std::vector<int>;

Options opts(Decomposition d, Variant v, Transform t = Transform::r2c) {
  Options o;
  o.decomposition = d;
  o.variant = v;
  o.transform = t;
  return o;
}

std::vector<const FftStep*> ffts(const Path& p) {
  std::vector<const FftStep*> v;
  for (const auto& s : p.steps)
    if (s.kind == Step::Kind::fft) v.push_back(&s.fft);
  return v;
}
std::vector<const ExchangeStep*> exchanges(const Path& p) {
  std::vector<const ExchangeStep*> v;
  for (const auto& s : p.steps)
    if (s.kind == Step::Kind::exchange) v.push_back(&s.exchange);
  return v;
}

/// Paths of every rank of `grid`.
std::vector<Path> all_paths(const Shape& shape, const Options& o, const std::vector<int>& grid) {
  int total = 1;
  for (int g : grid) total *= g;
  std::vector<Path> v;
  for (int r = 0; r < total; ++r) v.push_back(make_path(shape, o, grid, r));
  return v;
}

struct Needs {
  bool any_pack = false, any_unpack = false;
};
/// Pack/unpack needs of exchange `x` (path order) over all ranks, as the transports see them.
Needs needs(const std::vector<Path>& paths, std::size_t x) {
  Needs n;
  for (const auto& p : paths) {
    const ExchangeStep& e = *exchanges(p)[x];
    ExchangeSpec s{e.src, e.dst, e.me, 16};
    Blocks b(s);
    n.any_pack |= b.any_pack;
    n.any_unpack |= b.any_unpack;
  }
  return n;
}

// Steps alternate FFT / exchange, and each exchange joins the layouts around it.
void expect_consistent(const Path& p) {
  ASSERT_EQ(p.steps.size() % 2, 1u);
  for (std::size_t k = 0; k < p.steps.size(); ++k) {
    ASSERT_EQ(p.steps[k].kind, k % 2 ? Step::Kind::exchange : Step::Kind::fft);
    if (k % 2 == 0) continue;
    const auto& e = p.steps[k].exchange;
    const auto& before = p.steps[k - 1].fft.out;
    const auto& after = p.steps[k + 1].fft.in;
    EXPECT_EQ(e.src[e.me].box, before.box);
    EXPECT_EQ(e.src[e.me].order, before.order);
    EXPECT_EQ(e.dst[e.me].box, after.box);
    EXPECT_EQ(e.dst[e.me].order, after.order);
  }
  EXPECT_EQ(p.input.order, natural_order(p.input.box.dims()));
  EXPECT_EQ(p.output.order, natural_order(p.output.box.dims()));
}

TEST(Path, SpectralShape) {
  EXPECT_EQ(spectral_shape({17, 12, 10}, Transform::r2c), (Shape{17, 12, 6}));
  EXPECT_EQ(spectral_shape({17, 12, 9}, Transform::r2c), (Shape{17, 12, 5}));
  EXPECT_EQ(spectral_shape({17, 12, 10}, Transform::c2c), (Shape{17, 12, 10}));
}

TEST(Path, ChooseGrid) {
  EXPECT_EQ(choose_grid(Decomposition::slab_2d1d, {}, 4, 3), (std::vector<int>{4}));
  EXPECT_EQ(choose_grid(Decomposition::pencil, {}, 6, 3), factor_grid(6, 2));
  EXPECT_EQ(choose_grid(Decomposition::pencil, {}, 4, 2), (std::vector<int>{4}));
  EXPECT_EQ(choose_grid(Decomposition::pencil, {1, 4}, 4, 3), (std::vector<int>{1, 4}));
  EXPECT_EQ(choose_grid(Decomposition::pencil, {2, 1, 2}, 4, 4), (std::vector<int>{2, 1, 2}));
  try {
    choose_grid(Decomposition::pencil, {3, 2}, 4, 3);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("grid 3x2 has 6 ranks but the communicator has 4"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("e.g. 2x2"));
  }
}

TEST(Path, Slab2d1d) {
  for (auto v : {Variant::Default, Variant::Realigned}) {
    auto paths = all_paths({17, 12, 10}, opts(Decomposition::slab_2d1d, v), {3});
    for (const auto& p : paths) {
      expect_consistent(p);
      EXPECT_EQ(p.distributions, (std::vector<Distribution>{{0}, {1}}));
      auto f = ffts(p);
      ASSERT_EQ(f.size(), 2u);
      EXPECT_EQ(f[0]->axes, (Order{1, 2}));
      EXPECT_EQ(f[1]->axes, (Order{0}));
      EXPECT_TRUE(f[0]->r2c);
      EXPECT_FALSE(f[1]->r2c);
      EXPECT_EQ(f[0]->in.box.hi[2] - f[0]->in.box.lo[2], 10);  // real side
      EXPECT_EQ(f[0]->out.box.hi[2] - f[0]->out.box.lo[2], 6);  // n/2+1
      // Realigned: the first FFT writes the axis the exchange splits (y) slowest.
      EXPECT_EQ(f[0]->out.order, (v == Variant::Realigned ? Order{1, 0, 2} : Order{0, 1, 2}));
      EXPECT_EQ(exchanges(p)[0]->grid_dim, 0);
      EXPECT_EQ(exchanges(p)[0]->src.size(), 3u);
    }
    // Thesis: Default packs and needs no unpack; Realigned needs no pack but unpacks.
    Needs n = needs(paths, 0);
    EXPECT_EQ(n.any_pack, v == Variant::Default);
    EXPECT_EQ(n.any_unpack, v == Variant::Realigned);
  }
}

TEST(Path, Slab1d2d) {
  for (auto v : {Variant::Default, Variant::Realigned}) {
    auto paths = all_paths({17, 12, 10}, opts(Decomposition::slab_1d2d, v), {3});
    for (const auto& p : paths) {
      expect_consistent(p);
      EXPECT_EQ(p.distributions, (std::vector<Distribution>{{0}, {2}}));
      auto f = ffts(p);
      ASSERT_EQ(f.size(), 2u);
      EXPECT_EQ(f[0]->axes, (Order{2}));
      EXPECT_EQ(f[1]->axes, (Order{0, 1}));
      EXPECT_EQ(f[0]->out.order, (v == Variant::Realigned ? Order{2, 0, 1} : Order{0, 1, 2}));
    }
    Needs n = needs(paths, 0);
    EXPECT_EQ(n.any_pack, v == Variant::Default);
    EXPECT_EQ(n.any_unpack, v == Variant::Realigned);
  }
}

TEST(Path, Pencil) {
  for (auto v : {Variant::Default, Variant::Realigned}) {
    auto paths = all_paths({17, 12, 10}, opts(Decomposition::pencil, v, Transform::c2c), {2, 3});
    for (const auto& p : paths) {
      expect_consistent(p);
      EXPECT_EQ(p.distributions, (std::vector<Distribution>{{0, 1}, {0, 2}, {1, 2}}));
      auto f = ffts(p);
      ASSERT_EQ(f.size(), 3u);
      EXPECT_EQ(f[0]->axes, (Order{2}));
      EXPECT_EQ(f[1]->axes, (Order{1}));
      EXPECT_EQ(f[2]->axes, (Order{0}));
      auto x = exchanges(p);
      EXPECT_EQ(x[0]->grid_dim, 1);  // rows first (within P2), then columns (within P1)
      EXPECT_EQ(x[1]->grid_dim, 0);
      EXPECT_EQ(x[0]->src.size(), 3u);
      EXPECT_EQ(x[1]->src.size(), 2u);
      if (v == Variant::Realigned) {  // the axis each exchange splits next is written slowest
        EXPECT_EQ(f[0]->out.order[0], 2);
        EXPECT_EQ(f[1]->out.order[0], 1);
      } else {
        EXPECT_EQ(f[0]->out.order, (Order{0, 1, 2}));
        EXPECT_EQ(f[1]->out.order, (Order{0, 1, 2}));
      }
    }
    // Thesis 4.4: Default packs and unpacks in the first exchange, only packs in the second;
    // Realigned never packs and unpacks in both.
    Needs first = needs(paths, 0), second = needs(paths, 1);
    if (v == Variant::Default) {
      EXPECT_TRUE(first.any_pack);
      EXPECT_TRUE(first.any_unpack);
      EXPECT_TRUE(second.any_pack);
      EXPECT_FALSE(second.any_unpack);
    } else {
      EXPECT_FALSE(first.any_pack);
      EXPECT_TRUE(first.any_unpack);
      EXPECT_FALSE(second.any_pack);
      EXPECT_TRUE(second.any_unpack);
    }
  }
}

TEST(Path, TwoDimensional) {
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil}) {
    auto p = make_path({17, 12}, opts(dec, Variant::Realigned), {4}, 1);
    expect_consistent(p);
    EXPECT_EQ(p.distributions, (std::vector<Distribution>{{0}, {1}}));
    auto f = ffts(p);
    EXPECT_EQ(f[0]->axes, (Order{1}));
    EXPECT_EQ(f[1]->axes, (Order{0}));
    EXPECT_EQ(f[0]->out.order, (Order{1, 0}));
  }
}

TEST(Path, FourDimensionalOnThreeDimensionalGrid) {
  for (auto v : {Variant::Default, Variant::Realigned}) {
    auto paths = all_paths({6, 5, 7, 8}, opts(Decomposition::pencil, v), {2, 1, 2});
    for (const auto& p : paths) {
      expect_consistent(p);
      // The exchange over the grid dim of size 1 moves nothing: the FFTs on either side of it
      // (axes 2 and 1) are one step.
      EXPECT_EQ(p.distributions, (std::vector<Distribution>{{0, 1, 2}, {0, 1, 3}, {1, 2, 3}}));
      EXPECT_EQ(p.exchanges, 3);
      auto f = ffts(p);
      ASSERT_EQ(f.size(), 3u);
      EXPECT_EQ(f[0]->axes, (Order{3}));
      EXPECT_EQ(f[1]->axes, (Order{1, 2}));
      EXPECT_EQ(f[2]->axes, (Order{0}));
      auto x = exchanges(p);
      ASSERT_EQ(x.size(), 2u);
      EXPECT_EQ(x[0]->grid_dim, 2);
      EXPECT_EQ(x[1]->grid_dim, 0);
      EXPECT_EQ(x[0]->index, 0);  // methods[0] and methods[2] of a list of three
      EXPECT_EQ(x[1]->index, 2);
      if (v == Variant::Realigned) {
        // Before each exchange the axis it splits is written slowest.
        EXPECT_EQ(f[0]->out.order[0], 3);
        EXPECT_EQ(f[1]->out.order[0], 1);
      }
    }
    for (std::size_t i : {0u, 1u}) {
      Needs n = needs(paths, i);
      EXPECT_EQ(n.any_pack, v == Variant::Default) << "exchange " << i;
      EXPECT_TRUE(n.any_unpack || v == Variant::Default) << "exchange " << i;
    }
  }
  // A 2-D grid on a 4-D array: the first FFT covers the two unsplit axes.
  auto p = make_path({6, 5, 7, 8}, opts(Decomposition::pencil, Variant::Default), {2, 2}, 1);
  EXPECT_EQ(ffts(p)[0]->axes, (Order{2, 3}));
  EXPECT_EQ(p.distributions, (std::vector<Distribution>{{0, 1}, {0, 2}, {1, 2}}));
}

// On one rank every exchange moves nothing: one FFT over all axes, whatever the decomposition
// (the batch axis stays untransformed); cuFFT plans at most 3 axes, so a 4-D array keeps one
// exchange there.
TEST(Path, OneRankIsOneFft) {
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil})
    for (auto t : {Transform::r2c, Transform::c2c}) {
      auto o = opts(dec, Variant::Realigned, t);
      auto p = make_path({17, 12, 10}, o, choose_grid(dec, {}, 1, 3), 0);
      ASSERT_EQ(p.steps.size(), 1u);
      EXPECT_EQ(p.steps[0].fft.axes, (Order{0, 1, 2}));
      EXPECT_EQ(p.steps[0].fft.r2c, t == Transform::r2c);
      EXPECT_EQ(p.input.box.hi, (Shape{17, 12, 10}));
      EXPECT_EQ(p.output.box.hi, (Shape{17, 12, t == Transform::r2c ? 6 : 10}));
      EXPECT_EQ(describe(p).find("exchange"), std::string::npos);
      o.batch = 3;
      p = make_path({17, 12, 10}, o, choose_grid(dec, {}, 1, 3), 0);
      ASSERT_EQ(p.steps.size(), 1u);
      EXPECT_EQ(p.steps[0].fft.axes, (Order{1, 2, 3}));
    }
  auto o = opts(Decomposition::pencil, Variant::Default);
  o.backend = Backend::cuda;
  auto p = make_path({6, 5, 7, 8}, o, {1, 1}, 0);
  auto f = ffts(p);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0]->axes, (Order{1, 2, 3}));
  EXPECT_EQ(f[1]->axes, (Order{0}));
  ASSERT_EQ(exchanges(p).size(), 1u);
  EXPECT_EQ(exchanges(p)[0]->index, 1);
}

TEST(Path, InputAndOutputBoxesTileTheArrays) {
  const Shape shape{17, 12, 10};
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil}) {
    std::vector<int> grid = dec == Decomposition::pencil ? std::vector<int>{3, 2} : std::vector<int>{5};
    std::int64_t in = 0, out = 0;
    auto paths = all_paths(shape, opts(dec, Variant::Default), grid);
    for (std::size_t a = 0; a < paths.size(); ++a) {
      in += paths[a].input.box.count();
      out += paths[a].output.box.count();
      for (std::size_t b = a + 1; b < paths.size(); ++b) {
        EXPECT_TRUE(intersect(paths[a].input.box, paths[b].input.box).empty());
        EXPECT_TRUE(intersect(paths[a].output.box, paths[b].output.box).empty());
      }
    }
    EXPECT_EQ(in, 17 * 12 * 10);
    EXPECT_EQ(out, 17 * 12 * 6);
  }
}

TEST(Path, RejectsSizesTheGridCannotSplit) {
  try {
    make_path({3, 12, 10}, opts(Decomposition::slab_2d1d, Variant::Default), {4}, 0);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("axis 0 has 3 elements but slab-2d1d splits it over 4 ranks"));
  }
}

}  // namespace
