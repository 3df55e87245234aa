// SPDX-License-Identifier: MIT
// Node layouts and the messages the node-aware methods send, computed for many ranks in one
// process from the global geometry (what every member of an exchange computes for itself).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "dfft/tune.hpp"
#include "dfft/types.hpp"
#include "transport/methods.hpp"
#include "transport/topology.hpp"

namespace {

using dfft::Method;
using dfft::NodeTraffic;
using dfft::detail::ExchangeSpec;

// A slab exchange of an n x n x n complex array over P ranks: x slabs to y slabs.
ExchangeSpec slab_exchange(int P, std::int64_t n, const std::vector<int>& node) {
  ExchangeSpec s;
  for (int k = 0; k < P; ++k) {
    dfft::Layout in{{{n * k / P, 0, 0}, {n * (k + 1) / P, n, n}}, {0, 1, 2}, {}};
    dfft::Layout out{{{0, n * k / P, 0}, {n, n * (k + 1) / P, n}}, {0, 1, 2}, {}};
    s.src.push_back(in);
    s.dst.push_back(out);
  }
  s.node = node;
  return s;
}

NodeTraffic total(Method m, ExchangeSpec s) {
  NodeTraffic t;
  for (int k = 0; k < static_cast<int>(s.src.size()); ++k) {
    s.me = k;
    const auto x = dfft::detail::sent_traffic(m, s);
    t.intra_node_messages += x.intra_node_messages;
    t.intra_node_bytes += x.intra_node_bytes;
    t.inter_node_messages += x.inter_node_messages;
    t.inter_node_bytes += x.inter_node_bytes;
  }
  return t;
}

TEST(Topology, HierarchicalSendsOneMessagePerNodePair) {
  const auto node = dfft::detail::emulated_nodes({4}, 16);
  const auto s = slab_exchange(16, 32, node);
  const auto flat = total(Method::p2p_sync, s);
  const auto ring = total(Method::node_ring, s);
  const auto hier = total(Method::hierarchical, s);
  EXPECT_EQ(flat.inter_node_messages, 16 * 12);
  EXPECT_EQ(flat.intra_node_messages, 16 * 3);
  EXPECT_EQ(ring, flat);
  EXPECT_EQ(hier.inter_node_messages, 4 * 3);
  // Blocks: 32^3 / 16^2 elements of 16 bytes between every pair of ranks.
  const std::int64_t block = 32 * 32 * 32 / 256 * 16;
  EXPECT_EQ(flat.inter_node_bytes, 16 * 12 * block);
  EXPECT_EQ(hier.inter_node_bytes, flat.inter_node_bytes);
  // Inside a node: the direct blocks, plus each of 3 non-leaders per node gathering to and
  // receiving from its leader once per other node.
  EXPECT_EQ(hier.intra_node_messages, 16 * 3 + 4 * 3 * 3 * 2);
  EXPECT_EQ(hier.intra_node_bytes, 16 * 3 * block + 4 * 3 * 3 * 2 * 4 * block);
}

TEST(Topology, OneNodeKeepsEverythingInside) {
  const auto s = slab_exchange(4, 8, {});
  const auto t = total(Method::hierarchical, s);
  EXPECT_EQ(t.inter_node_messages, 0);
  EXPECT_EQ(t.intra_node_messages, 12);
}

// per-peer splits an exchange into the blocks inside the rank's node (on a re-indexed spec of the
// node's members) and the rest (masked): each block of the flat exchange, the rank's own
// included, is moved by exactly one part, with the same box.
TEST(Topology, PerPeerPartsCoverEveryBlockOnce) {
  using dfft::detail::Blocks;
  for (const auto& layout : std::vector<std::vector<int>>{{2}, {4, 2}, {1, 2, 3}}) {
    const auto node = dfft::detail::emulated_nodes(layout, 6);
    auto s = slab_exchange(6, 13, node);
    for (int me = 0; me < 6; ++me) {
      s.me = me;
      const Blocks flat(s);
      const auto p = dfft::detail::per_peer_parts(s);
      ASSERT_TRUE(p.has_intra && p.has_inter);
      const Blocks in(p.intra), out(p.inter);
      ASSERT_EQ(in.size(), static_cast<int>(p.members.size()));
      EXPECT_EQ(p.members[static_cast<std::size_t>(p.intra.me)], me);
      std::vector<int> moved(6, 0);
      for (int i = 0; i < in.size(); ++i) {
        const int k = p.members[static_cast<std::size_t>(i)];
        EXPECT_EQ(node[k], node[me]);
        EXPECT_EQ(in.send[i], flat.send[k]);
        EXPECT_EQ(in.recv[i], flat.recv[k]);
        ++moved[k];
      }
      for (int k = 0; k < 6; ++k) {
        if (node[k] == node[me]) {  // masked in the inter-node part: nothing sent or received
          EXPECT_TRUE(out.send[k].empty()) << me << " -> " << k;
          EXPECT_TRUE(out.recv[k].empty()) << me << " <- " << k;
          EXPECT_EQ(out.send_bytes[k] + out.recv_bytes[k], 0);
          continue;
        }
        EXPECT_EQ(out.send[k], flat.send[k]);
        EXPECT_EQ(out.recv[k], flat.recv[k]);
        EXPECT_FALSE(flat.send[k].empty());
        ++moved[k];
      }
      EXPECT_EQ(moved, std::vector<int>(6, 1));
      EXPECT_EQ(in.sent_bytes() + out.sent_bytes(), flat.sent_bytes());
      // Its memory is what the two parts hold, and its messages are the flat exchange's.
      const auto mem = dfft::detail::transport_memory(Method::per_peer, s, false);
      const auto a = dfft::detail::transport_memory(Method::p2p_sync, p.intra, false);
      const auto b = dfft::detail::transport_memory(Method::p2p_sync, p.inter, false);
      EXPECT_EQ(mem.host_bytes, a.host_bytes + b.host_bytes);
      EXPECT_GT(mem.host_bytes, 0);
      EXPECT_EQ(dfft::detail::sent_traffic(Method::per_peer, s), dfft::detail::sent_traffic(Method::p2p_sync, s));
    }
  }
}

TEST(Topology, PerPeerIsOnePartOnOneNodeAndOnOneRankPerNode) {
  auto s = slab_exchange(4, 9, {});
  s.me = 1;
  auto p = dfft::detail::per_peer_parts(s);
  EXPECT_TRUE(p.has_intra);
  EXPECT_FALSE(p.has_inter);
  EXPECT_EQ(p.intra.src.size(), 4U);
  EXPECT_EQ(p.intra.me, 1);
  s.node = dfft::detail::emulated_nodes({1}, 4);
  p = dfft::detail::per_peer_parts(s);
  EXPECT_FALSE(p.has_intra);
  EXPECT_TRUE(p.has_inter);
  EXPECT_TRUE(p.inter.peers.empty());  // every block, the rank's own included
  EXPECT_EQ(dfft::detail::transport_memory(Method::per_peer, s, false).host_bytes,
            dfft::detail::transport_memory(Method::p2p_sync, s, false).host_bytes);
}

TEST(Topology, Layouts) {
  using dfft::detail::emulated_nodes;
  EXPECT_EQ(emulated_nodes({2}, 4), (std::vector<int>{0, 0, 1, 1}));
  EXPECT_EQ(emulated_nodes({3, 1}, 4), (std::vector<int>{0, 0, 0, 1}));
  EXPECT_EQ(emulated_nodes({4}, 4), (std::vector<int>{0, 0, 0, 0}));
  EXPECT_THROW(emulated_nodes({3}, 4), dfft::Error);
  EXPECT_THROW(emulated_nodes({2, 1}, 4), dfft::Error);
  EXPECT_THROW(emulated_nodes({0}, 4), dfft::Error);
  EXPECT_THROW(emulated_nodes({5, -1}, 4), dfft::Error);
  EXPECT_EQ(dfft::detail::parse_node_layout("3,1"), (std::vector<int>{3, 1}));
  EXPECT_THROW(dfft::detail::parse_node_layout("3;1"), dfft::Error);
  EXPECT_THROW(dfft::detail::parse_node_layout(""), dfft::Error);
  try {
    emulated_nodes({3}, 4);
  } catch (const dfft::Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("list of positive node sizes summing to 4"));
  }
}

TEST(Topology, RestrictRenumbersNodes) {
  dfft::detail::Topology t;
  t.node = {0, 0, 1, 1, 2, 2};
  EXPECT_EQ(t.restrict_to({5, 1, 3}).node, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(t.restrict_to({4, 5, 2}).node, (std::vector<int>{0, 0, 1}));
  EXPECT_EQ(t.rank_in_node(3), 1);
  EXPECT_EQ(t.members(1), (std::vector<int>{2, 3}));
}

TEST(Topology, NodeAwareGrid) {
  dfft::detail::Topology t;
  t.node = dfft::detail::emulated_nodes({4}, 8);
  EXPECT_EQ(dfft::detail::node_aware_grid({4, 2}, t), (std::vector<int>{2, 4}));
  t.node = dfft::detail::emulated_nodes({2}, 8);
  EXPECT_EQ(dfft::detail::node_aware_grid({4, 2}, t), (std::vector<int>{4, 2}));
  EXPECT_EQ(dfft::detail::node_aware_grid({2, 4}, t), (std::vector<int>{4, 2}));
  t.node = dfft::detail::emulated_nodes({8}, 8);
  EXPECT_EQ(dfft::detail::node_aware_grid({2, 4}, t), (std::vector<int>{2, 4}));
}

}  // namespace

namespace {

TEST(Topology, TunerTriesNodeMethodsOnlyWithSeveralNodes) {
  auto uses = [](const std::vector<dfft::Options>& cands, Method m) {
    for (const auto& o : cands)
      for (auto x : o.methods)
        if (x == m) return true;
    return false;
  };
  dfft::Options base;
  EXPECT_FALSE(uses(dfft::tune_candidates(base, 4, 3), Method::hierarchical));
  EXPECT_FALSE(uses(dfft::tune_candidates(base, 4, 3, 1), Method::node_ring));
  EXPECT_TRUE(uses(dfft::tune_candidates(base, 4, 3, 2), Method::hierarchical));
  EXPECT_TRUE(uses(dfft::tune_candidates(base, 4, 3, 2), Method::node_ring));
  EXPECT_FALSE(uses(dfft::tune_candidates(base, 4, 3, 1), Method::per_peer));
  EXPECT_TRUE(uses(dfft::tune_candidates(base, 4, 3, 2), Method::per_peer));
  base.backend = dfft::Backend::cuda;  // one schedule for every device
  EXPECT_TRUE(uses(dfft::tune_candidates(base, 4, 3, 2), Method::node_ring));
  EXPECT_FALSE(uses(dfft::tune_candidates(base, 4, 3, 1), Method::per_peer));
  EXPECT_TRUE(uses(dfft::tune_candidates(base, 4, 3, 2), Method::per_peer));
}

}  // namespace
