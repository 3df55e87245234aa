// SPDX-License-Identifier: MIT
// per-peer: one exchange, two transports chosen by link class. The blocks among the members of
// a node (the rank's own block included) go over the fastest path inside a node: cuda-ipc on a
// GPU, p2p-sync over shared memory on the CPU. That transport runs on a communicator of the
// node's members only, so cuda-ipc never sees a peer whose memory it cannot map. The blocks to
// and from the other nodes go over the exchange's communicator with the node's members masked
// out (ExchangeSpec::peers): nccl on a GPU where dfft has NCCL and no two ranks share a GPU,
// else p2p-sync (MPI, host-staged or CUDA-aware as ExchangeSpec::staging says).
#include <algorithm>
#include <cstring>
#include <vector>

#include "transport/pack_common.hpp"
#include "transport/topology.hpp"
#include "util/check.hpp"

namespace dfft::detail {

PerPeerParts per_peer_parts(const ExchangeSpec& s) {
  const int n = static_cast<int>(s.src.size()), mine = node_of(s, s.me);
  PerPeerParts p;
  int labels = 1;
  for (int k = 0; k < n; ++k) labels = std::max(labels, node_of(s, k) + 1);
  std::vector<int> per_node(static_cast<std::size_t>(labels), 0);
  for (int k = 0; k < n; ++k) {
    ++per_node[static_cast<std::size_t>(node_of(s, k))];
    if (node_of(s, k) == mine) p.members.push_back(k);
  }
  const bool one_node = static_cast<int>(p.members.size()) == n;
  bool one_per_node = true;
  for (int c : per_node) one_per_node &= c <= 1;
  p.has_intra = !one_per_node || one_node;
  p.has_inter = !one_node;
  if (one_node) {
    p.intra = s;
    return p;
  }
  if (one_per_node) {
    p.inter = s;
    return p;
  }
  p.intra = s;
  p.intra.src.clear();
  p.intra.dst.clear();
  p.intra.node.clear();
  for (std::size_t i = 0; i < p.members.size(); ++i) {
    p.intra.src.push_back(s.src[p.members[i]]);
    p.intra.dst.push_back(s.dst[p.members[i]]);
    if (p.members[i] == s.me) p.intra.me = static_cast<int>(i);
  }
  p.inter = s;
  p.inter.peers.assign(static_cast<std::size_t>(n), 0);
  for (int k = 0; k < n; ++k) p.inter.peers[static_cast<std::size_t>(k)] = node_of(s, k) != mine;
  return p;
}

Method per_peer_intra_method(bool on_device) { return on_device ? Method::cuda_ipc : Method::p2p_sync; }

Method per_peer_inter_method([[maybe_unused]] bool on_device) {
#ifdef DFFT_HAS_NCCL
  if (on_device) return Method::nccl;
#endif
  return Method::p2p_sync;
}

namespace {

// Collective over `comm` and then over `parent`: whether the inter-node part goes over nccl.
// nccl wants one GPU per rank (same host and same device ordinal is one GPU), and making its
// communicator is collective over the plan's communicator, so the answer is one for every
// sub-communicator of the exchange: nccl only where every one of them crosses nodes and none
// has ranks sharing a GPU.
bool inter_over_nccl([[maybe_unused]] MPI_Comm comm, [[maybe_unused]] MPI_Comm parent,
                     [[maybe_unused]] const PerPeerParts& p, [[maybe_unused]] const Device& dev) {
#ifdef DFFT_HAS_NCCL
  struct Gpu {
    char host[MPI_MAX_PROCESSOR_NAME];
    int ordinal;
  };
  Gpu mine{};
  int len = 0;
  DFFT_MPI(MPI_Get_processor_name(mine.host, &len));
  mine.ordinal = dev.ordinal();
  int n = 0;
  DFFT_MPI(MPI_Comm_size(comm, &n));
  std::vector<Gpu> all(static_cast<std::size_t>(n));
  DFFT_MPI(MPI_Allgather(&mine, sizeof(Gpu), MPI_BYTE, all.data(), sizeof(Gpu), MPI_BYTE, comm));
  int ok = p.has_inter ? 1 : 0;
  for (int i = 0; i < n && ok; ++i)
    for (int j = i + 1; j < n && ok; ++j)
      ok = std::memcmp(&all[static_cast<std::size_t>(i)], &all[static_cast<std::size_t>(j)], sizeof(Gpu)) != 0;
  int every = 0;
  DFFT_MPI(MPI_Allreduce(&ok, &every, 1, MPI_INT, MPI_MIN, parent));
  return every == 1;
#else
  return false;
#endif
}

// A communicator this transport made, freed after the transports that use it.
struct OwnedComm {
  MPI_Comm c = MPI_COMM_NULL;
  OwnedComm() = default;
  OwnedComm(const OwnedComm&) = delete;
  OwnedComm& operator=(const OwnedComm&) = delete;
  ~OwnedComm() {
    if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
  }
};

class PerPeer final : public Transport {
 public:
  PerPeer(MPI_Comm comm, const ExchangeSpec& s, Device& dev, const TransportTuning& tuning) {
    const PerPeerParts p = per_peer_parts(s);
    const bool gpu = dev.on_device();
    const MPI_Comm parent = tuning.parent == MPI_COMM_NULL ? comm : tuning.parent;
    const bool nccl = gpu && inter_over_nccl(comm, parent, p, dev);
    MPI_Comm intra_comm = comm;
    if (p.has_intra && p.has_inter) {
      DFFT_MPI(MPI_Comm_split(comm, node_of(s, s.me), s.me, &local_.c));
      intra_comm = local_.c;
    }
    // Each part is agreed on over the exchange's communicator, so that a part refused on some
    // ranks (cuda-ipc over GPUs without peer access) leaves none of them in the other part's
    // collectives.
    collectively(comm, "per-peer: the intra-node transport", [&] {
      if (p.has_intra) intra_ = make_transport(per_peer_intra_method(gpu), intra_comm, p.intra, dev, tuning);
    });
    collectively(comm, "per-peer: the inter-node transport", [&] {
      if (!p.has_inter) return;
      if (nccl) {
        inter_ = make_transport(Method::nccl, comm, p.inter, dev, tuning);
        return;
      }
      std::vector<int> peers;
      for (int k : ring_peers(s.me, static_cast<int>(s.src.size())))
        if (p.inter.peers.empty() || p.inter.peers[static_cast<std::size_t>(k)]) peers.push_back(k);
      inter_ = make_p2p_rounds(comm, p.inter, dev, {PeerRound{peers, peers}});
    });
  }

  // The parts run one after the other: the inter-node transfers start once the intra-node part
  // is done (they do not overlap yet). Each part adds its own phases to t.
  void execute(const void* src, void* dst, StageTiming& t) override {
    for (Transport* x : parts()) x->execute(src, dst, t);
  }
  bool can_enqueue() const override {
    bool all = true;
    for (const Transport* x : parts()) all &= x->can_enqueue();
    return all;
  }
  void enqueue(const void* src, void* dst) override {
    for (Transport* x : parts()) x->enqueue(src, dst);
  }
  void collect(StageTiming& t) override {
    for (Transport* x : parts()) x->collect(t);
  }

 private:
  std::vector<Transport*> parts() const {
    std::vector<Transport*> v;
    for (const auto* x : {&intra_, &inter_})
      if (*x) v.push_back(x->get());
    return v;
  }

  OwnedComm local_;  // declared first: freed after the transports
  std::unique_ptr<Transport> intra_, inter_;
};

}  // namespace

std::unique_ptr<Transport> make_per_peer(MPI_Comm c, const ExchangeSpec& s, Device& d, const TransportTuning& t) {
  return std::make_unique<PerPeer>(c, s, d, t);
}

}  // namespace dfft::detail
