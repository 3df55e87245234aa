// SPDX-License-Identifier: MIT
// Threads inside a rank (Options::threads): a small team that runs data-parallel loops over
// parts of a box (pack, unpack, local transposes, codecs), and the split of a box into parts.
#pragma once

#include <mpi.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "dfft/types.hpp"

namespace dfft::detail {

class WorkPool {
 public:
  /// A team of `threads` workers: threads - 1 helper threads plus the thread that calls run().
  explicit WorkPool(int threads);
  ~WorkPool();
  WorkPool(const WorkPool&) = delete;
  WorkPool& operator=(const WorkPool&) = delete;
  int size() const { return static_cast<int>(helpers_.size()) + 1; }
  /// Calls f(p) for every p in [0, parts) and returns when all are done; the first exception
  /// thrown by a part is rethrown here. While another thread runs a loop on this team (the
  /// overlap executor's communication thread beside the FFT thread), the caller runs its parts
  /// alone instead of queueing behind it or adding threads.
  void run(int parts, const std::function<void(int)>& f);

 private:
  void helper_loop();
  void shutdown();
  void drain();

  std::vector<std::thread> helpers_;
  std::mutex busy_;  // held by the thread whose loop owns the team
  std::mutex m_;
  std::condition_variable wake_, done_;
  const std::function<void(int)>* job_ = nullptr;
  int parts_ = 0, working_ = 0;
  std::atomic<int> next_{0};
  std::uint64_t generation_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
};

/// Slowest axis of `order` (slowest first) along which `box` has more than one element; -1 when
/// the box is a single element.
int slowest_moving(const std::vector<int>& order, const Box& box);
/// Part p of `box` cut into `parts` slabs along axis a whose extents differ by at most one (the
/// first extent % parts slabs have the extra row). Together the parts tile the box exactly.
Box box_part(const Box& box, int a, int parts, int p);
/// Parts worth cutting a box into on `pool` (null: 1): at most the team size and the rows along
/// the split axis, and at least kMinPartBytes per part so that small blocks stay serial.
int parts_for(const WorkPool* pool, std::int64_t rows, std::int64_t bytes);
constexpr std::int64_t kMinPartBytes = 8192;

/// Options::threads resolved for this rank: n > 0 as given; 0: the CPUs in this process's
/// affinity mask, shared among the ranks of `comm` on this node when the mask is the whole
/// machine (ranks not bound by the launcher). Collective over `comm` when threads == 0.
/// `why` (may be null): for threads = 0, where the count came from (describe()).
int resolve_threads(int threads, MPI_Comm comm, std::string* why = nullptr);

}  // namespace dfft::detail
