// SPDX-License-Identifier: MIT
// The cluster model's arithmetic on small hand-computed cases (docs/models.md, "Predictions for
// clusters"): 2 nodes x 2 GPUs with round link numbers, so every expected second is exact.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "dfft/model.hpp"

namespace {

using dfft::model::NodeExchange;

// 2 GPUs per node; intra 1 us + d / 1e11 B/s, inter 10 us + d / 1e10 B/s.
dfft::model::Cluster two_by_two() {
  dfft::model::Cluster c;
  c.gpus_per_node = 2;
  c.intra = {2, 1e-6, 1e11};
  c.inter = {2, 1e-5, 1e10};
  c.fft_rate[0] = 960;  // a 4^3 c2c cube has 5 * 64 * log2(64) = 1920 flops: 480 per rank of 4
  c.fft_rate[1] = 1920;
  c.pack_rate = 512;
  return c;
}

TEST(ClusterModel, FlatSlabExchangeOnTwoNodes) {
  // 4 ranks, 4e6 B each: 1e6 B per peer; rank 0 has 1 peer on its node and 2 on the other.
  auto e = dfft::model::cluster_exchange(two_by_two(), 4, 4, 1, 4e6, NodeExchange::flat);
  EXPECT_EQ(e.local, 2);
  EXPECT_EQ(e.remote_nodes, 1);
  EXPECT_DOUBLE_EQ(e.intra_messages, 1);
  EXPECT_DOUBLE_EQ(e.inter_messages, 2);
  EXPECT_DOUBLE_EQ(e.intra_bytes, 1e6);
  EXPECT_DOUBLE_EQ(e.inter_bytes, 2e6);
  EXPECT_NEAR(e.intra, 1e-6 + 1e-5, 1e-18);
  EXPECT_NEAR(e.inter, 2e-5 + 2e-4, 1e-18);
  EXPECT_NEAR(e.latency, 1e-6 + 2e-5, 1e-18);
}

TEST(ClusterModel, NodeAwareSlabExchangeOnTwoNodes) {
  // One message per node pair over the node's 2 links: 1/2 message per rank; gather and scatter
  // half of the 2e6 inter-node bytes each over the intra link, one message each way.
  auto e = dfft::model::cluster_exchange(two_by_two(), 4, 4, 1, 4e6, NodeExchange::node_aware);
  EXPECT_DOUBLE_EQ(e.inter_messages, 0.5);
  EXPECT_DOUBLE_EQ(e.inter_bytes, 2e6);
  EXPECT_DOUBLE_EQ(e.intra_messages, 3);
  EXPECT_DOUBLE_EQ(e.intra_bytes, 3e6);
  EXPECT_NEAR(e.inter, 0.5e-5 + 2e-4, 1e-18);
  EXPECT_NEAR(e.intra, 3e-6 + 3e-5, 1e-18);
  EXPECT_NEAR(e.latency, 3e-6 + 0.5e-5, 1e-18);
}

TEST(ClusterModel, WholeSlabPredictionIsExact) {
  // 4^3 c2c double on 4 GPUs: 64 * 16 / 4 = 256 B per rank, 64 B per peer.
  auto p = dfft::model::predict_cluster(two_by_two(), 4, 4, true, false, false, NodeExchange::flat);
  ASSERT_TRUE(p.possible) << p.why;
  EXPECT_NEAR(p.fft, 0.5, 1e-15);
  EXPECT_NEAR(p.pack, 2 * 256.0 / 512, 1e-15);
  EXPECT_NEAR(p.intra, 1e-6 + 64 / 1e11, 1e-18);
  EXPECT_NEAR(p.inter, 2e-5 + 128 / 1e10, 1e-18);
  EXPECT_NEAR(p.total(), 0.5 + 1 + 2e-5 + 128 / 1e10, 1e-15);
  EXPECT_DOUBLE_EQ(p.memory, 512);
}

TEST(ClusterModel, PencilRowsStayOnTheNodeColumnsCrossIt) {
  // Grid 2 x 2, rank = i * 2 + j: rows {0,1} are one node, columns {0,2} span both.
  auto p = dfft::model::predict_cluster(two_by_two(), 4, 4, true, false, true, NodeExchange::node_aware, {2, 2});
  ASSERT_TRUE(p.possible) << p.why;
  ASSERT_EQ(p.exchanges.size(), 2u);
  EXPECT_DOUBLE_EQ(p.exchanges[0].inter_bytes, 0);
  EXPECT_DOUBLE_EQ(p.exchanges[0].intra_messages, 1);
  EXPECT_EQ(p.exchanges[1].local, 1);
  EXPECT_EQ(p.exchanges[1].remote_nodes, 1);
  EXPECT_DOUBLE_EQ(p.exchanges[1].inter_messages, 0.5);  // both ranks' messages to node 1 in one
  EXPECT_DOUBLE_EQ(p.exchanges[1].inter_bytes, 128);
  EXPECT_NEAR(p.comm, (1e-6 + 128 / 1e11) + (0.5e-5 + 128 / 1e10), 1e-18);
}

TEST(ClusterModel, NodeAwareCutsLatencyAndKeepsBytes) {
  auto c = two_by_two();
  c.gpus_per_node = 8;
  for (int P : {16, 64, 512})
    for (bool pencil : {false, true}) {
      auto f = dfft::model::predict_cluster(c, 2048, P, false, false, pencil, NodeExchange::flat, pencil ? std::vector<int>{8, P / 8} : std::vector<int>{});
      auto a = dfft::model::predict_cluster(c, 2048, P, false, false, pencil, NodeExchange::node_aware, f.grid);
      ASSERT_TRUE(f.possible && a.possible);
      for (std::size_t k = 0; k < f.exchanges.size(); ++k) {
        SCOPED_TRACE("P " + std::to_string(P) + " exchange " + std::to_string(k));
        EXPECT_DOUBLE_EQ(a.exchanges[k].inter_bytes, f.exchanges[k].inter_bytes);
        if (f.exchanges[k].inter_messages > 0) {
          EXPECT_LT(a.exchanges[k].inter_messages, f.exchanges[k].inter_messages);
          EXPECT_LT(a.exchanges[k].latency, f.exchanges[k].latency);
        }
      }
      EXPECT_DOUBLE_EQ(a.fft, f.fft);
      EXPECT_DOUBLE_EQ(a.pack, f.pack);
    }
}

TEST(ClusterModel, OneNodeHasNothingToAggregate) {
  auto f = dfft::model::predict_cluster(two_by_two(), 4, 2, false, true, false, NodeExchange::flat);
  auto a = dfft::model::predict_cluster(two_by_two(), 4, 2, false, true, false, NodeExchange::node_aware);
  EXPECT_DOUBLE_EQ(f.inter, 0);
  EXPECT_DOUBLE_EQ(a.total(), f.total());
}

TEST(ClusterModel, ImpossibleDecompositionsSayWhy) {
  auto s = dfft::model::predict_cluster(two_by_two(), 4, 8, true, false, false, NodeExchange::flat);
  EXPECT_FALSE(s.possible);
  EXPECT_NE(s.why.find("P <= N"), std::string::npos) << s.why;
  auto odd = dfft::model::predict_cluster(two_by_two(), 64, 3, true, false, false, NodeExchange::flat);
  EXPECT_FALSE(odd.possible);
  auto p = dfft::model::predict_cluster(two_by_two(), 4, 4, true, false, true, NodeExchange::flat);
  EXPECT_TRUE(p.possible) << p.why;  // 2 x 2 fits
  auto big = dfft::model::predict_cluster(two_by_two(), 4, 64, true, false, true, NodeExchange::flat);
  EXPECT_FALSE(big.possible);  // 64 = 2 x 32 ... 32 x 2: always one side > 4
}

TEST(ClusterModel, DescriptionParsesAndRejectsBadFields) {
  const std::string good = R"({"name": "t", "gpus_per_node": 4, "gpu_memory_GB": 80,
    "links": {"intra_node": {"bandwidth_GBps": 300, "latency_us": 5},
              "inter_node": {"bandwidth_GBps": 25, "latency_us": 10}, "assumed": true, "source": "s"},
    "fft": {"reference_n": 1024, "reference_transform": "r2c", "float_ms": 10, "double_ms": 20, "scale": 0.5,
            "assumed": true, "source": "s"},
    "pack": {"bandwidth_GBps": 1000, "assumed": true, "source": "s"}})";
  auto c = dfft::model::cluster_from_json(good);
  EXPECT_EQ(c.gpus_per_node, 4);
  EXPECT_DOUBLE_EQ(c.intra.bandwidth, 300e9);
  EXPECT_DOUBLE_EQ(c.inter.latency, 10e-6);
  const double flops = 2.5 * std::pow(1024.0, 3) * 30;  // r2c of 1024^3: 2.5 n^3 log2(n^3)
  EXPECT_NEAR(c.fft_rate[1], flops / 10e-3 * 0.5, 1e-3);
  EXPECT_NEAR(c.fft_rate[0], flops / 20e-3 * 0.5, 1e-3);
  EXPECT_DOUBLE_EQ(c.pack_rate, 1e12);
  EXPECT_DOUBLE_EQ(c.gpu_memory, 80e9);
  auto bad = good;
  bad.replace(bad.find("300"), 3, "-30");
  EXPECT_THROW(dfft::model::cluster_from_json(bad), dfft::Error);
  EXPECT_THROW(dfft::model::cluster_from_json("{\"name\": \"t\"}"), dfft::Error);
}

}  // namespace
