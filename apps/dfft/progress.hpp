// SPDX-License-Identifier: MIT
// Progress line of a long sweep on stderr: configuration i of n, elapsed time and an estimate of
// the time left, weighted by each configuration's expected cost (N log N times the runs).
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace dfftapp {

class Progress {
 public:
  /// `costs`: relative cost of each configuration; `enabled` false makes done() silent.
  Progress(std::vector<double> costs, bool enabled);
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  /// Configuration `i` (0-based) has finished. Prints at most every two seconds, and at the end.
  void done(std::size_t i, const std::string& label);

 private:
  std::vector<double> costs_;
  double total_ = 0, finished_ = 0;
  bool enabled_;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace dfftapp
