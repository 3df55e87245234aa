// SPDX-License-Identifier: MIT
// Predictions for clusters past the machines at hand (docs/models.md, "Predictions for
// clusters"): a cube's forward transform as local FFT flops over a flop rate, packing over a
// copy rate, and all-to-all exchanges whose messages cost L + d/B on the intra-node or the
// inter-node link, flat or aggregated per node pair.
#include <algorithm>
#include <cmath>
#include <set>

#include "dfft/model.hpp"
#include "tune/json_util.hpp"

namespace dfft::model {

namespace {

namespace json = dfft::detail::json;

constexpr double kMaxRate = 1e18;

// A link given in the units people quote: GB/s and microseconds.
Link link_from(const json::json& v) {
  Link l;
  l.bandwidth = json::number(v, "bandwidth_GBps", 1e-6, 1e6) * 1e9;
  l.latency = json::number(v, "latency_us", 0, 1e6) * 1e-6;
  return l;
}

// Flop count of a forward transform of an n^3 cube (FFTW convention; r2c half of c2c).
double cube_flops(double n, bool r2c) { return (r2c ? 2.5 : 5.0) * n * n * n * std::log2(n * n * n); }

// Rank 0's node sends to these other nodes, counting every rank of that node: an aggregated
// exchange sends one message per node pair.
int remote_nodes(int ranks, int per_node, int size, int stride) {
  std::set<int> nodes;
  for (int r = 0; r < std::min(per_node, ranks); ++r) {
    const int base = stride == 1 ? r / size * size : r % stride;
    for (int k = 0; k < size; ++k) nodes.insert((base + k * stride) / per_node);
  }
  nodes.erase(0);
  return static_cast<int>(nodes.size());
}

}  // namespace

Cluster cluster_from_json(const std::string& text) {
  const auto v = json::parse_checked(text);
  Cluster c;
  c.name = json::string(v, "name", 64);
  if (json::has(v, "description")) c.description = json::string(v, "description", 1024);
  c.gpus_per_node = static_cast<int>(json::integer(v, "gpus_per_node", 1, 1 << 16));
  if (json::has(v, "gpu_memory_GB")) c.gpu_memory = json::number(v, "gpu_memory_GB", 0, 1e9) * 1e9;
  const auto& links = json::member(v, "links");
  c.intra = link_from(json::member(links, "intra_node"));
  c.inter = link_from(json::member(links, "inter_node"));
  c.link_source = json::string(links, "source", 1024);
  c.link_assumed = json::boolean(links, "assumed");
  // The FFT rate from one transform's time: flops of that transform over its time, times a
  // scale (another device's rate derived from a measured one).
  const auto& f = json::member(v, "fft");
  const double ref_n = static_cast<double>(json::integer(f, "reference_n", 2, 1 << 20));
  const std::string t = json::string(f, "reference_transform", 8);
  if (t != "r2c" && t != "c2c") json::bad("field 'reference_transform' must be r2c or c2c");
  const double scale = json::number(f, "scale", 1e-6, 1e6);
  c.fft_rate[0] = cube_flops(ref_n, t == "r2c") / (json::number(f, "double_ms", 1e-9, 1e9) * 1e-3) * scale;
  c.fft_rate[1] = cube_flops(ref_n, t == "r2c") / (json::number(f, "float_ms", 1e-9, 1e9) * 1e-3) * scale;
  c.fft_source = json::string(f, "source", 1024);
  c.fft_assumed = json::boolean(f, "assumed");
  const auto& p = json::member(v, "pack");
  c.pack_rate = json::number(p, "bandwidth_GBps", 1e-6, kMaxRate * 1e-9) * 1e9;
  c.pack_source = json::string(p, "source", 1024);
  c.pack_assumed = json::boolean(p, "assumed");
  return c;
}

ExchangeCost cluster_exchange(const Cluster& c, int ranks, int size, int stride, double bytes_per_rank,
                              NodeExchange how) {
  ExchangeCost e;
  e.size = size;
  const int g = c.gpus_per_node;
  e.local = 0;
  for (int k = 0; k < size; ++k) e.local += k * stride / g == 0;
  e.remote_nodes = remote_nodes(ranks, g, size, stride);
  const double d = bytes_per_rank / size;  // per peer: the array is split evenly over the members
  e.intra_messages = e.local - 1;
  e.intra_bytes = (e.local - 1) * d;
  e.inter_messages = size - e.local;
  e.inter_bytes = (size - e.local) * d;
  if (how == NodeExchange::node_aware && e.remote_nodes > 0) {
    // The node's ranks send one message per remote node, spread over their g network links;
    // each rank hands the (g-1)/g of its inter-node bytes that other GPUs' links carry to them
    // and receives as much back (gather, scatter), one message to and from each GPU of the node.
    const double on_node = std::min(g, ranks);
    e.inter_messages = e.remote_nodes / on_node;
    e.intra_messages += 2 * (on_node - 1);
    e.intra_bytes += 2 * e.inter_bytes * (on_node - 1) / on_node;
  }
  e.latency = e.intra_messages * c.intra.latency + e.inter_messages * c.inter.latency;
  e.intra = e.intra_messages * c.intra.latency + e.intra_bytes / c.intra.bandwidth;
  e.inter = e.inter_messages * c.inter.latency + e.inter_bytes / c.inter.bandwidth;
  return e;
}

namespace {

ClusterPrediction impossible(std::vector<int> grid, std::string why) {
  ClusterPrediction p;
  p.grid = std::move(grid);
  p.why = std::move(why);
  return p;
}

ClusterPrediction predict_grid(const Cluster& c, std::int64_t n, int gpus, bool is_double, bool r2c,
                               std::vector<int> grid, NodeExchange how) {
  const auto nn = static_cast<double>(n);
  const std::string edge = std::to_string(n);
  if (grid.size() == 1 && grid[0] > n)
    return impossible(grid, "slab needs P <= N: " + std::to_string(gpus) + " > " + edge);
  if (grid.size() == 2 && (grid[0] > n || grid[1] > (r2c ? n / 2 + 1 : n)))
    return impossible(grid, "pencil needs P1 <= N and P2 <= " + std::string(r2c ? "N/2+1" : "N"));
  ClusterPrediction p;
  p.possible = true;
  p.grid = grid;
  const double spectral = r2c ? nn * nn * (nn / 2 + 1) : nn * nn * nn;
  const double bytes = spectral * (is_double ? 16 : 8) / gpus;  // one rank's complex array
  p.memory = 2 * bytes;
  p.fft = cube_flops(nn, r2c) / gpus / c.fft_rate[is_double ? 0 : 1];
  if (grid.size() == 1) p.exchanges.push_back(cluster_exchange(c, gpus, gpus, 1, bytes, how));
  else {
    p.exchanges.push_back(cluster_exchange(c, gpus, grid[1], 1, bytes, how));        // rows
    p.exchanges.push_back(cluster_exchange(c, gpus, grid[0], grid[1], bytes, how));  // columns
  }
  for (const auto& e : p.exchanges) {
    p.pack += 2 * bytes / c.pack_rate;  // pack what is sent, unpack what arrives
    p.intra += e.intra;
    p.inter += e.inter;
    p.comm += std::max(e.intra, e.inter);
  }
  return p;
}

}  // namespace

ClusterPrediction predict_cluster(const Cluster& c, std::int64_t n, int gpus, bool is_double, bool r2c,
                                  bool pencil, NodeExchange how, std::vector<int> grid) {
  if (n < 2 || gpus < 1) throw Error("plan", 0, -1, "predict_cluster: needs n >= 2 and at least one GPU");
  if (gpus > c.gpus_per_node && gpus % c.gpus_per_node != 0)
    return impossible({}, "whole nodes only: " + std::to_string(gpus) + " is not a multiple of " +
                              std::to_string(c.gpus_per_node));
  if (!pencil) return predict_grid(c, n, gpus, is_double, r2c, {gpus}, how);
  if (!grid.empty()) {
    if (grid.size() != 2 || grid[0] < 1 || grid[1] < 1 || grid[0] * grid[1] != gpus)
      throw Error("plan", 0, -1, "predict_cluster: a pencil grid is P1 x P2 with P1 * P2 = P");
    return predict_grid(c, n, gpus, is_double, r2c, grid, how);
  }
  ClusterPrediction best = impossible({}, "no pencil grid P1 x P2 = " + std::to_string(gpus) +
                                              " with both >= 2 fits the cube");
  for (int p1 = 2; p1 <= gpus / 2; ++p1) {
    if (gpus % p1) continue;
    auto p = predict_grid(c, n, gpus, is_double, r2c, {p1, gpus / p1}, how);
    if (p.possible && (!best.possible || p.total() < best.total())) best = p;
  }
  return best;
}

}  // namespace dfft::model
