// SPDX-License-Identifier: MIT
#include "transport/topology.hpp"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <sstream>

#include "codec/codec.hpp"
#include "util/check.hpp"

namespace dfft::detail {

int Topology::nodes() const { return node.empty() ? 0 : *std::max_element(node.begin(), node.end()) + 1; }

std::vector<int> Topology::members(int n) const {
  std::vector<int> m;
  for (int k = 0; k < static_cast<int>(node.size()); ++k)
    if (node[k] == n) m.push_back(k);
  return m;
}

int Topology::rank_in_node(int member) const {
  int r = 0;
  for (int k = 0; k < member; ++k) r += node[k] == node[member];
  return r;
}

namespace {

// Renumbers node labels 0, 1, ... in the order of their first member.
std::vector<int> compact(const std::vector<int>& label) {
  std::vector<int> seen, out;
  for (int l : label) {
    auto it = std::find(seen.begin(), seen.end(), l);
    out.push_back(static_cast<int>(it - seen.begin()));
    if (it == seen.end()) seen.push_back(l);
  }
  return out;
}

std::string join_sizes(const std::vector<int>& v) {
  std::ostringstream s;
  for (std::size_t i = 0; i < v.size(); ++i) s << (i ? "," : "") << v[i];
  return s.str();
}

}  // namespace

Topology Topology::restrict_to(const std::vector<int>& parent_ranks) const {
  Topology t;
  std::vector<int> label;
  for (int r : parent_ranks) label.push_back(node[r]);
  t.node = compact(label);
  t.devices_per_node = devices_per_node;
  t.emulated = emulated;
  return t;
}

std::vector<int> emulated_nodes(const std::vector<int>& layout, int ranks) {
  const std::string allowed = "a node layout is k (nodes of k consecutive ranks, k dividing the " +
                              std::to_string(ranks) + " ranks) or a list of positive node sizes summing to " +
                              std::to_string(ranks);
  for (int v : layout)
    if (v < 1) fail("ranks per node '", join_sizes(layout), "': sizes must be positive; ", allowed);
  std::vector<int> sizes = layout;
  if (layout.size() == 1) {
    if (ranks % layout[0] != 0)
      fail("ranks per node ", layout[0], " does not divide the ", ranks, " ranks; ", allowed);
    sizes.assign(static_cast<std::size_t>(ranks / layout[0]), layout[0]);
  }
  if (std::accumulate(sizes.begin(), sizes.end(), 0LL) != ranks)
    fail("node sizes '", join_sizes(layout), "' do not sum to the ", ranks, " ranks; ", allowed);
  std::vector<int> node;
  for (std::size_t n = 0; n < sizes.size(); ++n) node.insert(node.end(), static_cast<std::size_t>(sizes[n]), static_cast<int>(n));
  return node;
}

std::vector<int> parse_node_layout(const std::string& text) {
  std::vector<int> out;
  std::stringstream s(text);
  std::string item;
  while (std::getline(s, item, ',')) {
    char* end = nullptr;
    const long v = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || v < -1000000 || v > 1000000)
      fail("DFFT_RANKS_PER_NODE='", text, "': give k (ranks per node) or node sizes like 3,1");
    out.push_back(static_cast<int>(v));
  }
  if (out.empty()) fail("DFFT_RANKS_PER_NODE is empty: give k (ranks per node) or node sizes like 3,1");
  return out;
}

namespace {

// DFFT_RANKS_PER_NODE where it decides the layout: set, non-empty, and no option given.
const char* layout_from_env(const std::vector<int>& option) {
  const char* env = std::getenv("DFFT_RANKS_PER_NODE");
  return option.empty() && env && *env ? env : nullptr;
}

}  // namespace

std::vector<int> emulated_layout(const std::vector<int>& option, int ranks) {
  const char* env = layout_from_env(option);
  if (option.empty() && !env) return {};
  return emulated_nodes(env ? parse_node_layout(env) : option, ranks);
}

namespace {

// Every rank's encoded layout source must be the same: min == max elementwise, same length.
bool same_on_all(MPI_Comm comm, std::vector<std::int64_t> v) {
  std::int64_t n = static_cast<std::int64_t>(v.size()), lo = 0, hi = 0;
  DFFT_MPI(MPI_Allreduce(&n, &lo, 1, MPI_INT64_T, MPI_MIN, comm));
  DFFT_MPI(MPI_Allreduce(&n, &hi, 1, MPI_INT64_T, MPI_MAX, comm));
  if (lo != hi) return false;
  std::vector<std::int64_t> a(v.size()), b(v.size());
  DFFT_MPI(MPI_Allreduce(v.data(), a.data(), static_cast<int>(n), MPI_INT64_T, MPI_MIN, comm));
  DFFT_MPI(MPI_Allreduce(v.data(), b.data(), static_cast<int>(n), MPI_INT64_T, MPI_MAX, comm));
  return a == b;
}

}  // namespace

std::vector<int> shared_memory_nodes(MPI_Comm comm) {
  int rank = 0, size = 1;
  DFFT_MPI(MPI_Comm_rank(comm, &rank));
  DFFT_MPI(MPI_Comm_size(comm, &size));
  MPI_Comm shared;
  DFFT_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared));
  int leader = rank;  // the node is named by its lowest rank in comm
  const int rc = MPI_Bcast(&leader, 1, MPI_INT, 0, shared);
  MPI_Comm_free(&shared);
  DFFT_MPI(rc);
  std::vector<int> label(static_cast<std::size_t>(size));
  DFFT_MPI(MPI_Allgather(&leader, 1, MPI_INT, label.data(), 1, MPI_INT, comm));
  return compact(label);
}

SharedNode shared_node(MPI_Comm comm) {
  MPI_Comm node;
  DFFT_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  SharedNode r;
  int rc = MPI_Comm_rank(node, &r.rank);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_size(node, &r.size);
  MPI_Comm_free(&node);
  DFFT_MPI(rc);
  return r;
}

Topology make_topology(MPI_Comm comm, const std::vector<int>& option) {
  int rank = 0, size = 1;
  DFFT_MPI(MPI_Comm_rank(comm, &rank));
  DFFT_MPI(MPI_Comm_size(comm, &size));
  const char* env = layout_from_env(option);
  const bool from_env = env != nullptr;
  std::vector<int> layout = option;
  std::string parse_error;
  if (from_env) {
    try {
      layout = parse_node_layout(env);
    } catch (const Error& e) {
      parse_error = e.what();
    }
  }
  // Decide together, so that a refusal reaches every rank and none is left in a collective.
  std::vector<std::int64_t> code{from_env, !parse_error.empty()};
  code.insert(code.end(), layout.begin(), layout.end());
  if (!same_on_all(comm, code))
    fail(from_env ? "DFFT_RANKS_PER_NODE" : "Options::ranks_per_node",
         " differs between ranks; give the same node layout on every rank");
  if (!parse_error.empty()) fail(parse_error);
  Topology t;
  t.emulated = !layout.empty();
  t.node = t.emulated ? emulated_nodes(layout, size) : shared_memory_nodes(comm);
  return t;
}

namespace {

// Inter-node cost of a grid: first the bytes (every rank's peers on another node, each weighted
// by 1/grid[g]: an exchange over p members sends each peer about 1/p of a rank's data), then
// the number of messages. Equal bytes happen (2 nodes of 4 ranks: 4x2 and 2x4 both send half
// the data across); fewer, larger inter-node messages then win, which keeps the exchange with
// the most members, and so the most bytes, inside a node.
struct GridCost {
  double bytes = 0;
  int messages = 0;
  bool operator<(const GridCost& o) const {
    if (bytes < o.bytes - 1e-9) return true;
    return bytes <= o.bytes + 1e-9 && messages < o.messages;
  }
};

GridCost inter_node_cost(const std::vector<int>& grid, const Topology& topo) {
  const int ranks = static_cast<int>(topo.node.size());
  GridCost cost;
  for (int r = 0; r < ranks; ++r) {
    int stride = 1;
    for (int g = static_cast<int>(grid.size()) - 1; g >= 0; --g) {
      const int c = r / stride % grid[g];
      for (int j = 0; j < grid[g]; ++j) {
        const int peer = r + (j - c) * stride;
        if (j != c && topo.node[peer] != topo.node[r]) {
          cost.bytes += 1.0 / grid[g];
          ++cost.messages;
        }
      }
      stride *= grid[g];
    }
  }
  return cost;
}

}  // namespace

std::vector<int> node_aware_grid(const std::vector<int>& grid, const Topology& topo) {
  if (grid.size() < 2 || topo.nodes() < 2) return grid;
  std::vector<int> best = grid, cand = grid;
  GridCost best_cost = inter_node_cost(grid, topo);
  std::sort(cand.begin(), cand.end());
  do {
    const GridCost c = inter_node_cost(cand, topo);
    if (c < best_cost) {
      best = cand;
      best_cost = c;
    }
  } while (std::next_permutation(cand.begin(), cand.end()));
  return best;
}

NodeTraffic sent_traffic(Method m, const ExchangeSpec& s) {
  if (m == Method::hierarchical) return hierarchical_traffic(s);
  // Every other method, per-peer included (its two parts together send one message per
  // non-empty block, as p2p-sync does), sends each block to its receiver.
  NodeTraffic t;
  const int n = static_cast<int>(s.src.size());
  for (int k = 0; k < n; ++k) {
    if (k == s.me) continue;
    const auto count = intersect(s.src[s.me].box, s.dst[k].box).count();
    if (count > 0) count_message(t, s, s.me, k, wire_bytes(s.codec, s.elem, count));
  }
  return t;
}

}  // namespace dfft::detail
