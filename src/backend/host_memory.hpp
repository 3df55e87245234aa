// SPDX-License-Identifier: MIT
// How much host memory this process may still use: the node's MemAvailable and the limit of the
// memory cgroup it runs in (a batch job's or container's limit, which the kernel enforces by
// killing the process, long before MemAvailable runs out).
#pragma once

#include <cstdint>
#include <string>

namespace dfft::detail {

struct HostMemory {
  /// MemAvailable of /proc/meminfo in bytes (0 where it cannot be read).
  std::int64_t mem_available = 0;
  /// The tightest memory cgroup limit of this process (its own cgroup or an ancestor), less what
  /// the cgroup uses and cannot reclaim; -1 where no limit applies or none can be read.
  std::int64_t cgroup_available = -1;
  /// The file that limit came from (memory.max or memory.limit_in_bytes); the ranks that name the
  /// same file on one node share that limit.
  std::string cgroup_limit_file;
};

/// Read now. The environment variable DFFT_SYSTEM_ROOT names a directory read in place of "/"
/// for /proc/meminfo, /proc/self/cgroup and /sys/fs/cgroup (tests give fake limits through it).
HostMemory host_memory();

}  // namespace dfft::detail
