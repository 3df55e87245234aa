// SPDX-License-Identifier: MIT
#include "backend/host_memory.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

namespace dfft::detail {

namespace {

std::string system_root() {
  const char* r = std::getenv("DFFT_SYSTEM_ROOT");
  return r ? r : "";
}

// A whole number of bytes, or -1 for a missing file, "max" or anything else.
std::int64_t read_bytes(const std::string& file) {
  std::ifstream f(file);
  std::string text;
  if (!(f >> text)) return -1;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  return end && *end == '\0' && v >= 0 ? v : -1;
}

// The value of `key` in a "key value" file (memory.stat), 0 where absent.
std::int64_t stat_value(const std::string& file, const std::string& key) {
  std::ifstream f(file);
  std::string k;
  long long v = 0;
  while (f >> k >> v)
    if (k == key) return v;
  return 0;
}

// Limits of cgroup v1 at or above this size mean "no limit" (the kernel reports the largest page
// multiple below 2^63).
constexpr std::int64_t kNoLimit = std::int64_t{1} << 60;

struct CgroupFiles {
  const char* limit;
  const char* usage;
  const char* reclaimable;  // page cache the kernel drops before it kills
};
constexpr CgroupFiles kV2{"memory.max", "memory.current", "inactive_file"};
constexpr CgroupFiles kV1{"memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file"};

// Walks from the process's cgroup directory `dir` up to the hierarchy's mount point `top`: a
// limit set on any ancestor (a job's cgroup above a step's) binds as well. Keeps the tightest.
void tightest(const std::string& top, std::string dir, const CgroupFiles& f, HostMemory& m) {
  while (true) {
    const std::int64_t limit = read_bytes(dir + "/" + f.limit);
    if (limit >= 0 && limit < kNoLimit) {
      const std::int64_t used = read_bytes(dir + "/" + f.usage);
      const std::int64_t held = used < 0 ? 0 : std::max<std::int64_t>(0, used - stat_value(dir + "/memory.stat", f.reclaimable));
      const std::int64_t avail = std::max<std::int64_t>(0, limit - held);
      if (m.cgroup_available < 0 || avail < m.cgroup_available) {
        m.cgroup_available = avail;
        m.cgroup_limit_file = dir + "/" + f.limit;
      }
    }
    if (dir.size() <= top.size()) return;
    dir.erase(dir.rfind('/'));
  }
}

}  // namespace

HostMemory host_memory() {
  const std::string root = system_root();
  HostMemory m;
  {
    std::ifstream f(root + "/proc/meminfo");
    std::string key, unit;
    std::int64_t kib = 0;
    while (f >> key >> kib) {
      std::getline(f, unit);
      if (key == "MemAvailable:") {
        m.mem_available = kib * 1024;
        break;
      }
    }
  }
  // /proc/self/cgroup: "0::/path" (v2, unified) and "N:ctrl,ctrl:/path" (v1); a v1 memory
  // controller, where mounted, holds the limits (hybrid systems have both lines).
  std::ifstream f(root + "/proc/self/cgroup");
  std::string line, v1_path, v2_path;
  bool has_v2 = false;
  while (std::getline(f, line)) {
    const auto a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string ctrl = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    if (ctrl.empty()) has_v2 = true, v2_path = path;
    std::stringstream s(ctrl);
    std::string c;
    while (std::getline(s, c, ','))
      if (c == "memory") v1_path = path;
  }
  const auto clean = [](std::string p) { return p == "/" ? std::string() : p; };
  if (!v1_path.empty()) {
    const std::string top = root + "/sys/fs/cgroup/memory";
    tightest(top, top + clean(v1_path), kV1, m);
  } else if (has_v2) {
    const std::string top = root + "/sys/fs/cgroup";
    tightest(top, top + clean(v2_path), kV2, m);
  }
  return m;
}

}  // namespace dfft::detail
