// SPDX-License-Identifier: MIT
// Memory a transport will hold, computed from its exchange before it is built (Plan::memory()).
#include "transport/methods.hpp"

namespace dfft::detail {

Memory transport_memory(Method m, const ExchangeSpec& s, bool on_device) {
  if (m == Method::per_peer) {
    // What its two parts hold (src/transport/per_peer.cpp). The inter-node part is counted as
    // p2p-sync: on a GPU nccl, where it is used instead, holds the same device staging and no
    // host staging, so this bounds it as the CUDA branch below bounds every method.
    const PerPeerParts p = per_peer_parts(s);
    Memory r;
    const auto add = [&r](const char* part, const Memory& x) {
      for (const auto& i : x.items) r.add(std::string(part) + i.what, i.host_bytes, i.device_bytes);
    };
    if (p.has_intra) add("intra-node ", transport_memory(per_peer_intra_method(on_device), p.intra, on_device));
    if (p.has_inter) add("inter-node ", transport_memory(Method::p2p_sync, p.inter, on_device));
    return r;
  }
  const Blocks b(s);
  const std::int64_t send = b.any_pack ? b.stage_send_bytes : 0, recv = b.any_unpack ? b.stage_recv_bytes : 0;
  const MethodBuffers kind = method_info(m).buffers;
  Memory r;
  if (!on_device) {
    switch (kind) {
      case MethodBuffers::in_place:
      case MethodBuffers::device:
        break;  // MPI datatypes read and write the work buffers
      case MethodBuffers::window:
        // Send staging (every block), and the window MPI allocates for the received blocks.
        r.add("staging", std::max<std::int64_t>(b.stage_send_bytes, 1), 0);
        r.add("MPI window", std::max<std::int64_t>(b.stage_recv_bytes, 1), 0);
        break;
      case MethodBuffers::packed:
        r.add("staging", send + recv, 0);
    }
    return r;
  }
  // CUDA backend: packed blocks on the GPU; MPI methods without CUDA-aware MPI stage every block
  // through page-locked host memory as well. An upper bound: the device shares its staging
  // blocks between exchanges.
  r.add("device staging", 0, send + recv);
  if (kind != MethodBuffers::device && s.staging != Staging::cuda_aware)
    r.add("host staging", b.stage_send_bytes + b.stage_recv_bytes, 0);
  return r;
}

}  // namespace dfft::detail
