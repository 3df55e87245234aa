// SPDX-License-Identifier: MIT
// Nodes (docs/nodes.md): node-ring, hierarchical and per-peer against the serial reference under emulated
// node layouts, the intra/inter-node counts every plan reports against counts made here from the
// boxes and against the MPI sends really made (intercepted, tests/hardening/mpi_counters.cpp),
// refusals of bad layouts on every rank, and the node-aware pencil grid.
#include <cstdlib>
#include <map>
#include <memory>

#include "hardening/mpi_counters.hpp"
#include "support/sweep.hpp"

namespace dfft_test {
namespace {

const std::vector<Method> kNodeMethods{Method::node_ring, Method::hierarchical, Method::per_peer};

// `upto8` on up to 8 ranks; beyond, an odd array whose every slab axis has a plane per rank
// (16 ranks at most).
Shape small_shape(const Shape& upto8) { return world_size() > 8 ? Shape{19, 17, 33} : upto8; }

// 4 ranks: 2 nodes of 2, 4 nodes of 1, 1 node of 4, nodes of 3 and 1. 8 ranks: 2 nodes of 4.
// 12 and 16 ranks (a 16-core machine, not CI): 2 and 4 nodes.
std::vector<std::vector<int>> layouts() {
  if (world_size() == 2) return {{1}};
  if (world_size() == 4) return {{2}, {1}, {4}, {3, 1}};
  if (world_size() == 8) return {{4}};
  if (world_size() == 12) return {{6}, {3}};
  if (world_size() == 16) return {{8}, {4}};
  return {};
}

// Pencil grids: square-ish ones where the rank count has them, else P/2 x 2.
std::vector<std::vector<int>> pencil_grids() {
  if (world_size() == 12) return {{3, 4}};
  if (world_size() == 16) return {{4, 4}, {2, 8}};
  return {{world_size() / 2, 2}};
}

std::vector<Case> node_cases() {
  std::vector<Case> cases;
  // 8 ranks run in CI on 2 cores: pencils of a small array only.
  const bool eight = world_size() == 8;
  const Shape shape = eight ? Shape{9, 8, 7} : small_shape({17, 12, 10});
  for (const auto& nodes : layouts())
    for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil}) {
      if (eight && dec != Decomposition::pencil) continue;
      const auto grids = dec == Decomposition::pencil ? pencil_grids() : std::vector<std::vector<int>>{{world_size()}};
      for (const auto& grid : grids)
        for (auto var : {Variant::Default, Variant::Realigned})
          for (auto m : kNodeMethods)
            for (bool dbl : {true, false})
              for (auto tr : {Transform::r2c, Transform::c2c})
                cases.push_back({dec, var, {m}, grid, dbl, tr, shape, nodes});
    }
  if (world_size() == 4)  // flat methods under uneven nodes: they run, and their counts are right
    for (auto m : kCpuMethods)
      for (auto dec : {Decomposition::slab_2d1d, Decomposition::pencil}) {
        std::vector<int> grid = dec == Decomposition::pencil ? std::vector<int>{2, 2} : std::vector<int>{4};
        cases.push_back({dec, Variant::Default, {m}, grid, true, Transform::r2c, {17, 12, 10}, {3, 1}});
      }
  return cases;
}

// ---- Counts made here from the boxes (the thesis distributions), independently of the library.

// Axis split by each grid dimension, at each layout the path goes through.
std::vector<std::vector<int>> distributions(const Case& c) {
  const int d = static_cast<int>(c.shape.size());
  if (c.dec == Decomposition::slab_2d1d) return {{0}, {1}};
  if (c.dec == Decomposition::slab_1d2d) return {{0}, {d - 1}};
  return {{0, 1}, {0, 2}, {1, 2}};
}

std::vector<int> coords_of(const std::vector<int>& grid, int r) {
  std::vector<int> c(grid.size());
  for (int g = static_cast<int>(grid.size()) - 1; g >= 0; --g) {
    c[g] = r % grid[g];
    r /= grid[g];
  }
  return c;
}

dfft::Box box_at(const Case& c, const Shape& shape, const std::vector<int>& split, int r) {
  dfft::Box b{Shape(shape.size(), 0), shape};
  const auto co = coords_of(c.grid, r);
  for (std::size_t g = 0; g < split.size(); ++g) {
    auto p = part(shape[split[g]], c.grid[g], co[g]);
    b.lo[split[g]] = p.lo;
    b.hi[split[g]] = p.hi;
  }
  return b;
}

std::vector<int> node_of_ranks(const std::vector<int>& layout, int ranks) {
  std::vector<int> sizes = layout.size() == 1 ? std::vector<int>(ranks / layout[0], layout[0]) : layout;
  std::vector<int> node;
  for (std::size_t n = 0; n < sizes.size(); ++n)
    for (int i = 0; i < sizes[n]; ++i) node.push_back(static_cast<int>(n));
  return node;
}

void add(dfft::NodeTraffic& t, bool same_node, std::int64_t bytes) {
  (same_node ? t.intra_node_messages : t.inter_node_messages) += 1;
  (same_node ? t.intra_node_bytes : t.inter_node_bytes) += bytes;
}

// One exchange among `members` (ranks in sub-communicator order): bytes[i][j] from member i to j.
void count_exchange(const std::vector<int>& members, const std::vector<std::vector<std::int64_t>>& bytes,
                    const std::vector<int>& node, Method m, dfft::NodeTraffic& t) {
  const std::size_t n = members.size();
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      if (i != j && bytes[i][j] > 0 &&
          (m != Method::hierarchical || node[members[i]] == node[members[j]]))
        add(t, node[members[i]] == node[members[j]], bytes[i][j]);
  if (m != Method::hierarchical) return;
  // Leader of a node: its first member here. Per ordered node pair one leader-to-leader
  // message; each non-leader sends its blocks per target node to its leader, and receives its
  // blocks per source node from it.
  auto leader = [&](int nd) {
    for (int r : members)
      if (node[r] == nd) return r;
    return -1;
  };
  auto idx = [&](int r) { return static_cast<std::size_t>(std::find(members.begin(), members.end(), r) - members.begin()); };
  std::vector<int> nodes_here;
  for (int r : members)
    if (std::find(nodes_here.begin(), nodes_here.end(), node[r]) == nodes_here.end()) nodes_here.push_back(node[r]);
  for (int A : nodes_here)
    for (int B : nodes_here) {
      if (A == B) continue;
      std::int64_t total = 0;
      for (int a : members) {
        if (node[a] != A) continue;
        std::int64_t to_b = 0, from_b = 0;
        for (int b : members)
          if (node[b] == B) {
            to_b += bytes[idx(a)][idx(b)];
            from_b += bytes[idx(b)][idx(a)];
          }
        total += to_b;
        if (a != leader(A) && to_b > 0) add(t, true, to_b);
        if (a != leader(A) && from_b > 0) add(t, true, from_b);
      }
      if (total > 0) add(t, false, total);
    }
}

dfft::NodeTraffic expected_traffic(const Case& c) {
  const int P = world_size();
  const auto node = node_of_ranks(c.nodes, P);
  Shape spec = c.shape;
  if (c.tr == Transform::r2c) spec.back() = spec.back() / 2 + 1;
  const std::int64_t elem = c.dbl ? 16 : 8;
  const auto dists = distributions(c);
  dfft::NodeTraffic t;
  for (std::size_t e = 0; e + 1 < dists.size(); ++e) {
    const Method m = c.methods.size() == 1 ? c.methods[0] : c.methods[e];
    std::size_t g = 0;  // the grid dimension whose axis changes
    while (dists[e][g] == dists[e + 1][g]) ++g;
    for (int r = 0; r < P; ++r) {
      const auto co = coords_of(c.grid, r);
      if (co[g] != 0) continue;  // one sub-communicator per rank with coordinate g = 0
      std::vector<int> members;
      for (int r2 = 0; r2 < P; ++r2) {
        auto c2 = coords_of(c.grid, r2);
        c2[g] = 0;
        if (c2 == co) members.push_back(r2);
      }
      std::vector<std::vector<std::int64_t>> bytes(members.size(), std::vector<std::int64_t>(members.size()));
      for (std::size_t i = 0; i < members.size(); ++i)
        for (std::size_t j = 0; j < members.size(); ++j)
          bytes[i][j] = dfft::intersect(box_at(c, spec, dists[e], members[i]),
                                        box_at(c, spec, dists[e + 1], members[j])).count() * elem;
      count_exchange(members, bytes, node, m, t);
    }
  }
  return t;
}

template <class T>
dfft::NodeTraffic reported_traffic(const Case& c) {
  return dfft::Plan<T>(MPI_COMM_WORLD, c.shape, options_of(c)).node_traffic();
}

std::string text(const dfft::NodeTraffic& t) {
  std::ostringstream s;
  s << "intra " << t.intra_node_messages << " msgs " << t.intra_node_bytes << " B, inter "
    << t.inter_node_messages << " msgs " << t.inter_node_bytes << " B";
  return s.str();
}

class NodeSweep : public ::testing::TestWithParam<Case> {};

TEST_P(NodeSweep, MatchesReferenceAndCounts) {
  const Case& c = GetParam();
  run_case(c);
  const auto got = c.dbl ? reported_traffic<double>(c) : reported_traffic<float>(c);
  const auto want = expected_traffic(c);
  EXPECT_EQ(got, want) << "reported " << text(got) << "; counted from the boxes " << text(want);
  EXPECT_TRUE(all_ranks(got == want));
}

INSTANTIATE_TEST_SUITE_P(Nodes, NodeSweep, ::testing::ValuesIn(node_cases()), case_name_of);

// The node-aware methods move the same bytes as p2p-sync, so with the same codec and message
// limit every rank's output is identical to p2p-sync's, bit for bit.
std::vector<std::complex<double>> forward_with(Method m, dfft::Codec codec, std::int64_t max_message,
                                               Decomposition dec, const std::vector<int>& nodes) {
  dfft::Options o;
  o.decomposition = dec;
  o.variant = dfft::Variant::Default;  // one output layout for every method compared
  if (dec == Decomposition::pencil)     // and one grid (the automatic choice weighs each method)
    o.grid = world_size() % 2 == 0 && world_size() > 2 ? std::vector<int>{2, world_size() / 2}
                                                       : std::vector<int>{world_size(), 1};
  o.transform = Transform::c2c;
  o.methods = {m};
  o.codec = codec;
  o.max_message_bytes = max_message;
  o.ranks_per_node = nodes;
  dfft::Plan<double> plan(MPI_COMM_WORLD, small_shape({17, 12, 10}), o);
  std::vector<std::complex<double>> in(static_cast<std::size_t>(plan.input_count()));
  for (std::size_t i = 0; i < in.size(); ++i)
    in[i] = {signal(static_cast<std::int64_t>(i), world_rank()), signal(static_cast<std::int64_t>(i), 7 + world_rank())};
  std::vector<std::complex<double>> out(static_cast<std::size_t>(plan.output_count()));
  plan.forward(in.data(), out.data());
  return out;
}

TEST(NodeMethods, CodecsAndMessageLimitMatchP2pSync) {
  const std::vector<int> nodes = world_size() == 4 ? std::vector<int>{3, 1} : std::vector<int>{1};
  for (auto codec : {dfft::Codec::none, dfft::Codec::fp32, dfft::Codec::bf16})
    for (std::int64_t limit : {std::int64_t{64}, std::int64_t{1} << 30})
      for (auto dec : {Decomposition::slab_2d1d, Decomposition::pencil}) {
        const auto want = forward_with(Method::p2p_sync, codec, limit, dec, nodes);
        for (auto m : kNodeMethods)
          EXPECT_TRUE(all_ranks(forward_with(m, codec, limit, dec, nodes) == want))
              << to_string(m) << " codec " << to_string(codec) << " limit " << limit << " " << to_string(dec);
      }
}

dfft::Plan<double> plan_with(const std::vector<int>& nodes, Decomposition dec = Decomposition::slab_2d1d,
                             std::vector<int> grid = {}, Method m = Method::hierarchical) {
  dfft::Options o;
  o.decomposition = dec;
  o.grid = std::move(grid);
  o.methods = {m};
  // Nothing left to the automatic choice: an open grid is then the planner's node-aware one,
  // which these tests check, not the one a machine's calibration makes the model prefer.
  o.variant = dfft::Variant::Default;
  o.chunks = 1;
  o.overlap = 1;
  o.ranks_per_node = nodes;
  return dfft::Plan<double>(MPI_COMM_WORLD, small_shape({9, 8, 7}), o);
}

// A scoped DFFT_RANKS_PER_NODE (unset afterwards).
struct EnvLayout {
  explicit EnvLayout(const std::string& v) { setenv("DFFT_RANKS_PER_NODE", v.c_str(), 1); }
  ~EnvLayout() { unsetenv("DFFT_RANKS_PER_NODE"); }
};

TEST(NodeLayout, BadLayoutsAreRefusedOnEveryRank) {
  const int P = world_size();
  expect_error_everywhere([&] { plan_with({0}); }, "positive");
  expect_error_everywhere([&] { plan_with({-1, P + 1}); }, "positive");
  expect_error_everywhere([&] { plan_with({P + 1}); }, "does not divide");
  expect_error_everywhere([&] { plan_with({P, 1}); }, "do not sum to");
  {
    EnvLayout env("2,x");
    expect_error_everywhere([&] { plan_with({}); }, "DFFT_RANKS_PER_NODE");
  }
  if (P > 1) {  // ranks that disagree are all refused (no rank waits in a collective)
    EnvLayout env(world_rank() == 0 ? "1" : std::to_string(P));
    expect_error_everywhere([&] { plan_with({}); }, "differs between ranks");
  }
}

TEST(NodeLayout, OptionWinsOverEnvironment) {
  const int P = world_size();
  EnvLayout env(std::to_string(P + 1));  // would be refused
  auto p = plan_with({1});
  EXPECT_EQ(p.node_traffic().intra_node_messages, 0);
  EnvLayout good("1");
  auto q = plan_with({});
  EXPECT_EQ(q.node_traffic(), p.node_traffic());
  EXPECT_THAT(q.describe(), ::testing::HasSubstr("nodes: " + std::to_string(P) + " (emulated)"));
}

TEST(NodeLayout, PencilGridKeepsTheLargerExchangeInsideANode) {
  if (world_size() != 8) GTEST_SKIP() << "needs 8 ranks";
  // 2 nodes of 4: the 4-member sub-communicators are consecutive ranks, inside a node.
  EXPECT_EQ(plan_with({4}, Decomposition::pencil).grid(), (std::vector<int>{2, 4}));
  // 4 nodes of 2: pairs of consecutive ranks share a node.
  EXPECT_EQ(plan_with({2}, Decomposition::pencil).grid(), (std::vector<int>{4, 2}));
  // A given grid is kept.
  EXPECT_EQ(plan_with({4}, Decomposition::pencil, {4, 2}).grid(), (std::vector<int>{4, 2}));
  // 2x4 sends across nodes in half as many messages (the 4-member exchange stays inside).
  const auto chosen = plan_with({4}, Decomposition::pencil, {}, Method::p2p_sync).node_traffic();
  const auto other = plan_with({4}, Decomposition::pencil, {4, 2}, Method::p2p_sync).node_traffic();
  EXPECT_EQ(chosen.inter_node_messages * 2, other.inter_node_messages);
}

// The sends each rank really makes in one forward transform, caught on their way into MPI and
// sorted by the emulated node of sender and receiver, summed over all ranks, against the plan's
// node_traffic(): 2 nodes of 2 and nodes of 3 and 1 on 4 ranks, 2 nodes of 4 on 8 ranks.
TEST(NodeTraffic, ReportedCountsAreTheSendsMade) {
  std::vector<std::vector<int>> layouts;
  if (world_size() == 4) layouts = {{2}, {3, 1}};
  if (world_size() == 8) layouts = {{4}};
  if (layouts.empty()) GTEST_SKIP() << "the layouts 2x2 and 3,1 need 4 ranks, 4x2 needs 8";
  const int P = world_size();
  for (const auto& nodes : layouts) {
    const auto node = node_of_ranks(nodes, P);
    for (auto dec : {Decomposition::slab_2d1d, Decomposition::pencil})
      for (auto m : kNodeMethods)
        for (bool by_env : {false, true}) {
          dfft::Options o;
          o.effort = dfft::Effort::estimate;
          o.decomposition = dec;
          o.transform = Transform::c2c;
          o.methods = {m};
          std::string layout;
          for (std::size_t i = 0; i < nodes.size(); ++i) layout += (i ? "," : "") + std::to_string(nodes[i]);
          std::unique_ptr<EnvLayout> env;
          if (by_env) env = std::make_unique<EnvLayout>(layout);
          else o.ranks_per_node = nodes;
          dfft::Plan<double> plan(MPI_COMM_WORLD, {9, 8, 7}, o);
          std::vector<std::complex<double>> in(static_cast<std::size_t>(plan.input_count()), {1.0, -0.5}),
              out(static_cast<std::size_t>(plan.output_count()));
          MPI_Barrier(MPI_COMM_WORLD);
          hardening::start_sends();
          plan.forward(in.data(), out.data());
          const std::map<int, hardening::Sent> sent = hardening::stop_sends();
          std::int64_t mine[4] = {0, 0, 0, 0}, sum[4] = {0, 0, 0, 0};
          for (const auto& [peer, s] : sent) {
            const bool same = node[peer] == node[world_rank()];
            mine[same ? 0 : 2] += s.messages;
            mine[same ? 1 : 3] += s.bytes;
          }
          MPI_Allreduce(mine, sum, 4, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
          const dfft::NodeTraffic made{sum[0], sum[1], sum[2], sum[3]};
          EXPECT_EQ(plan.node_traffic(), made)
              << "nodes " << layout << (by_env ? " (DFFT_RANKS_PER_NODE) " : " ") << to_string(dec) << " "
              << to_string(m) << ": reported " << text(plan.node_traffic()) << "; sent " << text(made);
          EXPECT_GT(made.inter_node_messages, 0);
        }
  }
}

}  // namespace
}  // namespace dfft_test
