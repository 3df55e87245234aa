// SPDX-License-Identifier: MIT
// dfft::Halo against a serial reference written here: the halo'd array of every rank must hold
// the global array padded as numpy.pad does it, "wrap" along periodic axes, and the caller's
// fill (untouched) beyond the ends of non-periodic axes and, without corners, in the edge and
// corner regions. Layouts: the slab and pencil blocks of plans (input and output side), random
// user boxes with shuffled memory orders and empty boxes; odd sizes, widths 1 and 2, lopsided,
// wider than a block and wider than the global array; plus the refusals.
#include <complex>
#include <memory>

#include "dfft/halo.hpp"
#include "features/feature_util.hpp"

namespace dfft_test {
namespace {

constexpr double kFill = -7.5;  // what the test writes into the halo before an exchange

/// The reference value of global (unwrapped) index `g` in the halo'd array of box `box`:
/// numpy.pad(mode="wrap") on periodic axes, the fill elsewhere.
template <class V>
V reference(const Shape& g, const Box& box, const Shape& shape, const dfft::HaloSpec& s, int seed) {
  Shape w(g.size());
  int outside = 0;
  for (std::size_t a = 0; a < g.size(); ++a) {
    const std::int64_t n = shape[a];
    outside += g[a] < box.lo[a] || g[a] >= box.hi[a];
    const bool periodic = s.periodic.empty() || s.periodic[a];
    if (!periodic && (g[a] < 0 || g[a] >= n)) return V(kFill);
    w[a] = ((g[a] % n) + n) % n;
  }
  if (outside > 1 && !s.corners) return V(kFill);
  return value_at<V>(linear(w, shape), seed);
}

/// Fills the interior of this rank's halo'd array, exchanges, and compares every cell with the
/// reference. `mine` is this rank's layout; the halo'd array's box is computed here.
/// `on_backend`: the array lives in the backend's memory (a GPU's with --backend=cuda).
template <class V>
void check(const dfft::Halo<V>& h, const Layout& mine, const Shape& shape, const dfft::HaloSpec& s,
           const std::string& what, bool on_backend = false) {
  SCOPED_TRACE(what);
  const int d = static_cast<int>(shape.size());
  const Shape hi = s.hi.empty() ? s.lo : s.hi;
  Layout grown = mine;
  if (!mine.box.empty())
    for (int a = 0; a < d; ++a) grown.box.lo[a] -= s.lo[a], grown.box.hi[a] += hi[a];
  ASSERT_TRUE(all_ranks(h.layout().box == grown.box && h.layout().order == grown.order));
  ASSERT_TRUE(all_ranks(h.count() == alloc_elems(grown)));
  ASSERT_TRUE(all_ranks(h.shape() == shape));
  const int seed = 3;
  std::vector<V> u(static_cast<std::size_t>(h.count()), V(kFill));
  for_box(mine.box, [&](const Shape& g) {
    u[static_cast<std::size_t>(padded_offset(grown, g))] = value_at<V>(linear(g, shape), seed);
  });
  if (on_backend) {
    DevArray<V> dev(u);
    h.exchange(std::span<V>(dev.get(), u.size()));
    u = dev.host();
  } else {
    h.exchange(std::span<V>(u));
  }
  std::int64_t bad = 0;
  Shape first;
  if (!mine.box.empty())
    for_box(grown.box, [&](const Shape& g) {
      const V want = reference<V>(g, mine.box, shape, s, seed);
      if (u[static_cast<std::size_t>(padded_offset(grown, g))] != want && bad++ == 0) first = g;
    });
  std::string at;
  for (auto x : first) at += std::to_string(x) + " ";
  EXPECT_TRUE(all_ranks(bad == 0))
      << bad << " cells differ on rank " << world_rank() << ", first at " << at;
  EXPECT_GE(h.timing().total(), 0.0);
}

struct Case {
  Shape lo, hi;
  std::vector<bool> periodic;
  bool corners;
};

/// Widths 1 and 2, lopsided, periodic and not, with and without corners, for `d` axes.
std::vector<Case> cases(int d) {
  std::vector<Case> v;
  for (bool corners : {false, true}) {
    v.push_back({Shape(d, 1), {}, {}, corners});
    v.push_back({Shape(d, 2), {}, std::vector<bool>(d, false), corners});
    Shape lo(d), hi(d);
    std::vector<bool> p(d);
    for (int a = 0; a < d; ++a) lo[a] = a % 2 + 1, hi[a] = 2 - a % 2, p[a] = a % 2 == 0;
    v.push_back({lo, hi, p, corners});
  }
  return v;
}

dfft::HaloSpec spec_of(const Case& c) { return dfft::HaloSpec{c.lo, c.hi, c.periodic, c.corners}; }

std::string name_of(const Case& c) {
  std::string s = "lo";
  for (auto w : c.lo) s += std::to_string(w);
  if (!c.hi.empty()) {
    s += " hi";
    for (auto w : c.hi) s += std::to_string(w);
  }
  s += " periodic ";
  for (int a = 0; a < static_cast<int>(c.lo.size()); ++a)
    s += c.periodic.empty() || c.periodic[a] ? "y" : "n";
  return s + (c.corners ? " corners" : " faces");
}

class HaloPlanLayouts : public ::testing::TestWithParam<dfft::Decomposition> {};

TEST_P(HaloPlanLayouts, MatchesWrapPaddingOnBothSides) {
  const Shape shape{17, 12, 10};
  dfft::Options o;
  o.decomposition = GetParam();
  o.transform = dfft::Transform::c2c;
  o.effort = dfft::Effort::estimate;
  o.fftw_wisdom = false;
  dfft::Plan<double> plan(MPI_COMM_WORLD, shape, o);
  for (auto side : {dfft::Side::input, dfft::Side::output}) {
    const Layout& l = side == dfft::Side::input ? plan.input_layout() : plan.output_layout();
    const std::string where = side == dfft::Side::input ? "input " : "output ";
    for (const Case& c : cases(3)) {
      dfft::Halo<std::complex<double>> h(plan, side, spec_of(c));
      check(h, l, shape, spec_of(c), where + name_of(c));
      dfft::Halo<std::complex<double>> packed(MPI_COMM_WORLD, l, spec_of(c),
                                              dfft::Method::p2p_sync);
      check(packed, l, shape, spec_of(c), where + "p2p-sync " + name_of(c));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Halo, HaloPlanLayouts,
                         ::testing::Values(dfft::Decomposition::slab_2d1d,
                                           dfft::Decomposition::pencil),
                         [](const auto& p) {
                           return std::string(dfft::to_string(p.param)) == "slab-2d1d" ? "slab"
                                                                                       : "pencil";
                         });

template <class V>
void user_boxes(const Shape& shape, unsigned seed, dfft::Method m = dfft::Method::p2p_type) {
  std::mt19937 g(seed);
  auto ls = random_layouts(shape, g, true);
  for (auto& l : ls) l.padded.clear();  // the halo'd array has its own extent
  const int r = world_rank();
  for (const Case& c : cases(static_cast<int>(shape.size()))) {
    const auto s = spec_of(c);
    dfft::Halo<V> mine(MPI_COMM_WORLD, ls[r], s, m);
    check(mine, ls[r], shape, s, to_string(m) + " this rank's layout, " + name_of(c));
    dfft::Halo<V> all(MPI_COMM_WORLD, ls, s, m);
    check(all, ls[r], shape, s, to_string(m) + " every rank's layouts, " + name_of(c));
  }
}

TEST(Halo, UserBoxes3d) {
  for (unsigned seed : {1u, 2u, 3u}) user_boxes<double>({17, 12, 10}, seed);
  user_boxes<float>({9, 7, 5}, 4);
  user_boxes<std::complex<float>>({9, 7, 5}, 5);
}

TEST(Halo, UserBoxesPacked) {
  user_boxes<double>({17, 12, 10}, 1, dfft::Method::p2p_sync);
  user_boxes<std::complex<float>>({9, 7, 5}, 5, dfft::Method::p2p_sync);
  user_boxes<double>({5, 4, 3, 3}, 7, dfft::Method::p2p_sync);
}

TEST(Halo, UserBoxes2dAnd4d) {
  user_boxes<double>({17, 12}, 6);
  user_boxes<double>({5, 4, 3, 3}, 7);
}

// Halos deeper than the neighbouring blocks (cells come from blocks further on) and deeper than
// the global array (a periodic axis wraps several times); one box across a periodic axis too.
TEST(Halo, WiderThanBlocksAndArray) {
  const Shape shape{17, 6, 3};
  const int p = world_size(), r = world_rank();
  Layout l;
  const auto part0 = part(17, p, r);
  l.box = Box{{part0.lo, 0, 0}, {part0.hi, 6, 3}};
  l.order = {0, 1, 2};
  for (auto m : {dfft::Method::p2p_type, dfft::Method::p2p_sync})
    for (bool corners : {false, true}) {
      const std::string what = to_string(m) + (corners ? " wide, corners" : " wide, faces");
      dfft::HaloSpec s{{9, 2, 7}, {5, 13, 4}, {true, true, true}, corners};
      dfft::Halo<double> h(MPI_COMM_WORLD, l, s, m);
      check(h, l, shape, s, what);
      s.periodic = {false, true, false};
      dfft::Halo<double> h2(MPI_COMM_WORLD, l, s, m);
      check(h2, l, shape, s, what + ", x z open");
    }
}

// The arrays in the memory of the backend under test (GPU memory with --backend=cuda: the
// pieces packed on the device, handed to a CUDA-aware MPI as they are or staged through host
// memory), on the plan's own blocks.
TEST(Halo, OnTheBackendUnderTest) {
  const Shape shape{17, 12, 10};
  for (auto dec : {dfft::Decomposition::slab_2d1d, dfft::Decomposition::pencil}) {
    dfft::Options o = backend_options();
    o.decomposition = dec;
    o.transform = dfft::Transform::c2c;
    o.effort = dfft::Effort::estimate;
    o.fftw_wisdom = false;
    auto plan = make_plan<float>(shape, o);
    if (!plan) continue;  // ranks sharing a GPU where the backend cannot
    for (const Case& c : cases(3)) {
      dfft::Halo<std::complex<float>> h(*plan, dfft::Side::input, spec_of(c));
      // Device buffers go to MPI as they are exactly where the plan's automatic staging says
      // this MPI reads device memory.
      const bool on_gpu = o.backend == dfft::Backend::cuda;
      EXPECT_EQ(h.staging(), on_gpu ? plan->staging() : dfft::Staging::host) << dfft::to_string(dec);
      check(h, plan->input_layout(), shape, spec_of(c), dfft::to_string(dec) + " " + name_of(c),
            true);
    }
  }
}

// Method nccl on the plan's blocks (device arrays, one GPU per rank): the same reference. On
// the CPU backend it is refused; ranks that share a GPU are refused by NCCL, and the test says
// it skipped, with the refusal.
TEST(Halo, NcclOnTheBackendUnderTest) {
  const Shape shape{17, 12, 10};
  dfft::Options o = backend_options();
  o.transform = dfft::Transform::c2c;
  o.effort = dfft::Effort::estimate;
  o.fftw_wisdom = false;
  for (auto dec : {dfft::Decomposition::slab_2d1d, dfft::Decomposition::pencil}) {
    o.decomposition = dec;
    o.methods = {dfft::Method::p2p_sync};  // the plan itself needs no NCCL
    auto plan = make_plan<float>(shape, o);
    if (!plan) return;
    const dfft::HaloSpec first = spec_of(cases(3).front());
    auto make = [&](const dfft::HaloSpec& s) {
      return std::make_unique<dfft::Halo<std::complex<float>>>(plan->comm(), plan->input_layout(), s,
                                                               dfft::Method::nccl, o.backend, plan->device());
    };
    if (o.backend != dfft::Backend::cuda) {
      expect_error_everywhere([&] { make(first); }, "method nccl moves device memory");
      return;
    }
    std::unique_ptr<dfft::Halo<std::complex<float>>> h;
    const Outcome refused = run_collective([&] { h = make(first); });
    if (refused.ranks_with_error > 0) {
      EXPECT_EQ(refused.ranks_with_error, world_size()) << refused.what;
      if (refused.what.find("share a GPU") != std::string::npos) return skip_shared_gpu(refused.what);
      if (refused.what.find("built without NCCL") != std::string::npos)
        GTEST_SKIP() << "this dfft was built without NCCL\n" << refused.what;
      FAIL() << refused.what;
    }
    for (const Case& c : cases(3)) {
      h = make(spec_of(c));
      EXPECT_EQ(h->staging(), dfft::Staging::cuda_aware);
      check(*h, plan->input_layout(), shape, spec_of(c), "nccl " + dfft::to_string(dec) + " " + name_of(c), true);
    }
  }
}

TEST(Halo, RefusesBadInput) {
  const Shape shape{9, 8};
  const int p = world_size(), r = world_rank();
  Layout l;
  const auto pr = part(9, p, r);
  l.box = Box{{pr.lo, 0}, {pr.hi, 8}};
  l.order = {0, 1};
  dfft::HaloSpec s{{1, 1}, {}, {}, false};
  dfft::Halo<double> h(MPI_COMM_WORLD, l, s);
  // One rank's array is one element short: every rank refuses, nothing is written.
  std::vector<double> u(static_cast<std::size_t>(h.count()), 1.0);
  const std::size_t given = r == p - 1 && !u.empty() ? u.size() - 1 : u.size();
  const Outcome o = run_collective([&] { h.exchange(std::span<double>(u.data(), given)); });
  EXPECT_EQ(o.ranks_with_error, p);
  EXPECT_TRUE(all_ranks(o.what.find("halo exchange") != std::string::npos)) << o.what;
  if (r == p - 1) {
    EXPECT_THAT(o.what, ::testing::HasSubstr("elements but its box with the halo needs"));
  }
  EXPECT_TRUE(std::all_of(u.begin(), u.end(), [](double x) { return x == 1.0; }));

  expect_error_everywhere(
      [&] {
        dfft::Halo<double>(MPI_COMM_WORLD, l, {{1, -1}, {}, {}, false});
      },
      "widths must be >= 0");
  expect_error_everywhere(
      [&] {
        dfft::Halo<double>(MPI_COMM_WORLD, l, {{1, 1, 1}, {}, {}, false});
      },
      "one entry per axis");
  if (p > 1)
    expect_error_everywhere(
        [&] {
          dfft::Halo<double>(MPI_COMM_WORLD, l, {{1, r == 0 ? 2 : 1}, {}, {}, false});
        },
        "ranks disagree");
  expect_error_everywhere([&] { dfft::Halo<double>(MPI_COMM_WORLD, l, s, dfft::Method::a2a_sync); },
                          "p2p-type, p2p-sync or nccl");
  Layout padded = l;
  padded.padded = {l.box.extent(0), 10};
  expect_error_everywhere([&] { dfft::Halo<double>(MPI_COMM_WORLD, padded, s); },
                          "padded on axis 1");
  Layout overlap = l;
  overlap.box.lo[0] = 0;
  if (p > 1)
    expect_error_everywhere([&] { dfft::Halo<double>(MPI_COMM_WORLD, overlap, s); }, "overlap");
}

}  // namespace
}  // namespace dfft_test
