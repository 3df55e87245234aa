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
#include "dfft/option_fields.hpp"
#include "results.hpp"
#include "stats.hpp"

namespace dfftapp {

/// The note printed under a noisy row (is_noisy() of stats.hpp), or "".
std::string noise_note(const Record& r);

/// The fastest configuration per size, precision and transform, by the sum of the forward and
/// inverse median times. Configurations that failed validation do not compete. A winner is
/// named only when no other configuration's time may be as short: each configuration's time
/// lies, with 99% confidence, between the sums of its directions' median_interval() ends (for a
/// noisy row, whose median may be inflated, from the sum of its fastest repetitions); any
/// configuration whose range reaches below the fastest's upper end is a tie within noise.
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
    double lo = 0, hi = 0;  // where the configuration's forward + inverse time may lie
  };
  struct Group {
    std::vector<Entry> entries;
  };
  std::map<std::tuple<std::string, std::string, std::string>, Group> groups_;  // size, prec, tr
  std::vector<std::tuple<std::string, std::string, std::string>> order_;
};

/// Whether option field `f` only says how the data are distributed and exchanged (the option
/// table's OptionField::distribution_only): on one rank every value of it makes the same local
/// transform.
bool distribution_only(const dfft::OptionField& f);

/// On one rank every decomposition, variant, grid, method and wire format is the same local
/// transform: keeps the first configuration of each problem, i.e. of each size, precision and
/// value of every option field but those distribution_only() names. Returns how many were dropped.
std::size_t keep_one_per_problem(std::vector<Config>& configs);

}  // namespace dfftapp
