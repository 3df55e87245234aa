// SPDX-License-Identifier: MIT
// Memory a transport will hold, computed from its exchange before it is built (Plan::memory()).
#include "transport/methods.hpp"

namespace dfft::detail {

Memory transport_memory(Method m, const ExchangeSpec& s, bool on_device) {
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
