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

/// Per candidate: status, medians, spread and first repetition (max over ranks), rejection note.
struct SelectResult {
  std::vector<TuneCandidate> candidates;  // status/median/first/final_median/spread/reps/note filled in
  int winner = -1;
  int runner_up = -1;  // the fastest of the others the winner was chosen among
  bool budget_exhausted = false;
  double runner_up_ratio = std::numeric_limits<double>::quiet_NaN();  // runner-up's time() / winner's
  double tie_bound = std::numeric_limits<double>::quiet_NaN();  // noise_bound(winner, runner-up)
  std::vector<int> finalists;  // candidates timed in the final rounds (those the winner comes from)
  std::vector<int> tied;       // candidates within noise of the fastest (winner included); one: clear
  int started = 0;        // candidates started (the first ones; the rest were not run)
  bool final_rounds_skipped = false;  // the budget ended the final rounds early or left them out
  int final_rounds = 0;   // rounds of the finalists that ran
  int stable_rounds = 0;  // last rounds in a row with the same clear leader
};

/// The smallest relative gap that counts as a difference, however quiet the samples.
constexpr double kTieMargin = 0.03;

/// Relative interquartile range (Q3 - Q1) / median of a sample (quartiles by linear
/// interpolation); NaN for an empty sample.
double relative_iqr(std::vector<double> v);

/// The noise rule, the one place that decides what the measurement cannot tell apart: the
/// relative bound of a comparison of two candidates is max(kTieMargin, the larger of their
/// spreads), and the slower ties the faster when its time() is within that bound of the faster's.
double noise_bound(const TuneCandidate& a, const TuneCandidate& b);
bool within_noise(const TuneCandidate& faster, const TuneCandidate& slower);

/// Time candidates 0..n-1 in order (see TuneSettings); `budget_s` > 0: no candidate and no
/// final round starts once `spent_s` (the time the tuning took before) plus the time since the
/// call is `budget_s` or more (elapsed max over ranks). Then the best `s.finalists` (by median),
/// and the model's favourite among the candidates within noise of the fastest, are timed again in rounds (a block of `s.reps` each, alternating
/// order) until the same one leads two rounds in a row by more than the noise, or each had
/// `s.final_reps` more repetitions. The winner is a finalist, decided on the final rounds alone
/// (TuneCandidate::time()); with fewer than two finalists, the fastest median. Candidates within
/// noise of the fastest are a tie, and the tie goes to the model's favourite (the smallest finite
/// `predicted` time, predictions within kModelTie of it counting as equal and the earliest
/// candidate of those taken; the fastest measured when none is finite).
/// `candidates` gives the options/labels/predictions; it is returned with the times filled in.
SelectResult select_fastest(MPI_Comm comm, std::vector<TuneCandidate> candidates,
                            CandidateTimer& timer, const TuneSettings& s, double budget_s,
                            double spent_s = 0);

/// The model's favourite of the candidates `pool` indexes: the smallest finite `predicted`, where
/// predictions within kModelTie of it count as equal and the earliest candidate of those is
/// taken; -1 when none is predicted. The one tie rule of the tuner.
int model_favourite(const std::vector<TuneCandidate>& cands, const std::vector<int>& pool);

/// Collective: true on every rank when `failed` is true on any rank; `msg` becomes the message
/// of the lowest such rank.
bool any_rank_failed(bool failed, std::string& msg, MPI_Comm comm);
/// The same, and `status` becomes the kind of that rank's error.
bool any_rank_failed(bool failed, std::string& msg, Status& status, MPI_Comm comm);

/// Median (mean of the two middle values for an even count); NaN for an empty sample.
double median_of(std::vector<double> v);

/// The timing statistic of dfft's collective measurements (the tuner's candidates, the model's
/// calibration, and `dfft bench`'s records, which compute it in the app): a repetition takes the
/// time of its slowest rank, since a collective step ends when its last rank does, and the
/// statistic is the median over repetitions. `mine`: this rank's times, one per repetition, as
/// many on every rank (collective: one MPI_Allreduce). Returns the slowest rank's time of each
/// repetition, for median_of and relative_iqr.
std::vector<double> slowest_per_repetition(const std::vector<double>& mine, MPI_Comm comm);

}  // namespace dfft::detail
