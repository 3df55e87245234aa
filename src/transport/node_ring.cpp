// SPDX-License-Identifier: MIT
// node-ring: point-to-point messages in a ring over nodes. Round 0 exchanges the blocks inside
// each node; at round s > 0 node n sends only to node (n + s) mod N and receives only from
// node (n - s) mod N, so every node's outgoing link carries one node pair's traffic at a time.
// Inside a round the i-th rank of a node starts with the i-th rank of the target node and
// walks around it, so the ranks of the target node receive from different senders at once.
#include <vector>

#include "transport/topology.hpp"

namespace dfft::detail {

namespace {

std::vector<PeerRound> node_ring_rounds(const ExchangeSpec& s) {
  Topology topo;
  for (int k = 0; k < static_cast<int>(s.src.size()); ++k) topo.node.push_back(node_of(s, k));
  const int nodes = topo.nodes(), mine = topo.node[s.me], i = topo.rank_in_node(s.me);
  std::vector<PeerRound> rounds;
  for (int step = 0; step < nodes; ++step) {
    const auto to = topo.members((mine + step) % nodes);
    const auto from = topo.members((mine - step + nodes) % nodes);
    PeerRound r;
    const int m = static_cast<int>(to.size());
    for (int j = 0; j < m; ++j) {
      const int k = to[(i + j) % m];
      if (k != s.me) r.to.push_back(k);
    }
    for (int k : from)
      if (k != s.me) r.from.push_back(k);
    rounds.push_back(std::move(r));
  }
  return rounds;
}

}  // namespace

std::unique_ptr<Transport> make_node_ring(MPI_Comm c, const ExchangeSpec& s, Device& d) {
  return make_p2p_rounds(c, s, d, node_ring_rounds(s));
}

}  // namespace dfft::detail
