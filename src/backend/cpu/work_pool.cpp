// SPDX-License-Identifier: MIT
#include "backend/cpu/work_pool.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

#include "util/check.hpp"

namespace dfft::detail {

WorkPool::WorkPool(int threads) {
  if (threads < 1) fail("a work pool needs at least 1 thread, got ", threads);
  helpers_.reserve(static_cast<std::size_t>(threads - 1));
  try {
    for (int i = 1; i < threads; ++i) helpers_.emplace_back([this] { helper_loop(); });
  } catch (const std::system_error& e) {
    shutdown();
    fail_library(LibraryError::Library::system, "std::thread", e.code().value(), "could not start ", threads - 1,
              " helper threads for Options::threads = ", threads, ": ", e.what());
  }
}

WorkPool::~WorkPool() { shutdown(); }

void WorkPool::shutdown() {
  {
    std::lock_guard<std::mutex> l(m_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : helpers_)
    if (t.joinable()) t.join();
  helpers_.clear();
}

void WorkPool::drain() {
  for (int p = next_.fetch_add(1); p < parts_; p = next_.fetch_add(1)) {
    try {
      (*job_)(p);
    } catch (...) {
      std::lock_guard<std::mutex> l(m_);
      if (!error_) error_ = std::current_exception();
    }
  }
}

void WorkPool::helper_loop() {
  std::uint64_t seen = 0;
  std::unique_lock<std::mutex> l(m_);
  while (true) {
    wake_.wait(l, [&] { return stop_ || generation_ != seen; });
    if (stop_) return;
    seen = generation_;
    l.unlock();
    drain();
    l.lock();
    if (--working_ == 0) done_.notify_one();
  }
}

void WorkPool::run(int parts, const std::function<void(int)>& f) {
  std::unique_lock<std::mutex> team(busy_, std::try_to_lock);
  if (!team.owns_lock() || helpers_.empty() || parts <= 1) {
    for (int p = 0; p < parts; ++p) f(p);
    return;
  }
  {
    std::lock_guard<std::mutex> l(m_);
    job_ = &f;
    parts_ = parts;
    next_.store(0);
    working_ = static_cast<int>(helpers_.size());
    error_ = nullptr;
    ++generation_;
  }
  wake_.notify_all();
  drain();
  std::exception_ptr e;
  {
    std::unique_lock<std::mutex> l(m_);
    done_.wait(l, [&] { return working_ == 0; });
    job_ = nullptr;
    e = error_;
  }
  if (e) std::rethrow_exception(e);
}

int slowest_moving(const std::vector<int>& order, const Box& box) {
  for (int a : order)
    if (box.extent(a) > 1) return a;
  return -1;
}

Box box_part(const Box& box, int a, int parts, int p) {
  const std::int64_t n = box.extent(a), q = n / parts, r = n % parts;
  Box b = box;
  b.lo[a] = box.lo[a] + p * q + std::min<std::int64_t>(p, r);
  b.hi[a] = b.lo[a] + q + (p < r ? 1 : 0);
  return b;
}

int parts_for(const WorkPool* pool, std::int64_t rows, std::int64_t bytes) {
  if (!pool) return 1;
  const std::int64_t by_size = std::max<std::int64_t>(1, bytes / kMinPartBytes);
  return static_cast<int>(std::min({std::int64_t{pool->size()}, rows, by_size}));
}

int resolve_threads(int threads, MPI_Comm comm, std::string* why) {
  if (threads < 0) fail("threads must be at least 1, or 0 for the CPUs this rank may run on; got ", threads);
  if (threads > 0) return threads;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0)
    fail_library(LibraryError::Library::system, "sched_getaffinity", errno, "could not read this rank's CPU affinity for threads = 0");
  const int mine = CPU_COUNT(&set);
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  MPI_Comm node;
  DFFT_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int local = 1;
  const int rc = MPI_Comm_size(node, &local);
  MPI_Comm_free(&node);
  DFFT_MPI(rc);
  // Unbound ranks each see the whole machine: share it instead of each taking all of it.
  const bool shared = online > 0 && mine >= online;
  const int n = std::max(1, shared ? mine / local : mine);
  if (why)
    *why = "threads 0: " + std::to_string(n) + " per rank, " +
           (shared ? "the node's " + std::to_string(mine) + " cores shared by its " + std::to_string(local) +
                         " rank" + (local > 1 ? "s" : "") + " (not bound)"
                   : "the " + std::to_string(mine) + " core" + (mine > 1 ? "s" : "") + " of the rank's affinity mask");
  return n;
}

}  // namespace dfft::detail
