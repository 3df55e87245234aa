// SPDX-License-Identifier: MIT
// What a plan will hold (Plan::memory()), computed from the path before anything is allocated,
// and the refusal of a plan that does not fit.
#include <climits>

#include "exec/plan_impl.hpp"
#include "util/check.hpp"

namespace dfft {

using namespace detail;

void Memory::add(std::string what, std::int64_t host, std::int64_t device) {
  if (host == 0 && device == 0) return;
  host_bytes += host;
  device_bytes += device;
  items.push_back({std::move(what), host, device});
}


void PlanImpl::drop_third_buffer_from_memory() {
  const bool gpu = dev_->on_device();
  const auto bytes = static_cast<std::int64_t>(work_bytes_);
  for (auto& item : memory_.items)
    if (item.what == "work buffers") {
      (gpu ? item.device_bytes : item.host_bytes) -= bytes;
      (gpu ? memory_.device_bytes : memory_.host_bytes) -= bytes;
    }
}

Memory PlanImpl::predict_memory() const {
  Memory m;
  const bool gpu = dev_->on_device();
  // a_ and b_, and c_ for any overlap > 1 (build_steps takes it back where no group needs it).
  // With Options::user_workspace the caller holds them (workspace_bytes()).
  const auto work = opt_.user_workspace ? 0 : static_cast<std::int64_t>(work_bytes_) * (opt_.overlap > 1 ? 3 : 2);
  m.add("work buffers", gpu ? 0 : work, gpu ? work : 0);
  for (std::size_t k = 0; k < path_.steps.size(); ++k) {
    const Step& st = path_.steps[k];
    if (st.kind != Step::Kind::exchange) continue;
    for (bool inverse : {false, true}) {
      const Memory t = transport_memory(step_method_[k], exchange_spec(st, inverse), gpu);
      for (const auto& item : t.items)
        m.add(names_[k] + (inverse ? " inverse " : " forward ") + item.what, item.host_bytes, item.device_bytes);
    }
  }
  return m;
}

void PlanImpl::check_memory() const {
  const std::int64_t limit = opt_.memory_limit_bytes;
  if (limit < 0) fail("memory_limit_bytes must be >= 0 (0: the available memory), got ", limit);
  const bool gpu = dev_->on_device();
  // Available memory that cannot be read (0) refuses nothing.
  const std::int64_t host_avail = limit > 0 ? limit : host_available_bytes();
  const std::int64_t dev_avail = !gpu ? 0 : limit > 0 ? limit : dev_->available_bytes();
  std::int64_t mine[3] = {0, 0, 0};  // 1 host / 2 device, needed, available
  if (host_avail > 0 && memory_.host_bytes > host_avail) mine[0] = 1, mine[1] = memory_.host_bytes, mine[2] = host_avail;
  else if (gpu && dev_avail > 0 && memory_.device_bytes > dev_avail)
    mine[0] = 2, mine[1] = memory_.device_bytes, mine[2] = dev_avail;
  // Every rank refuses when any rank does, with that rank's numbers: nobody is left waiting in
  // the collectives that follow.
  int me = mine[0] ? rank_ : INT_MAX, first = INT_MAX;
  DFFT_MPI(MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, comm_));
  if (first == INT_MAX) return;
  DFFT_MPI(MPI_Bcast(mine, 3, MPI_INT64_T, first, comm_));
  const char* kind = mine[0] == 1 ? "host" : "GPU";
  const std::string msg = concat(
      "dfft: the plan needs ", mine[1], " bytes of ", kind, " memory on rank ", first, " but ", mine[2],
      " bytes are available (", limit > 0 ? "Options::memory_limit_bytes" : mine[0] == 1 ? "MemAvailable" : "cudaMemGetInfo",
      "); use more ranks, a smaller or single-precision array, or a method without staging");
  throw OutOfMemory("plan", 0, rank_, msg, mine[1], mine[2]);
}

}  // namespace dfft
