// SPDX-License-Identifier: MIT
// Which ranks share a node: detected (MPI_COMM_TYPE_SHARED) or emulated (Options::ranks_per_node,
// DFFT_RANKS_PER_NODE). Node-aware transports order or aggregate their messages by node, and the
// plan reports how many messages and bytes stay inside a node (docs/nodes.md).
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "dfft/types.hpp"
#include "transport/transport.hpp"

namespace dfft::detail {

struct Topology {
  std::vector<int> node;  // per member: node index, numbered 0, 1, ... by first member
  int devices_per_node = 0;  // most distinct GPUs the ranks of one node use (0 on the CPU backend)
  bool emulated = false;
  int nodes() const;
  /// Members of node n, ascending.
  std::vector<int> members(int n) const;
  int rank_in_node(int member) const;
  /// The topology of a sub-communicator whose member k is member `parent_ranks[k]` here.
  Topology restrict_to(const std::vector<int>& parent_ranks) const;
};

/// This rank's place among the ranks of comm that share its memory (the real node, never an
/// emulated one): its rank there and how many they are.
struct SharedNode {
  int rank = 0, size = 1;
};
SharedNode shared_node(MPI_Comm comm);
/// Collective over comm: the real node (MPI_COMM_TYPE_SHARED, never an emulated one) of every
/// rank of comm, numbered 0, 1, ... by first member.
std::vector<int> shared_memory_nodes(MPI_Comm comm);

/// Node of each of `ranks` consecutive ranks for a layout in Options::ranks_per_node form;
/// a layout that does not fit `ranks` fails saying what is allowed.
std::vector<int> emulated_nodes(const std::vector<int>& layout, int ranks);
/// "4" or "3,1" (DFFT_RANKS_PER_NODE); anything else fails.
std::vector<int> parse_node_layout(const std::string& text);

/// The emulated layout make_topology takes (the option, else DFFT_RANKS_PER_NODE) as the node
/// of each of `ranks` ranks, without MPI; empty when neither is given.
std::vector<int> emulated_layout(const std::vector<int>& option, int ranks);

/// Collective over comm: the option wins over DFFT_RANKS_PER_NODE, which wins over detection.
/// Every rank must give the same layout; a refusal is raised on every rank.
Topology make_topology(MPI_Comm comm, const std::vector<int>& option);

/// Pencil grids: of the orders of the factors of `grid`, the one whose exchanges send the most
/// bytes inside a node (grid dimension g's sub-communicators are the ranks that differ only in
/// coordinate g; the last dimension is the fastest). Ties keep `grid`.
std::vector<int> node_aware_grid(const std::vector<int>& grid, const Topology& topo);

/// What member spec.me sends in one execution of an exchange with method m.
NodeTraffic sent_traffic(Method m, const ExchangeSpec& spec);
/// hierarchical's messages (src/transport/hierarchical.cpp).
NodeTraffic hierarchical_traffic(const ExchangeSpec& spec);

/// Node of member k (0 where spec.node is empty: one node).
inline int node_of(const ExchangeSpec& s, int k) { return s.node.empty() ? 0 : s.node[k]; }

/// Adds one message of `bytes` from member `from` to member `to` to t.
inline void count_message(NodeTraffic& t, const ExchangeSpec& s, int from, int to, std::int64_t bytes) {
  if (node_of(s, from) == node_of(s, to)) {
    ++t.intra_node_messages;
    t.intra_node_bytes += bytes;
  } else {
    ++t.inter_node_messages;
    t.inter_node_bytes += bytes;
  }
}

}  // namespace dfft::detail
