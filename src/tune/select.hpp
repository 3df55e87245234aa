// SPDX-License-Identifier: MIT
// The collective selection loop of the tuner, separated from plan building so that tests can
// inject timings (a CandidateTimer that returns made-up times per rank).
//
// Consistency: every rank walks the same candidate list in the same order; every decision
// (reject, early cut, budget, winner) is taken from values reduced over all ranks (MAX), which
// are identical everywhere, so every rank keeps the same candidate without further messages.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "dfft/tune.hpp"

namespace dfft::detail {

class CandidateTimer {
 public:
  virtual ~CandidateTimer() = default;
  /// Build candidate i (collective). Throws dfft::Error when the library rejects it. Several
  /// candidates may be prepared at once (the finalists are timed interleaved).
  virtual void prepare(std::size_t i) = 0;
  /// Run prepared candidate i once (forward + inverse); returns this rank's seconds.
  virtual double run(std::size_t i) = 0;
  /// Free what prepare(i) built (also after a failed prepare on this or another rank).
  virtual void release(std::size_t i) = 0;
  /// Wall clock for the budget.
  virtual double now();
};

/// Per candidate: status, median and first repetition (max over ranks), rejection note.
struct SelectResult {
  std::vector<TuneCandidate> candidates;  // status/median/first/reps/note filled in
  int winner = -1;
  bool budget_exhausted = false;
  double runner_up_ratio = std::numeric_limits<double>::quiet_NaN();  // second best / best median
  int final_rounds = 0;   // rounds of the finalists that ran
  int stable_rounds = 0;  // last rounds in a row with the same clear leader
};

/// Two medians closer than this (relative) are a tie: the measurement cannot tell them apart.
constexpr double kTieMargin = 0.03;

/// Time candidates 0..n-1 in order (see TuneSettings); `budget_s` > 0 stops starting new
/// candidates once that much time has passed (elapsed max over ranks). Then the best
/// `s.finalists` are timed again in rounds (a block of `s.reps` each, alternating order) until
/// one leads two rounds in a row by more than kTieMargin or each had `s.final_reps` more
/// repetitions; the winner is the smallest median over all of a candidate's repetitions.
/// `candidates` gives the options/labels to report; it is returned with the times filled in.
SelectResult select_fastest(MPI_Comm comm, std::vector<TuneCandidate> candidates,
                            CandidateTimer& timer, const TuneSettings& s, double budget_s);

/// Index of the smallest finite time among entries with usable[i]; ties go to the lower
/// index; -1 when none.
int pick_winner(const std::vector<double>& times, const std::vector<bool>& usable);

/// Collective: true on every rank when `failed` is true on any rank; `msg` becomes the message
/// of the lowest such rank.
bool any_rank_failed(bool failed, std::string& msg, MPI_Comm comm);

/// Median (mean of the two middle values for an even count); NaN for an empty sample.
double median_of(std::vector<double> v);

}  // namespace dfft::detail
