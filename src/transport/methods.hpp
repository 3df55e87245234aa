// SPDX-License-Identifier: MIT
// The redistribution methods, one row each: what the command line calls them, which backends
// have them, whether they cut blocks into chunks or can carry a codec, what they stage, and
// how to make them. Names, plan-time checks, memory estimates, the tuner's candidates and the
// model read this table instead of switching over Method.
#pragma once

#include <mpi.h>

#include <memory>
#include <span>

#include "transport/transport.hpp"

namespace dfft::detail {

/// What a method keeps beside the FFT buffers (Plan::memory(), transport_memory()).
enum class MethodBuffers {
  packed,    // staging for the blocks that need packing (host staging on a GPU: every block)
  in_place,  // none: MPI datatypes walk the arrays (a GPU without CUDA-aware MPI: host images)
  window,    // send staging and an MPI window for the received blocks
  device,    // device memory only, never through MPI (nccl, cuda-ipc)
};

struct MethodInfo {
  Method method;  // named by to_string(Method)
  bool cpu, cuda;     // backends that have it
  bool chunks;        // cuts blocks into TransportTuning::chunks pieces (tuned over them)
  bool codec;         // packs every block, so can send it coded
  bool node_aware;    // differs from p2p-sync only when the ranks span several nodes
  MethodBuffers buffers;  // also the cost hint: in_place packs inside the MPI call
  std::unique_ptr<Transport> (*make)(MPI_Comm, const ExchangeSpec&, Device&, const TransportTuning&);
};

/// Every method, in the order of the Method enum.
std::span<const MethodInfo> method_table();
const MethodInfo& method_info(Method m);

}  // namespace dfft::detail
