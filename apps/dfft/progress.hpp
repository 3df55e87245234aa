// SPDX-License-Identifier: MIT
// Progress lines of long work on stderr (a sweep, the tuner, one big configuration, a
// calibration): what is under way, how far it is, the time elapsed and an estimate of the time
// left. A line is printed when the caller reports progress and at least two seconds have passed
// since the last one, and by a background ticker every few seconds while a long call (planning,
// one timed run) reports nothing; the ticker only prints, it never calls MPI.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace dfftapp {

/// Whether progress lines are wanted: `flag` > 0 (--progress) always, < 0 (--no-progress)
/// never, 0: when standard error is a terminal (never on a pipe or a file unless asked), or,
/// with `unless_redirected` (work that runs for minutes), unless standard error is a regular file
/// or /dev/null: a pipe counts as watched, since under mpirun a rank's stderr is always a pipe to
/// mpirun, whatever mpirun's own stderr is. Rank 0 decides; pass the answer to the Progress of
/// rank 0 only.
bool progress_wanted(int flag, bool unless_redirected = false);

class Progress {
 public:
  /// `who` starts each line ("dfft bench"); `enabled` false: silent, no ticker.
  Progress(std::string who, bool enabled);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  /// `done` of `total` units of work are finished (any unit: runs, relative costs) and `what`
  /// is under way. The time left is the work left at the pace since the first work was done.
  /// done >= total prints the final line at once (once, however often it is reported).
  void update(double done, double total, const std::string& what);
  /// The same where the caller estimates the time itself: `spent` seconds so far of an estimated
  /// `total` (0: not known yet); lines between two reports count the time left down.
  void update_seconds(double spent, double total, const std::string& what);

 private:
  void print_locked(std::chrono::steady_clock::time_point now);
  void tick();
  std::string who_;
  bool enabled_;
  double done_ = 0, total_ = 0;
  std::string what_;
  bool complete_ = false;  // the last update finished the work (its line is printed once)
  double base_done_ = -1;  // `done` at the first update that reported work done
  bool seconds_ = false;   // update_seconds: done_/total_ are seconds, left_ the caller's estimate
  double left_ = -1;       // seconds left at `reported_` (-1: not known)
  std::chrono::steady_clock::time_point reported_;
  std::chrono::steady_clock::time_point start_, last_, base_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread ticker_;
};

}  // namespace dfftapp
