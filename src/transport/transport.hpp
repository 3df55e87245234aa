// SPDX-License-Identifier: MIT
// Transports move the blocks of one exchange between the ranks of a sub-communicator.
// A transport is told "this rank holds src[me] and wants dst[me]; member k holds src[k] and
// wants dst[k]"; it does not know which decomposition asked. The block a rank keeps is copied
// locally. Messages travel in the sender's memory order ("wire order"); pack and unpack needs
// follow from the layouts.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "backend/device.hpp"
#include "dfft/types.hpp"

namespace dfft::detail {

struct ExchangeSpec {
  std::vector<Layout> src, dst;  // per member of the communicator
  int me = 0;
  std::size_t elem = 16;  // bytes per element
  Codec codec = Codec::none;  // wire format; not none: every block is packed and unpacked
  bool is_double = true;      // working precision (for the codec)
  std::int64_t max_message_bytes = (std::int64_t{1} << 31) - 4096;
  Staging staging = Staging::automatic;  // device transports: host-staged or CUDA-aware MPI
  std::vector<int> node = {};  // node of each member, numbered from 0 (empty: all on one node)
  /// Members this exchange moves blocks to and from (empty: all). Blocks gives a left-out
  /// member, the rank itself included, empty boxes, so that per-peer's second transport leaves
  /// alone the blocks its first one moves; the transports it uses then send and copy nothing
  /// for them (p2p-sync is given only the peers to visit, nccl skips zero-byte blocks).
  std::vector<char> peers = {};
};

class Transport {
 public:
  virtual ~Transport() = default;
  /// Collective over the communicator. `src` holds src[me], `dst` receives dst[me].
  virtual void execute(const void* src, void* dst, StageTiming& t) = 0;
  /// Device-ordered transports (cuda-ipc, nccl) can queue the exchange without the host waiting
  /// for it: the work runs on the calling thread's stream after everything queued there before,
  /// and work queued there afterwards sees dst complete. The overlap executor uses this so that
  /// its communication thread never waits for the GPU between slices (docs/overlap.md).
  virtual bool can_enqueue() const { return false; }
  /// Collective like execute(); only where can_enqueue().
  virtual void enqueue(const void* /*src*/, void* /*dst*/) {}
  /// After an enqueue() and a synchronisation of its stream: the phase times it took, into t.
  virtual void collect(StageTiming& /*t*/) {}
};

/// Room a block of `bytes` wire bytes takes in a staging buffer or window: coded blocks start
/// on 16-byte boundaries (the GPU codec stores the header's double and 8-byte values with
/// aligned accesses; a coded block is 16 + 4n or 16 + 8n bytes long), plain ones are packed.
inline std::int64_t stage_span(const ExchangeSpec& s, std::int64_t bytes) {
  return s.codec == Codec::none ? bytes : (bytes + 15) / 16 * 16;
}

/// Per-peer block geometry shared by all transports.
struct Blocks {
  explicit Blocks(const ExchangeSpec& s);
  int size() const { return static_cast<int>(send.size()); }
  std::vector<Box> send, recv;               // send[k]: what I send to k; recv[k]: from k
  std::vector<std::int64_t> send_bytes, recv_bytes;  // on the wire (coded size with a codec)
  std::vector<bool> direct_send, direct_recv;  // no pack / no unpack needed for this peer
  std::vector<std::int64_t> src_offset, dst_offset;      // bytes, block start in src/dst
  std::vector<std::int64_t> stage_send_off, stage_recv_off;  // bytes, in staging buffers
  std::int64_t stage_send_bytes = 0, stage_recv_bytes = 0;
  bool any_pack = false, any_unpack = false;
  std::int64_t unit = 16;  // every size and offset above is a multiple of this many bytes
  std::int64_t sent_bytes() const;  // to other ranks
  /// Layout of a packed block: the block itself in the sender's memory order.
  Layout wire_layout(int sender, const Box& b) const { return {b, spec.src[sender].order, {}}; }
  ExchangeSpec spec;
};

/// `box` cut into at most `parts` slabs along the slowest axis of `order` that has more than one
/// element, in order; with `taper` the first and last are half the others where the extent
/// allows (split_range). Sender and receiver cut the same box alike, so chunks pair up.
std::vector<Box> slabs_of(const Box& box, const std::vector<int>& order, std::int64_t parts, bool taper);

/// Peers in ring order: me+1, me+2, ... (each step pairs distinct senders and receivers).
std::vector<int> ring_peers(int me, int n);

/// Methods that cut blocks into TransportTuning::chunks pieces (and so are tuned over them).
bool method_uses_chunks(Method m);

struct TransportTuning {
  OneSidedSync onesided_sync = OneSidedSync::fence;
  int chunks = 4;
  int in_flight = 2;  // p2p_pipelined: ring steps outstanding
  MPI_Comm parent = MPI_COMM_NULL;  // the plan's communicator
  bool taper = false;  // nccl: first and last chunk half-sized (DFFT_CHUNK_TAPER, docs/pipelined.md)
};
std::unique_ptr<Transport> make_transport(Method m, MPI_Comm comm, const ExchangeSpec& spec,
                                          Device& dev, const TransportTuning& tuning = {});
/// Refuses a method the backend does not have or that cannot carry codec `c`; make_transport
/// calls it, and the plan for every method given (a plan may have no exchange left to make).
void check_method(Method m, Codec c, bool on_device);

std::unique_ptr<Transport> make_a2a_sync(MPI_Comm, const ExchangeSpec&, Device&);
std::unique_ptr<Transport> make_a2a_type(MPI_Comm, const ExchangeSpec&, Device&);
std::unique_ptr<Transport> make_p2p_sync(MPI_Comm, const ExchangeSpec&, Device&);
/// One round of a point-to-point exchange: the members this rank sends to, in order, and those
/// it receives from. Each round's receives complete before the next round starts.
struct PeerRound {
  std::vector<int> to, from;
};
/// Point-to-point rounds (p2p-sync: one round in ring order; node-ring: one round per node step).
std::unique_ptr<Transport> make_p2p_rounds(MPI_Comm, const ExchangeSpec&, Device&,
                                           std::vector<PeerRound> rounds);
/// Node-aware transports (docs/nodes.md).
std::unique_ptr<Transport> make_node_ring(MPI_Comm, const ExchangeSpec&, Device&);
std::unique_ptr<Transport> make_hierarchical(MPI_Comm, const ExchangeSpec&, Device&);
std::unique_ptr<Transport> make_per_peer(MPI_Comm, const ExchangeSpec&, Device&, const TransportTuning&);
/// per-peer's two parts (src/transport/per_peer.cpp): the blocks among the members of this
/// rank's node, on a communicator of those members (`intra`, re-indexed to them), and the blocks
/// to and from the other nodes on the exchange's communicator (`inter`, the rest masked out).
/// With one node only `intra` is used, and it is the whole exchange; with one member per node
/// only `inter`, the whole exchange too.
struct PerPeerParts {
  bool has_intra = false, has_inter = false;
  ExchangeSpec intra, inter;
  std::vector<int> members;  // the members of this rank's node, ascending (intra member i)
};
PerPeerParts per_peer_parts(const ExchangeSpec& s);
/// The transport per-peer uses inside a node: cuda-ipc on a GPU, p2p-sync (shared memory MPI)
/// on the CPU.
Method per_peer_intra_method(bool on_device);
/// The transport per-peer uses between nodes where no two ranks share a GPU: nccl on a GPU
/// where dfft has NCCL, else p2p-sync.
Method per_peer_inter_method(bool on_device);
std::unique_ptr<Transport> make_p2p_type(MPI_Comm, const ExchangeSpec&, Device&);
/// `parent`: the plan's communicator (the sub-communicator's parent), over which windows are made.
std::unique_ptr<Transport> make_onesided(MPI_Comm comm, MPI_Comm parent, const ExchangeSpec&,
                                         Device&, OneSidedSync, int chunks);
/// Ring schedule, blocks split in `chunks` pieces, `in_flight` ring steps outstanding.
std::unique_ptr<Transport> make_p2p_pipelined(MPI_Comm, const ExchangeSpec&, Device&, int chunks,
                                              int in_flight);
/// Host and device bytes a transport of method `m` for `spec` allocates (staging buffers, MPI
/// windows); computed without building it, so that plans are checked before they allocate.
Memory transport_memory(Method m, const ExchangeSpec& spec, bool on_device);

/// Transports only the CUDA backend has (src/backend/cuda); throw when it is not built.
std::unique_ptr<Transport> make_device_transport(Method m, MPI_Comm comm, const ExchangeSpec& spec,
                                                 Device& dev, const TransportTuning& tuning);

}  // namespace dfft::detail
