// SPDX-License-Identifier: MIT
#include "tune/select.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "util/check.hpp"

namespace dfft::detail {

bool any_rank_failed(bool failed, std::string& msg, MPI_Comm comm) {
  int rank = 0, size = 1;
  DFFT_MPI(MPI_Comm_rank(comm, &rank));
  DFFT_MPI(MPI_Comm_size(comm, &size));
  int mine = failed ? rank : size, root = size;
  DFFT_MPI(MPI_Allreduce(&mine, &root, 1, MPI_INT, MPI_MIN, comm));
  if (root == size) return false;
  int len = static_cast<int>(msg.size());
  DFFT_MPI(MPI_Bcast(&len, 1, MPI_INT, root, comm));
  msg.resize(static_cast<std::size_t>(len));
  DFFT_MPI(MPI_Bcast(msg.data(), len, MPI_CHAR, root, comm));
  return true;
}

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double max_over_ranks(double v, MPI_Comm comm) {
  double r = 0;
  DFFT_MPI(MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_MAX, comm));
  return r;
}

double timed_run(CandidateTimer& t, std::size_t i, MPI_Comm comm) {
  DFFT_MPI(MPI_Barrier(comm));  // every repetition starts together
  return t.run(i);
}

// Runs candidate i after a successful prepare; fills median/first/reps/status. A single slow
// repetition is common on a loaded machine, so a cut needs a second slow one to confirm it.
void measure_one(CandidateTimer& t, std::size_t i, TuneCandidate& c, const TuneSettings& s,
                 double best, MPI_Comm comm, std::vector<double>& mine) {
  for (int w = 0; w < s.warmup; ++w) timed_run(t, i, comm);
  mine.assign(1, timed_run(t, i, comm));
  c.first = max_over_ranks(mine[0], comm);
  c.reps = 1;
  const bool cut_now = std::isfinite(best) && c.first > s.cut_factor * best;
  if (cut_now) {
    mine.push_back(timed_run(t, i, comm));
    c.reps = 2;
    if (max_over_ranks(mine[1], comm) > s.cut_factor * best) {
      c.status = TuneCandidate::Status::cut;
      return;
    }
  }
  while (static_cast<int>(mine.size()) < s.reps) mine.push_back(timed_run(t, i, comm));
  c.reps = static_cast<int>(mine.size());
  c.samples = slowest_per_repetition(mine, comm);
  c.median = median_of(c.samples);
  c.spread = relative_iqr(c.samples);
  c.status = TuneCandidate::Status::measured;
}

// Indices of the `n` best measured candidates (by median; ties by index).
std::vector<std::size_t> best_measured(const std::vector<TuneCandidate>& cands, int n) {
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < cands.size(); ++i)
    if (cands[i].status == TuneCandidate::Status::measured && std::isfinite(cands[i].median)) idx.push_back(i);
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return cands[a].median < cands[b].median; });
  if (static_cast<int>(idx.size()) > n) idx.resize(static_cast<std::size_t>(n));
  return idx;
}

// Build candidate i on every rank; false (with the first failing rank's message) when any rank
// could not, in which case nothing of it is left built anywhere.
bool prepare_everywhere(CandidateTimer& t, std::size_t i, MPI_Comm comm, std::string& msg) {
  bool failed = false;
  try {
    t.prepare(i);
  } catch (const Error& e) {
    failed = true;
    msg = e.what();
  }
  if (!any_rank_failed(failed, msg, comm)) return true;
  t.release(i);
  return false;
}

// Rounds that give each finalist `final_reps` more repetitions in blocks of `reps`.
int max_final_rounds(const TuneSettings& s) { return std::max(1, (s.final_reps + s.reps - 1) / s.reps); }

// Reports progress in timed runs (warm-ups included) through TuneSettings::progress; the total
// counts every final round, of which fewer may run.
struct Tally {
  const TuneSettings& s;
  double done = 0, total = 0;
  void add(double runs, const std::string& what) {
    done += runs;
    if (s.progress) s.progress(done, std::max(done, total), what);
  }
  void finish() {
    if (s.progress) s.progress(std::max(done, total), std::max(done, total), "chosen");
  }
};

// The finalists again, in rounds: each round times every finalist for a block of `reps`
// repetitions after one warm-up, in alternating order, so that a change in the machine's load
// hits them alike. Their final_median and spread are over these repetitions alone: the first
// pass timed each candidate at another moment, and a median that mixed both would compare
// moments rather than plans. The rounds stop once the same finalist has led two rounds in a row
// by more than the noise, or after enough rounds to give each `final_reps` repetitions.
void final_rounds(CandidateTimer& t, std::vector<TuneCandidate>& cands, std::vector<std::vector<double>>& samples,
                  const TuneSettings& s, MPI_Comm comm, SelectResult& res, Tally& tally) {
  auto fin = best_measured(cands, s.finalists);
  if (fin.size() < 2 || s.final_reps < 1) return;
  std::vector<std::size_t> ready;
  for (auto i : fin) {
    std::string msg;
    if (!prepare_everywhere(t, i, comm, msg)) continue;  // built before: only resources can fail
    ready.push_back(i);
  }
  const int max_rounds = max_final_rounds(s);
  std::vector<std::vector<double>> fresh(cands.size());
  int last_leader = -1, streak = 0;
  for (int round = 0; round < max_rounds && ready.size() >= 2; ++round) {
    for (std::size_t k = 0; k < ready.size(); ++k) {
      const std::size_t i = ready[round % 2 ? ready.size() - 1 - k : k];
      timed_run(t, i, comm);  // warm up again: caches and page mappings are per plan
      for (int r = 0; r < s.reps; ++r) {
        const double v = timed_run(t, i, comm);
        samples[i].push_back(v);
        fresh[i].push_back(v);
      }
      cands[i].final_samples = slowest_per_repetition(fresh[i], comm);
      cands[i].final_median = median_of(cands[i].final_samples);
      cands[i].spread = relative_iqr(cands[i].final_samples);
      cands[i].reps = static_cast<int>(samples[i].size());
      tally.add(s.reps + 1, "final round " + std::to_string(round + 1) + " of at most " +
                                std::to_string(max_rounds) + ": " + cands[i].label);
    }
    ++res.final_rounds;
    std::vector<std::size_t> order = ready;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return cands[a].time() < cands[b].time(); });
    const bool clear = !within_noise(cands[order[0]], cands[order[1]]);
    streak = static_cast<int>(order[0]) == last_leader && clear ? streak + 1 : clear ? 1 : 0;
    last_leader = static_cast<int>(order[0]);
    if (streak >= 2) break;
  }
  res.stable_rounds = streak;
  for (auto i : ready) t.release(i);
  if (res.final_rounds > 0)
    for (auto i : ready) res.finalists.push_back(static_cast<int>(i));
}

// The winner among the finalists (all measured candidates when no final round ran): the
// fastest by time(), unless others are within noise of it; then the model's favourite of those.
void decide(const std::vector<TuneCandidate>& cands, SelectResult& res) {
  std::vector<int> pool = res.finalists;
  if (pool.empty())
    for (std::size_t i = 0; i < cands.size(); ++i)
      if (cands[i].status == TuneCandidate::Status::measured && std::isfinite(cands[i].median))
        pool.push_back(static_cast<int>(i));
  if (pool.empty()) return;
  auto at = [&](int i) -> const TuneCandidate& { return cands[static_cast<std::size_t>(i)]; };
  std::stable_sort(pool.begin(), pool.end(), [&](int a, int b) { return at(a).time() < at(b).time(); });
  for (int i : pool)
    if (i == pool[0] || within_noise(at(pool[0]), at(i))) res.tied.push_back(i);
  int w = pool[0];
  for (int i : res.tied)
    if (std::isfinite(at(i).predicted) && !(at(w).predicted <= at(i).predicted)) w = i;
  res.winner = w;
  if (pool.size() < 2) return;
  res.runner_up = w == pool[0] ? pool[1] : pool[0];
  res.runner_up_ratio = at(res.runner_up).time() / at(w).time();
  res.tie_bound = noise_bound(at(w), at(res.runner_up));
}

}  // namespace

double CandidateTimer::now() { return MPI_Wtime(); }

double median_of(std::vector<double> v) {
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::vector<double> slowest_per_repetition(const std::vector<double>& mine, MPI_Comm comm) {
  std::vector<double> slowest(mine.size());
  DFFT_MPI(MPI_Allreduce(mine.data(), slowest.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_MAX, comm));
  return slowest;
}

double relative_iqr(std::vector<double> v) {
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  auto quantile = [&](double q) {
    const double pos = q * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(pos);
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
  };
  const double med = quantile(0.5);
  return med > 0 ? (quantile(0.75) - quantile(0.25)) / med : kNaN;
}

double noise_bound(const TuneCandidate& a, const TuneCandidate& b) {
  double bound = kTieMargin;
  for (double s : {a.spread, b.spread})
    if (std::isfinite(s)) bound = std::max(bound, s);
  return bound;
}

bool within_noise(const TuneCandidate& faster, const TuneCandidate& slower) {
  return slower.time() <= faster.time() * (1 + noise_bound(faster, slower));
}

SelectResult select_fastest(MPI_Comm comm, std::vector<TuneCandidate> cands, CandidateTimer& t,
                            const TuneSettings& s, double budget_s) {
  if (s.reps < 1 || s.warmup < 0 || !(s.cut_factor >= 1))
    fail("tune settings need reps >= 1, warmup >= 0 and cut factor >= 1 (got ", s.reps, ", ",
         s.warmup, ", ", s.cut_factor, ")");
  SelectResult res;
  std::vector<std::vector<double>> samples(cands.size());  // this rank's times per candidate
  const double start = t.now();
  double best = kNaN;
  const double per_candidate = s.warmup + s.reps;
  const int finalists = std::min<int>(s.finalists, static_cast<int>(cands.size()));
  Tally tally{s, 0,
              per_candidate * static_cast<double>(cands.size()) +
                  (finalists >= 2 && s.final_reps >= 1 ? finalists * max_final_rounds(s) * (s.reps + 1.0) : 0)};
  for (std::size_t i = 0; i < cands.size(); ++i) {
    TuneCandidate& c = cands[i];
    c.status = TuneCandidate::Status::not_run;
    // Budget decisions use the elapsed time maxed over ranks, so all ranks stop together.
    if (budget_s > 0 && max_over_ranks(t.now() - start, comm) > budget_s) {
      res.budget_exhausted = true;
      continue;
    }
    std::string msg;
    if (!prepare_everywhere(t, i, comm, msg)) {
      c.status = TuneCandidate::Status::rejected;
      c.note = msg;
      continue;
    }
    measure_one(t, i, c, s, best, comm, samples[i]);
    t.release(i);
    if (c.status == TuneCandidate::Status::measured && !(c.median >= best)) best = c.median;
    tally.add(per_candidate, "candidate " + std::to_string(i + 1) + " of " + std::to_string(cands.size()) +
                                 ": " + c.label);
  }
  final_rounds(t, cands, samples, s, comm, res, tally);
  decide(cands, res);
  tally.finish();
  res.candidates = std::move(cands);
  return res;
}

}  // namespace dfft::detail
