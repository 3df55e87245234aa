// SPDX-License-Identifier: MIT
// What `dfft bench` says after and around its table: the fastest configuration of each problem,
// rows too noisy to trust, and the single-rank reduction of a sweep.
#pragma once

#include <cstdio>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "bench.hpp"
#include "results.hpp"

namespace dfftapp {

/// A row is flagged as noisy when its slowest repetition exceeds this multiple of its median.
constexpr double kNoiseRatio = 2.0;

/// The note printed under a noisy row, or "" when max/median <= kNoiseRatio.
std::string noise_note(const Record& r);

/// The fastest configuration per size, precision and transform, by the sum of the forward and
/// inverse median times. Configurations that failed validation do not compete.
class Fastest {
 public:
  /// `recs`: the two records (forward, inverse, any order) of one configuration, named by what
  /// they record (the tuner's choice with --tune, the grid in use).
  void add(const std::vector<Record>& recs);
  void print(std::FILE* out) const;

 private:
  struct Entry {
    std::string label;
    double total = 0, fwd = 0, inv = 0;
  };
  struct Group {
    std::vector<Entry> entries;
  };
  std::map<std::tuple<std::string, std::string, std::string>, Group> groups_;  // size, prec, tr
  std::vector<std::tuple<std::string, std::string, std::string>> order_;
};

/// On one rank every decomposition, variant, grid, method and wire format is the same local
/// transform: keeps the first configuration of each size, precision and transform (and overlap).
/// Returns how many were dropped.
std::size_t keep_one_per_problem(std::vector<Config>& configs);

}  // namespace dfftapp
