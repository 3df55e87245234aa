// SPDX-License-Identifier: MIT
// What a plan will hold (Plan::memory()), computed from the path before anything is allocated,
// and the refusal of a plan that does not fit.
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "backend/host_memory.hpp"
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

namespace {

// 64-bit FNV-1a: ranks compare the names of the memory they draw on by this key.
std::int64_t key_of(const std::string& name) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ULL;
  return static_cast<std::int64_t>(h);
}

// A refusal found on one rank: the bytes compared and the full message.
struct Refusal {
  std::int64_t needed = 0, available = 0;
  std::string message;
};

// "needs N bytes of <kind> memory on rank R[, S bytes for the K ranks <sharing>,] but A bytes are
// available (<source>)"
std::string refusal_text(const char* kind, std::int64_t own, int rank, std::int64_t shared, int ranks,
                         const char* sharing, std::int64_t available, const std::string& source) {
  return concat("dfft: the plan needs ", own, " bytes of ", kind, " memory on rank ", rank,
                ranks > 1 ? concat(", ", shared, " bytes for the ", ranks, " ranks ", sharing, ",") : std::string(),
                " but ", available, " bytes are available (", source, "); use more ranks",
                ranks > 1 ? ", fewer ranks per node" : "", ", a smaller or single-precision array, or a method without staging");
}

}  // namespace

void PlanImpl::check_memory() const {
  const std::int64_t limit = opt_.memory_limit_bytes;
  if (limit < 0) fail("memory_limit_bytes must be >= 0 (0: the available memory), got ", limit);
  const bool gpu = dev_->on_device();
  const std::int64_t device_need = memory_.device_bytes + fft_estimate_;
  Refusal mine;
  if (limit > 0) {
    // The option bounds each rank on its own.
    if (memory_.host_bytes > limit)
      mine = {memory_.host_bytes, limit,
              refusal_text("host", memory_.host_bytes, rank_, 0, 1, "", limit, "Options::memory_limit_bytes")};
    else if (gpu && device_need > limit)
      mine = {device_need, limit,
              refusal_text("GPU", device_need, rank_, 0, 1, "", limit, "Options::memory_limit_bytes")};
  } else {
    // The ranks of a node draw on one MemAvailable, the ranks of one memory cgroup on one limit,
    // and the ranks on one GPU on its free memory: each is compared with what all of them need.
    HostMemory host;
    std::string gpu_id;
    std::int64_t gpu_free = 0;
    collectively(comm_, "reading the available memory", [&] {
      host = host_memory();
      if (gpu) {
        gpu_id = dev_->memory_identity();
        gpu_free = dev_->available_bytes();
      }
    });
    const std::vector<int> node = shared_memory_nodes(comm_);
    const std::int64_t row[4] = {memory_.host_bytes, device_need, key_of(host.cgroup_limit_file),
                                 key_of(gpu_id)};
    std::vector<std::int64_t> all(4 * static_cast<std::size_t>(size_));
    DFFT_MPI(MPI_Allgather(row, 4, MPI_INT64_T, all.data(), 4, MPI_INT64_T, comm_));
    std::int64_t node_need = 0, cgroup_need = 0, gpu_need = 0;
    int node_ranks = 0, cgroup_ranks = 0, gpu_ranks = 0;
    for (int r = 0; r < size_; ++r) {
      if (node[r] != node[rank_]) continue;
      const std::int64_t* o = &all[4 * static_cast<std::size_t>(r)];
      node_need += o[0];
      ++node_ranks;
      if (o[2] == row[2]) {
        cgroup_need += o[0];
        ++cgroup_ranks;
      }
      if (o[3] == row[3]) {
        gpu_need += o[1];
        ++gpu_ranks;
      }
    }
    // Available memory that cannot be read refuses nothing.
    if (host.cgroup_available >= 0 && cgroup_need > host.cgroup_available)
      mine = {cgroup_need, host.cgroup_available,
              refusal_text("host", memory_.host_bytes, rank_, cgroup_need, cgroup_ranks, "of its node in its memory cgroup",
                           host.cgroup_available, concat("memory cgroup limit ", host.cgroup_limit_file, " less its usage"))};
    else if (host.mem_available > 0 && node_need > host.mem_available)
      mine = {node_need, host.mem_available,
              refusal_text("host", memory_.host_bytes, rank_, node_need, node_ranks, "of its node", host.mem_available,
                           "MemAvailable in /proc/meminfo")};
    else if (gpu && gpu_free > 0 && gpu_need > gpu_free)
      mine = {gpu_need, gpu_free,
              refusal_text("GPU", device_need, rank_, gpu_need, gpu_ranks, "on its GPU", gpu_free,
                           concat("cudaMemGetInfo's free bytes of GPU ", dev_->ordinal()))};
  }
  // Every rank refuses when any rank does, with that rank's numbers: nobody is left waiting in
  // the collectives that follow.
  int me = mine.message.empty() ? INT_MAX : rank_, first = INT_MAX;
  DFFT_MPI(MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, comm_));
  if (first == INT_MAX) return;
  std::int64_t head[3] = {mine.needed, mine.available, static_cast<std::int64_t>(mine.message.size())};
  DFFT_MPI(MPI_Bcast(head, 3, MPI_INT64_T, first, comm_));
  mine.message.resize(static_cast<std::size_t>(head[2]));
  DFFT_MPI(MPI_Bcast(mine.message.data(), static_cast<int>(head[2]), MPI_CHAR, first, comm_));
  throw OutOfMemory("plan", 0, rank_, mine.message, head[0], head[1]);
}

}  // namespace dfft
