// SPDX-License-Identifier: MIT
// Live-object counters of the CUDA backend (leak checks, docs/hardening.md): streams, events, cuFFT
// plans, NCCL communicators, pinned host buffers and device buffers currently held by dfft. The
// leak-cycle GPU test reads them after every plan destroy; they cost one relaxed atomic add per
// create/destroy, which is nothing next to the CUDA call being counted.
#pragma once

#include <string>

namespace dfft::detail {

enum class Live { stream, event, cufft_plan, nccl_comm, host_buffer, device_buffer, count };

/// Adds `delta` to the live count of `k` (thread-safe; creation sites add 1, destroy sites -1).
void live_add(Live k, long delta) noexcept;

/// For destroy calls whose result is not checked: counts the object as gone, passes the result on.
template <class R>
R live_released(Live k, R result) noexcept {
  live_add(k, -1);
  return result;
}

struct LiveCounts {
  long streams = 0, events = 0, cufft_plans = 0, nccl_comms = 0, host_buffers = 0,
       device_buffers = 0;
  bool operator==(const LiveCounts&) const = default;
};

/// Objects created minus objects destroyed by the CUDA backend of this process (all plans,
/// all threads). Tests only: not part of the public API.
LiveCounts cuda_live_counts() noexcept;
std::string to_string(const LiveCounts& c);

}  // namespace dfft::detail

/// Runs a checked creation (`DFFT_CUDA(...)`, `DFFT_CUFFT(...)`, `DFFT_NCCL(...)`) and counts the
/// object when it did not throw. One statement, so it fits an unbraced `if`.
#define DFFT_LIVE(kind, checked_call)                  \
  do {                                                 \
    checked_call;                                      \
    ::dfft::detail::live_add(::dfft::detail::kind, 1); \
  } while (0)
