// SPDX-License-Identifier: MIT
#include "backend/cuda/live_counts.hpp"

#include <atomic>

namespace dfft::detail {

namespace {
std::atomic<long> g_live[static_cast<int>(Live::count)];
long get(Live k) { return g_live[static_cast<int>(k)].load(std::memory_order_relaxed); }
}  // namespace

void live_add(Live k, long delta) noexcept {
  g_live[static_cast<int>(k)].fetch_add(delta, std::memory_order_relaxed);
}

LiveCounts cuda_live_counts() noexcept {
  return {get(Live::stream),    get(Live::event),       get(Live::cufft_plan),
          get(Live::nccl_comm), get(Live::host_buffer), get(Live::device_buffer)};
}

std::string to_string(const LiveCounts& c) {
  return "streams " + std::to_string(c.streams) + ", events " + std::to_string(c.events) +
         ", cufft plans " + std::to_string(c.cufft_plans) + ", nccl comms " +
         std::to_string(c.nccl_comms) + ", pinned host buffers " + std::to_string(c.host_buffers) +
         ", device buffers " + std::to_string(c.device_buffers);
}

}  // namespace dfft::detail
