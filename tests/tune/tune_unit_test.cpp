// SPDX-License-Identifier: MIT
// One-process tests of the tuner's pure parts: power-law fit, winner selection, candidates,
// the analytic model's bookkeeping, and the wisdom parser on malformed input.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "dfft/model.hpp"
#include "dfft/option_fields.hpp"
#include "dfft/tune.hpp"
#include "tune/select.hpp"
#include "tune/tuner.hpp"
#include "support/option_values.hpp"

namespace {

using dfft::Decomposition;
using dfft::Method;

TEST(PowerLaw, RecoversExactParameters) {
  for (double A : {0.55, 7.163, 164.24})
    for (double B : {0.667, 0.86, 1.074}) {
      std::vector<double> P{1, 2, 3, 4, 8, 16}, T;
      for (double p : P) T.push_back(A * std::pow(p, -B));
      auto f = dfft::model::fit_power_law(P, T);
      ASSERT_TRUE(f.valid());
      EXPECT_NEAR(f.A, A, 1e-9 * A);
      EXPECT_NEAR(f.B, B, 1e-9);
      EXPECT_DOUBLE_EQ(f.r2, 1.0);
      EXPECT_NEAR(f(32), A * std::pow(32, -B), 1e-9 * A);
    }
}

TEST(PowerLaw, TwoRankCountsSuffice) {
  auto f = dfft::model::fit_power_law({2, 4}, {10, 6});
  ASSERT_TRUE(f.valid());
  EXPECT_NEAR(f(2), 10, 1e-12);
  EXPECT_NEAR(f(4), 6, 1e-12);
  EXPECT_NEAR(f.B, std::log2(10.0 / 6.0), 1e-12);
  EXPECT_DOUBLE_EQ(f.r2, 1.0);
}

TEST(PowerLaw, NoisyDataHasRSquaredBelowOneAndBadInputIsInvalid) {
  auto f = dfft::model::fit_power_law({1, 2, 4, 8}, {10, 4, 3.5, 1});
  ASSERT_TRUE(f.valid());
  EXPECT_LT(f.r2, 1.0);
  EXPECT_GT(f.r2, 0.5);
  EXPECT_FALSE(dfft::model::fit_power_law({4, 4}, {1, 2}).valid());   // one distinct P
  EXPECT_FALSE(dfft::model::fit_power_law({1, 2}, {1, -2}).valid());  // non-positive time dropped
  EXPECT_FALSE(dfft::model::fit_power_law({}, {}).valid());
}

TEST(Select, TheNoiseRuleIsTheRelativeInterquartileRangeOr3Percent) {
  using dfft::detail::relative_iqr;
  // 1..5: quartiles 2 and 4 around the median 3.
  EXPECT_DOUBLE_EQ(relative_iqr({5, 1, 4, 2, 3}), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(relative_iqr({2, 2, 2}), 0.0);
  EXPECT_TRUE(std::isnan(relative_iqr({})));
  dfft::TuneCandidate a, b;
  a.median = 1.0;
  a.spread = 0.0;
  b.median = 1.02;
  b.spread = 0.01;
  EXPECT_DOUBLE_EQ(dfft::detail::noise_bound(a, b), dfft::detail::kTieMargin);
  EXPECT_TRUE(dfft::detail::within_noise(a, b));  // 2% < 3%
  b.median = 1.05;
  EXPECT_FALSE(dfft::detail::within_noise(a, b));
  b.spread = 0.06;  // a noisy sample widens the bound
  EXPECT_TRUE(dfft::detail::within_noise(a, b));
  b.final_median = 1.2;  // a finalist is compared on its final rounds
  EXPECT_FALSE(dfft::detail::within_noise(a, b));
}

TEST(Candidates, CoverEveryDecompositionGridVariantAndMethod) {
  dfft::Options base;
  auto c4 = dfft::tune_candidates(base, 4, 3);
  // Per single-method set: 4 methods + onesided and p2p-pipelined with chunks 1 and 4 = 8.
  // Slabs: 2 decompositions x 2 variants x 8 = 32. Pencils 4x1, 1x4: one busy exchange,
  // 2 x 2 x 8 = 32. Pencil 2x2: uniform 2 x 8 = 16, mixed 2 variants x (30 ordered pairs + 18
  // pairs with a chunked method counted twice) = 96. Pass 3 repeats the 80 single-method
  // candidates of busy grids with overlap 4.
  EXPECT_EQ(c4.size(), 32u + 32u + 16u + 96u + 80u);
  int grids2x2 = 0, onesided1 = 0, overlapped = 0;
  for (const auto& o : c4) {
    grids2x2 += o.decomposition == Decomposition::pencil && o.grid == std::vector<int>{2, 2};
    for (auto m : o.methods) onesided1 += m == Method::onesided && o.chunks == 1;
    overlapped += o.overlap == 4;
  }
  EXPECT_EQ(grids2x2, 16 + 96 + 16);
  EXPECT_GT(onesided1, 0);
  EXPECT_EQ(overlapped, 80);
  // One rank: no exchange has peers, so methods are not varied: 2 slabs + pencil 1x1, 2 variants.
  EXPECT_EQ(dfft::tune_candidates(base, 1, 3).size(), 6u);
  // A fixed grid restricts the candidates to it.
  base.grid = {2, 2};
  for (const auto& o : dfft::tune_candidates(base, 4, 3)) EXPECT_EQ(o.grid, (std::vector<int>{2, 2}));
  EXPECT_EQ(dfft::tune_label(dfft::tune_candidates(base, 4, 3).back()),
            "pencil 2x2 realigned p2p-pipelined chunks=4 overlap=4");
}

// The label is made from the option table: every field the tuner chooses appears in it, so a
// new choice needs no change to tune_label. Each choice is set away from its default (and where
// it acts) and must appear, by its text or as name=text.
TEST(Tune, LabelNamesEveryChoiceOfTheOptionTable) {
  dfft::Options o;
  o.decomposition = dfft::Decomposition::pencil;
  o.grid = {2, 3};
  o.variant = dfft::Variant::Realigned;
  o.methods = {dfft::Method::p2p_pipelined};
  o.chunks = 4;
  o.in_flight = 3;
  o.overlap = 5;
  const std::string label = dfft::tune_label(o);
  EXPECT_EQ(label, "pencil 2x3 realigned p2p-pipelined chunks=4 in_flight=3 overlap=5");
  int choices = 0;
  for (const dfft::OptionField& f : dfft::option_fields()) {
    if (!f.from_choice) continue;
    ++choices;
    const std::string text = f.get(o);
    EXPECT_NE(text, f.default_text()) << f.name << ": the test leaves it at its default";
    const std::string shown = f.in_effect ? std::string(f.name) + "=" + text : text;
    EXPECT_NE(label.find(shown), std::string::npos) << f.name << " missing from \"" << label << "\"";
  }
  EXPECT_GE(choices, 7);
  // A choice that does not act, or holds its default, is left out.
  o.methods = {dfft::Method::a2a_type};
  o.overlap = 1;
  EXPECT_EQ(dfft::tune_label(o), "pencil 2x3 realigned a2a-type");
}

TEST(Model, CrossoverMatchesTheThesisExample) {
  // Thesis 2.5.3: B = 25e9 B/s, L = 2e-5 s, P = 16, double: pencil faster below N ~ 200.
  dfft::model::Link l{16, 2e-5, 25e9};
  auto x = dfft::model::slab_pencil_crossover(199.0 * 199 * 199, 16, true, l);
  EXPECT_TRUE(x.pencil_faster);
  EXPECT_FALSE(dfft::model::slab_pencil_crossover(202.0 * 202 * 202, 16, true, l).pencil_faster);
  EXPECT_NEAR(std::cbrt(x.crossover_elements), 200, 1.0);
}

TEST(Model, PredictionCountsTheExchangedBytes) {
  auto cal = dfft::model::Calibration::defaults(4);
  dfft::Options o;
  o.transform = dfft::Transform::c2c;
  o.decomposition = Decomposition::slab_2d1d;
  auto p = dfft::model::predict(cal, {16, 16, 16}, o, 4, true);
  ASSERT_EQ(p.stages.size(), 3u);
  // Each rank sends 3 of its 4 blocks of 4x4x16 complex doubles: 3 * 256 * 16 bytes.
  EXPECT_EQ(p.stages[1].bytes, 3 * 256 * 16);
  EXPECT_EQ(p.stages[1].peers, 3);
  EXPECT_GT(p.total.comm, 0);
  EXPECT_GT(p.total.fft, 0);
  EXPECT_NEAR(p.total.total(), p.stages[0].t.total() + p.stages[1].t.total() + p.stages[2].t.total(), 1e-15);
  o.decomposition = Decomposition::pencil;
  o.grid = {2, 2};
  auto q = dfft::model::predict(cal, {16, 16, 16}, o, 4, true);
  EXPECT_EQ(q.stages.size(), 5u);
  EXPECT_EQ(q.stages[1].peers, 1);
  dfft::Options slab;
  slab.decomposition = Decomposition::slab_2d1d;
  slab.methods = {Method::a2a_sync};
  EXPECT_THROW(dfft::model::predict(cal, {2, 2, 2}, slab, 4, true), dfft::Error);
  // Automatic options predict the automatic choice: a pencil where a slab has too few planes.
  EXPECT_EQ(dfft::model::predict(cal, {2, 2, 2}, dfft::Options{}, 4, true).grid, (std::vector<int>{2, 2}));
}

TEST(Model, MethodLinksDecideTheExchangeAndRoundTrip) {
  auto cal = dfft::model::Calibration::defaults(2);
  cal.alltoall.push_back({2, 1e-6, 1e9});
  dfft::model::Calibration::MethodLink fast{Method::nccl, {2, 1e-6, 1e11}};
  cal.method_links.push_back(fast);
  dfft::Options o;
  o.transform = dfft::Transform::c2c;
  o.methods = {Method::a2a_sync};
  const double slow = dfft::model::predict(cal, {64, 64, 64}, o, 2, true).total.comm;
  o.methods = {Method::nccl};
  const double quick = dfft::model::predict(cal, {64, 64, 64}, o, 2, true).total.comm;
  EXPECT_GT(slow / quick, 50.0);  // bytes / bandwidth dominate at this size (100x the bandwidth)
  // Calibration files keep the method links (the wisdom writer stores calibrations).
  dfft::Wisdom w;
  w.calibrations.push_back(cal);
  auto again = dfft::parse_wisdom(dfft::to_json(w));
  ASSERT_EQ(again.calibrations.size(), 1u);
  ASSERT_EQ(again.calibrations[0].method_links.size(), 1u);
  EXPECT_EQ(again.calibrations[0].method_links[0].method, Method::nccl);
  EXPECT_DOUBLE_EQ(again.calibrations[0].method_links[0].link.bandwidth, 1e11);
}

TEST(Model, SubCommunicatorsTakeTheMethodsNearestLink) {
  // A 4-rank GPU calibration measures each method on all 4 ranks; a 2x2 pencil exchanges within
  // pairs. The pairs must get the method's link (NVLink-fast here), not the host all-to-all.
  auto cal = dfft::model::Calibration::defaults(4);
  cal.backend = "cuda";
  // Latencies far below the transfer times: the bandwidths decide (100x apart).
  cal.alltoall.push_back({2, 1e-9, 1e9});
  cal.method_links.push_back({Method::cuda_ipc, {4, 1e-9, 1e11}});
  cal.method_links.push_back({Method::cuda_ipc, {8, 1e-9, 5e11}});
  EXPECT_DOUBLE_EQ(cal.link(Method::cuda_ipc, 2).bandwidth, 1e11);
  EXPECT_DOUBLE_EQ(cal.link(Method::cuda_ipc, 7).bandwidth, 5e11);
  EXPECT_DOUBLE_EQ(cal.link(Method::nccl, 2).bandwidth, 1e9);  // not calibrated: all-to-all
  dfft::Options o;
  o.decomposition = Decomposition::pencil;
  o.grid = {2, 2};
  o.methods = {Method::cuda_ipc};
  const double ipc = dfft::model::predict(cal, {64, 64, 64}, o, 4, true).total.comm;
  o.methods = {Method::nccl};
  const double host = dfft::model::predict(cal, {64, 64, 64}, o, 4, true).total.comm;
  EXPECT_GT(host / ipc, 50.0);
  // On the CPU every method is host MPI: the all-to-all measured on pairs describes the pairs.
  cal.backend = "cpu";
  EXPECT_DOUBLE_EQ(cal.link(Method::cuda_ipc, 2).bandwidth, 1e9);
  EXPECT_DOUBLE_EQ(cal.link(Method::cuda_ipc, 4).bandwidth, 1e11);
}

TEST(Model, MultiAxisStepOverContiguousAxesRunsAtTheContiguousRate) {
  // slab-2d1d transforms (y, z) in one step: with a slow middle-axis rate a per-axis model would
  // charge y at that rate; a 2-D plan over the fastest two axes does not. (Two ranks: on one,
  // every decomposition is a single 3-D FFT.) The 1 x 2 pencil transforms y together with x,
  // after its exchange over the grid dimension of size 1 is merged away: y is a middle axis.
  auto cal = dfft::model::Calibration::defaults(2);
  cal.fft_middle[0] = cal.fft_contiguous[0] / 100;
  dfft::Options o;
  o.transform = dfft::Transform::c2c;
  auto slab = dfft::model::predict(cal, {64, 64, 64}, o, 2, true);
  o.decomposition = Decomposition::pencil;
  o.grid = {1, 2};
  auto pencil = dfft::model::predict(cal, {64, 64, 64}, o, 2, true);
  EXPECT_LT(slab.total.fft * 10, pencil.total.fft);
}

// Links of the two classes 100x apart in latency and bandwidth; the intra class is the
// ping-pong's own (ranks 0 and 1 on one node), and with no other links every message costs its
// class's ping-pong exactly.
dfft::model::Calibration two_class_calibration() {
  auto cal = dfft::model::Calibration::defaults(4);
  cal.pingpong = cal.intra = {2, 1e-6, 1e10};
  cal.inter = {2, 1e-4, 1e8};
  cal.nodes = 2;
  cal.pack_rate = 1e18;  // packing out of the picture: the slowest rank is the one messaging most
  return cal;
}

double exchange_comm(const dfft::model::Calibration& cal, Method m, std::vector<int> ranks_per_node,
                     dfft::Backend backend = dfft::Backend::cpu) {
  dfft::Options o;
  o.backend = backend;
  o.transform = dfft::Transform::c2c;
  o.decomposition = Decomposition::slab_2d1d;
  o.methods = {m};
  o.ranks_per_node = std::move(ranks_per_node);
  const auto p = dfft::model::predict(cal, {16, 16, 16}, o, 4, true);
  EXPECT_EQ(p.stages.at(1).name, "exchange0");
  return p.stages.at(1).t.comm;
}

TEST(Model, EachMessageIsChargedItsLinkClass) {
  const auto cal = two_class_calibration();
  // 16^3 complex doubles on 4 slabs: every rank sends 3 blocks of 4x4x16 elements, 4096 B each.
  const double in = 1e-6 + 4096 / 1e10, across = 1e-4 + 4096 / 1e8;
  EXPECT_NEAR(exchange_comm(cal, Method::p2p_sync, {4}), 3 * in, 1e-12);      // 1 node x 4
  EXPECT_NEAR(exchange_comm(cal, Method::p2p_sync, {1}), 3 * across, 1e-12);  // 4 nodes x 1
  EXPECT_NEAR(exchange_comm(cal, Method::p2p_sync, {2}), in + 2 * across, 1e-12);
  EXPECT_NEAR(exchange_comm(cal, Method::node_ring, {2}), in + 2 * across, 1e-12);
  EXPECT_NEAR(exchange_comm(cal, Method::per_peer, {2}), in + 2 * across, 1e-12);
  EXPECT_NEAR(exchange_comm(cal, Method::per_peer, {1}), 3 * across, 1e-12);
  // hierarchical on 2 x 2, a leader: its direct block (4096 B) and the scatter of the other
  // node's two blocks to its partner (8192 B) inside the node, one aggregate of the node's four
  // blocks (16384 B) to the other leader; it receives as much.
  EXPECT_NEAR(exchange_comm(cal, Method::hierarchical, {2}), 2e-6 + 12288 / 1e10 + 1e-4 + 16384 / 1e8, 1e-12);
  // per-peer on a GPU: the block inside the node on cuda-ipc's link, the two across on the link
  // of its inter-node transport (nccl or p2p-sync, neither calibrated here: the inter class).
  {
    auto gpu = cal;
    gpu.backend = "cuda";
    gpu.method_links.push_back({Method::cuda_ipc, {4, 1e-7, 1e12}});
    EXPECT_NEAR(exchange_comm(gpu, Method::per_peer, {2}, dfft::Backend::cuda), 1e-7 + 4096 / 1e12 + 2 * across,
                1e-12);
  }
  // No layout given (and DFFT_RANKS_PER_NODE unset in the test): one node.
  if (!std::getenv("DFFT_RANKS_PER_NODE")) {
    EXPECT_NEAR(exchange_comm(cal, Method::p2p_sync, {}), 3 * in, 1e-12);
  }
  // An explicit node list wins over the options and must have one entry per rank.
  dfft::Options o;
  o.decomposition = Decomposition::slab_2d1d;
  o.ranks_per_node = {4};
  const auto p = dfft::model::predict(cal, {16, 16, 16}, o, 4, true, {0, 0, 1, 1});
  o.ranks_per_node = {2};
  EXPECT_DOUBLE_EQ(p.total.comm, dfft::model::predict(cal, {16, 16, 16}, o, 4, true).total.comm);
  EXPECT_THROW(dfft::model::predict(cal, {16, 16, 16}, o, 4, true, {0, 1}), dfft::Error);
}

TEST(Model, LinkClassesScaleTheMeasuredLinksAndFallBack) {
  auto cal = two_class_calibration();
  cal.alltoall.push_back({4, 2e-6, 5e9});
  EXPECT_DOUBLE_EQ(cal.link(Method::a2a_sync, 4, false).bandwidth, 5e9);  // the ping-pong's class
  EXPECT_DOUBLE_EQ(cal.link(Method::a2a_sync, 4, true).bandwidth, 5e7);
  EXPECT_DOUBLE_EQ(cal.link(Method::a2a_sync, 4, true).latency, 2e-4);
  cal.inter = {};  // not measured: the all-to-all as it is
  EXPECT_DOUBLE_EQ(cal.link(Method::a2a_sync, 4, true).bandwidth, 5e9);
  EXPECT_DOUBLE_EQ(cal.link(Method::a2a_sync, 4, true).latency, 2e-6);
}

TEST(Model, PencilGridOrderFollowsTheNodes) {
  // 2 nodes of 4 ranks: the plan orders the grid 2x4 (the row exchange of 4 members inside a
  // node), and so must the prediction.
  dfft::Options o;
  o.decomposition = Decomposition::pencil;
  o.ranks_per_node = {4};
  EXPECT_EQ(dfft::model::predict(two_class_calibration(), {16, 16, 16}, o, 8, true).grid, (std::vector<int>{2, 4}));
}

TEST(Model, LinkClassesRoundTripAndOldCalibrationsLoad) {
  auto cal = two_class_calibration();
  cal.emulated_nodes = true;
  dfft::Wisdom w;
  w.calibrations.push_back(cal);
  cal.inter = {};  // not measured: stored as null, read back as not measured
  w.calibrations.push_back(cal);
  const auto again = dfft::parse_wisdom(dfft::to_json(w));
  ASSERT_EQ(again.calibrations.size(), 2u);
  const auto& a = again.calibrations[0];
  EXPECT_EQ(a.nodes, 2);
  EXPECT_TRUE(a.emulated_nodes);
  EXPECT_DOUBLE_EQ(a.intra.latency, 1e-6);
  EXPECT_DOUBLE_EQ(a.intra.bandwidth, 1e10);
  EXPECT_DOUBLE_EQ(a.inter.latency, 1e-4);
  EXPECT_DOUBLE_EQ(a.inter.bandwidth, 1e8);
  EXPECT_EQ(again.calibrations[1].inter.bandwidth, 0);
  EXPECT_DOUBLE_EQ(again.calibrations[1].intra.bandwidth, 1e10);
  EXPECT_TRUE(again.skipped.empty());
  // A calibration written before the link classes existed: both classes fall back to its
  // all-to-all link, so nodes change nothing.
  const auto old = dfft::model::calibration_from_json(R"({"ranks": 4, "backend": "cpu",
    "device": "cpu: test", "host": "h", "timestamp": "2024-01-01T00:00:00Z", "measured": true,
    "pingpong": {"size": 2, "latency_s": 2e-6, "bandwidth_Bps": 3e9},
    "alltoall": [{"size": 4, "latency_s": 3e-6, "bandwidth_Bps": 2e9}],
    "fft_flops": {"double": {"contiguous": 1e9, "middle": 1e9, "strided": 1e9},
                  "float": {"contiguous": 2e9, "middle": 2e9, "strided": 2e9}}, "pack_Bps": 4e9})");
  EXPECT_EQ(old.intra.bandwidth, 0);
  EXPECT_EQ(old.inter.bandwidth, 0);
  EXPECT_EQ(old.nodes, 1);
  for (bool inter : {false, true}) {
    EXPECT_DOUBLE_EQ(old.link(Method::a2a_sync, 4, inter).bandwidth, 2e9);
    EXPECT_DOUBLE_EQ(old.link(Method::a2a_sync, 4, inter).latency, 3e-6);
  }
  EXPECT_DOUBLE_EQ(exchange_comm(old, Method::p2p_sync, {1}), exchange_comm(old, Method::p2p_sync, {4}));
  EXPECT_NEAR(exchange_comm(old, Method::p2p_sync, {1}), 3 * (3e-6 + 4096 / 2e9), 1e-12);
}

// --- wisdom parser ------------------------------------------------------------------------

// The options of the default problem's key, as compact JSON (resolved fields as a machine of
// one node with a CPU "test" gives them).
std::string default_key_options() {
  auto key = dfft::wisdom_key({64, 64, 64}, 4, true, dfft::Options{});
  key.options["device"] = "cpu: test";
  key.options["ranks_per_node"] = "4";
  return nlohmann::json(key.options).dump();
}

const std::string kValid = R"({"dfft_wisdom": 1, "entries": [
 {"key": {"shape": [64, 64, 64], "ranks": 4, "precision": "double", "options": )" + default_key_options() + R"(},
  "choice": {"decomposition": "pencil", "variant": "realigned", "grid": [2, 2],
             "methods": ["a2a-sync", "p2p-type"], "chunks": 4},
  "seconds": 0.0123, "timestamp": "2024-01-01T00:00:00Z"}], "calibrations": []})";

// An entry as files written before the key was made from the option table hold it: its key
// names neither axes nor padding nor tolerance, so it may be for any of them.
const char* kOlderKey = R"({"dfft_wisdom": 1, "entries": [
 {"key": {"shape": [64, 64, 64], "ranks": 4, "grid": [], "precision": "double", "transform": "r2c",
          "backend": "cpu", "device": "cpu: test", "codec": "none", "batch": 1, "in_place": false,
          "r2r": [], "threads": 1, "transposed_out": false},
  "choice": {"decomposition": "pencil", "variant": "realigned", "grid": [2, 2],
             "methods": ["a2a-sync", "p2p-type"], "chunks": 4},
  "seconds": 0.0123, "timestamp": "2024-01-01T00:00:00Z"}], "calibrations": []})";

TEST(Wisdom, ValidFileRoundTrips) {
  auto w = dfft::parse_wisdom(kValid);
  ASSERT_EQ(w.entries.size(), 1u);
  EXPECT_TRUE(w.skipped.empty());
  const auto& e = w.entries[0];
  EXPECT_EQ(e.decomposition, Decomposition::pencil);
  EXPECT_EQ(e.grid, (std::vector<int>{2, 2}));
  EXPECT_EQ(e.methods, (std::vector<Method>{Method::a2a_sync, Method::p2p_type}));
  auto again = dfft::parse_wisdom(dfft::to_json(w));
  ASSERT_EQ(again.entries.size(), 1u);
  EXPECT_TRUE(again.entries[0].key == e.key);
  EXPECT_EQ(dfft::to_json(again), dfft::to_json(w));
  auto cal = dfft::model::Calibration::defaults(3);
  w.calibrations.push_back(cal);
  auto with_cal = dfft::parse_wisdom(dfft::to_json(w));
  ASSERT_EQ(with_cal.calibrations.size(), 1u);
  EXPECT_EQ(with_cal.calibrations[0].ranks, 3);
  EXPECT_EQ(with_cal.calibrations[0].pack_rate, cal.pack_rate);
}

// The tuner's choice is what the option table marks as one (OptionField::from_choice): a wisdom
// entry's "choice" object holds exactly those fields, with_choice() puts each of them in place and
// leaves every other field as it was.
TEST(Wisdom, TheChoiceIsTheTablesChoiceFields) {
  auto w = dfft::parse_wisdom(kValid);
  ASSERT_EQ(w.entries.size(), 1u);
  dfft::WisdomEntry& e = w.entries[0];
  e.chunks = 7;
  e.overlap = 3;
  e.in_flight = 5;
  const auto doc = nlohmann::json::parse(dfft::to_json(w));
  const auto& choice = doc.at("entries").at(0).at("choice");
  std::vector<std::string> stored, marked;
  for (auto it = choice.begin(); it != choice.end(); ++it) stored.push_back(it.key());
  for (const auto& f : dfft::option_fields())
    if (f.from_choice) marked.emplace_back(f.name);
  std::sort(stored.begin(), stored.end());
  std::sort(marked.begin(), marked.end());
  EXPECT_EQ(stored, marked);

  dfft::Options base;
  for (const auto& f : dfft::option_fields()) dfft::set_option(base, f.name, dfft_test::other_value(f));
  const dfft::Options got = dfft::detail::with_choice(base, e);
  for (const auto& f : dfft::option_fields()) {
    SCOPED_TRACE(std::string(f.name));
    if (!f.from_choice) {
      EXPECT_EQ(f.get(got), f.get(base));
      continue;
    }
    // The entry's value, as its JSON text holds it.
    dfft::Options from_file;
    f.from_choice(from_file, e);
    EXPECT_EQ(f.get(got), f.get(from_file));
    const auto& v = choice.at(std::string(f.name));
    const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
    if (!v.is_array()) {
      EXPECT_EQ(f.get(got), text);
    }
  }
  // Read back, every choice is the entry's.
  const auto back = dfft::parse_wisdom(dfft::to_json(w));
  ASSERT_EQ(back.entries.size(), 1u);
  const dfft::Options written = dfft::detail::with_choice(base, e);
  const dfft::Options read = dfft::detail::with_choice(base, back.entries[0]);
  for (const auto& f : dfft::option_fields()) EXPECT_EQ(f.get(read), f.get(written)) << f.name;
}

TEST(Wisdom, MalformedDocumentsThrowWisdomErrors) {
  const std::vector<std::string> bad{
      "", "null", "[]", "{}", "{\"dfft_wisdom\": 2}", "{\"dfft_wisdom\": \"1\"}", "{\"dfft_wisdom\": 1.5}",
      "{\"dfft_wisdom\": 1, \"entries\": {}}", "{\"dfft_wisdom\": 1,", std::string(100000, '['),
      "{\"dfft_wisdom\": 1, \"entries\": [\"\xff\xfe\"]}", "\x00\x01garbage", "{\"dfft_wisdom\": -1}"};
  for (const auto& text : bad) {
    try {
      dfft::parse_wisdom(text);
      ADD_FAILURE() << "accepted: " << text.substr(0, 40);
    } catch (const dfft::Error& e) {
      EXPECT_EQ(e.call(), "wisdom") << text.substr(0, 40);
    }
  }
}

TEST(Wisdom, MalformedEntriesAreSkippedNotTrusted) {
  std::string base = kValid;
  auto with = [&](const std::string& from, const std::string& to) {
    std::string s = base;
    auto at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  const std::vector<std::string> variants{
      with("\"ranks\": 4", "\"ranks\": -4"),
      with("\"ranks\": 4", "\"ranks\": 4.5"),
      with("\"ranks\": 4", "\"ranks\": 99999999999999999999"),
      with("[64, 64, 64]", "[64]"),
      with("[64, 64, 64]", "[64, \"x\", 64]"),
      with("\"pencil\"", "\"cube\""),
      with("\"p2p-type\"", "\"carrier-pigeon\""),
      with("\"grid\": [2, 2]", "\"grid\": []"),
      with("\"chunks\": 4", "\"chunks\": 0"),
      with("\"chunks\": 4", "\"chunks\": \"four\""),
      with("\"chunks\": 4", "\"chunks\": [4]"),
      with("\"pencil\"", "\"auto\""),
      with("\"grid\": [2, 2]", "\"grid\": [1, 1, 1, 1, 1, 1, 1, 1, 4]"),
      with("\"grid\": [2, 2]", "\"grid\": {\"x\": 2}"),
      with("\"choice\"", "\"choice\": 1, \"was\""),
      with("\"seconds\": 0.0123", "\"seconds\": \"fast\""),
      with("\"choice\"", "\"choix\""),
      with("\"in_place\":\"false\"", "\"in_place\":\"maybe\""),
      with("\"in_place\":\"false\"", "\"in_place\":false"),
      with("\"in_place\":\"false\",", ""),
      with("\"options\": {", "\"options\": {\"future_field\":\"1\","),
      with("\"options\": {", "\"settings\": {"),
  };
  for (const auto& text : variants) {
    auto w = dfft::parse_wisdom(text);
    EXPECT_TRUE(w.entries.empty()) << text;
    EXPECT_EQ(w.skipped.size(), 1u) << text;
  }
}

// A key of another format is never matched, whatever it says, and is written back as it was.
TEST(Wisdom, AnOlderKeyFormatIsAMissAndIsKept) {
  auto w = dfft::parse_wisdom(kOlderKey);
  EXPECT_TRUE(w.entries.empty());
  ASSERT_EQ(w.skipped.size(), 1u);
  EXPECT_NE(w.skipped[0].find("another format"), std::string::npos) << w.skipped[0];
  ASSERT_EQ(w.kept_entries.size(), 1u);
  dfft::Options o;
  o.grid = {2, 2};
  std::vector<std::string> warnings;
  auto key = dfft::wisdom_key({64, 64, 64}, 4, true, o);
  EXPECT_FALSE(dfft::detail::find_wisdom(w, key, o, 3, warnings));
  // A rewrite with a new entry keeps the old one beside it.
  dfft::WisdomEntry e;
  e.key = key;
  e.decomposition = Decomposition::pencil;
  e.grid = {2, 2};
  e.methods = {Method::a2a_sync};
  w.entries.push_back(e);
  const auto doc = nlohmann::json::parse(dfft::to_json(w));
  ASSERT_EQ(doc["entries"].size(), 2u);
  EXPECT_EQ(doc["entries"][0], nlohmann::json::parse(kOlderKey)["entries"][0]);
  const auto again = dfft::parse_wisdom(dfft::to_json(w));
  EXPECT_EQ(again.entries.size(), 1u);
  EXPECT_EQ(again.kept_entries.size(), 1u);
  EXPECT_TRUE(dfft::detail::find_wisdom(again, key, o, 3, warnings));
}

// Changing any field of the problem in turn misses the entry stored for the plain problem;
// changing a field that is not part of it (the tuner's choices, tuning settings) still hits.
TEST(Wisdom, EveryProblemFieldChangedIsAMiss) {
  const std::vector<std::int64_t> shape{16, 12, 8};
  const dfft::Options plain;
  dfft::Wisdom w;
  dfft::WisdomEntry e;
  e.key = dfft::wisdom_key(shape, 1, true, plain);
  e.grid = {1};
  e.methods = {Method::a2a_sync};
  w.entries.push_back(e);
  w = dfft::parse_wisdom(dfft::to_json(w));  // as a later run reads it from the file
  std::vector<std::string> warnings;
  auto found = [&](const std::vector<std::int64_t>& s, int ranks, bool is_double, const dfft::Options& o) {
    return dfft::detail::find_wisdom(w, dfft::wisdom_key(s, ranks, is_double, o), o, 3, warnings).has_value();
  };
  ASSERT_TRUE(found(shape, 1, true, plain));
  EXPECT_FALSE(found({16, 12, 9}, 1, true, plain));
  EXPECT_FALSE(found(shape, 2, true, plain));
  EXPECT_FALSE(found(shape, 1, false, plain));
  for (const auto& f : dfft::option_fields()) {
    dfft::Options o;
    dfft::set_option(o, f.name, dfft_test::other_value(f));
    EXPECT_EQ(found(shape, 1, true, o), !f.wisdom_key) << f.name << " = " << f.get(o);
  }
  // What changes the result, the layout or which plan is fastest (docs/tuning.md).
  for (const char* name : {"transform", "r2r", "axes", "padding", "input_halo", "output_halo", "norm", "batch",
                           "in_place", "destroy_input", "grid", "transposed_out", "ranks_per_node", "codec",
                           "tolerance", "in_flight", "adapt", "backend", "device", "threads"})
    EXPECT_TRUE(dfft::option_field(name).wisdom_key) << name << " is not in the wisdom key";
  // What the tuner chooses: the stored choice, not the key.
  for (const char* name : {"decomposition", "variant", "methods", "chunks", "overlap"})
    EXPECT_FALSE(dfft::option_field(name).wisdom_key) << name << " is in the wisdom key";
}

}  // namespace
