// SPDX-License-Identifier: MIT
#include "tune/select.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tune/automatic.hpp"
#include "util/check.hpp"

namespace dfft::detail {

bool any_rank_failed(bool failed, std::string& msg, MPI_Comm comm) {
  Status status = Status::internal;
  return any_rank_failed(failed, msg, status, comm);
}

bool any_rank_failed(bool failed, std::string& msg, Status& status, MPI_Comm comm) {
  int rank = 0, size = 1;
  DFFT_MPI(MPI_Comm_rank(comm, &rank));
  DFFT_MPI(MPI_Comm_size(comm, &size));
  int mine = failed ? rank : size, root = size;
  DFFT_MPI(MPI_Allreduce(&mine, &root, 1, MPI_INT, MPI_MIN, comm));
  if (root == size) return false;
  int head[2] = {static_cast<int>(msg.size()), static_cast<int>(status)};
  DFFT_MPI(MPI_Bcast(head, 2, MPI_INT, root, comm));
  const int len = head[0];
  status = static_cast<Status>(head[1]);
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
bool prepare_everywhere(CandidateTimer& t, std::size_t i, MPI_Comm comm, std::string& msg,
                        Status* status = nullptr) {
  bool failed = false;
  Status st = Status::internal;
  try {
    t.prepare(i);
  } catch (const Error& e) {
    failed = true;
    msg = e.what();
    st = e.status();
  }
  if (!any_rank_failed(failed, msg, st, comm)) return true;
  if (status) *status = st;
  t.release(i);
  return false;
}

// Rounds that give each finalist `final_reps` more repetitions in blocks of `reps`.
int max_final_rounds(const TuneSettings& s) { return std::max(1, (s.final_reps + s.reps - 1) / s.reps); }

// Progress in seconds (TuneSettings::progress): the time spent, and that time plus an estimate
// of what is left. The estimate is measured, not assumed: the mean wall time of the candidates
// timed so far (planning included) times the candidates left, then the final rounds at the
// measured time of a run, capped by the time budget; the estimated total is smoothed so that
// one slow or quick candidate moves it a little, not by minutes.
struct Tally {
  const TuneSettings& s;
  CandidateTimer& t;
  MPI_Comm comm;
  double start = 0;      // t.now() when the selection began
  double spent0 = 0;     // seconds spent before it (wisdom lookup, model)
  double budget_s = 0;   // 0: none
  std::size_t candidates = 0, started = 0;
  double candidate_seconds = 0;  // wall time of the candidates timed so far
  double run_seconds = kNaN;      // one timed run of the best candidate so far
  int final_runs_left = 0;       // runs of the final rounds still to come (at most)
  double smoothed = kNaN;         // estimated total, smoothed
  double elapsed() const { return spent0 + t.now() - start; }
  // Seconds the rest is expected to take.
  double left() const {
    if (started == 0) return kNaN;
    const double per = candidate_seconds / static_cast<double>(started);
    double rest = per * static_cast<double>(candidates - started);
    if (std::isfinite(run_seconds)) rest += final_runs_left * run_seconds;
    if (budget_s > 0) rest = std::min(rest, std::max(0.0, budget_s - elapsed()) + per);
    return rest;
  }
  void report(const std::string& what) {
    if (!s.progress) return;
    const double el = elapsed(), l = left();
    if (!std::isfinite(l)) {
      s.progress(el, 0, what);  // total unknown yet
      return;
    }
    const double est = el + l;
    smoothed = std::isfinite(smoothed) ? smoothed + 0.3 * (est - smoothed) : est;
    // Never less than the time already spent, and never "done" before the end.
    s.progress(el, std::max(smoothed, el + (l > 0 ? 0.1 * l : 0.0)), what);
  }
  void finish() {
    if (s.progress) s.progress(elapsed(), elapsed(), "chosen");
  }
};

// Whether the time budget is spent (elapsed time maxed over ranks, so all ranks agree).
bool budget_spent(const Tally& tally, MPI_Comm comm) {
  return tally.budget_s > 0 && max_over_ranks(tally.elapsed(), comm) >= tally.budget_s;
}

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
  // The first pass cannot tell apart the candidates within noise of its fastest: which of them
  // are the best few is chance. The model's favourite among them is timed in the final rounds as
  // well, so that where the final rounds find a tie the same plan wins run after run.
  std::vector<int> close;
  for (std::size_t i = 0; i < cands.size(); ++i)
    if (cands[i].status == TuneCandidate::Status::measured && std::isfinite(cands[i].median) &&
        cands[i].median <= cands[fin[0]].median * (1 + noise_bound(cands[fin[0]], cands[i])))
      close.push_back(static_cast<int>(i));
  const int fav = model_favourite(cands, close);
  if (fav >= 0 && std::find(fin.begin(), fin.end(), static_cast<std::size_t>(fav)) == fin.end())
    fin.push_back(static_cast<std::size_t>(fav));
  if (budget_spent(tally, comm)) {
    res.final_rounds_skipped = true;
    return;
  }
  std::vector<std::size_t> ready;
  for (auto i : fin) {
    std::string msg;
    if (!prepare_everywhere(t, i, comm, msg)) continue;  // built before: only resources can fail
    ready.push_back(i);
  }
  const int max_rounds = max_final_rounds(s);
  std::vector<std::vector<double>> fresh(cands.size());
  int last_leader = -1, streak = 0;
  tally.final_runs_left = max_rounds * static_cast<int>(ready.size()) * (s.reps + 1);
  for (int round = 0; round < max_rounds && ready.size() >= 2; ++round) {
    // A round starts only while the budget lasts: the rounds so far decide.
    if (round > 0 && budget_spent(tally, comm)) {
      res.final_rounds_skipped = true;
      break;
    }
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
      tally.final_runs_left -= s.reps + 1;
      tally.run_seconds = cands[i].final_median;
      tally.report("final round " + std::to_string(round + 1) + " of at most " + std::to_string(max_rounds) + ": " +
                   cands[i].label);
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
  const int fav = model_favourite(cands, res.tied);
  const int w = fav >= 0 ? fav : pool[0];
  res.winner = w;
  if (pool.size() < 2) return;
  res.runner_up = w == pool[0] ? pool[1] : pool[0];
  res.runner_up_ratio = at(res.runner_up).time() / at(w).time();
  res.tie_bound = noise_bound(at(w), at(res.runner_up));
}

}  // namespace

// The model's favourite of `pool` (select.hpp): the smallest finite prediction, where predictions within
// kModelTie of it count as equal and the earliest candidate of those is taken (as the automatic
// choice does), so that a rounding difference of the model never decides. -1: none predicted.
int model_favourite(const std::vector<TuneCandidate>& cands, const std::vector<int>& pool) {
  double best = kNaN;
  for (int i : pool) {
    const double p = cands[static_cast<std::size_t>(i)].predicted;
    if (std::isfinite(p) && !(p >= best)) best = p;
  }
  if (!std::isfinite(best)) return -1;
  int fav = -1;
  for (int i : pool)
    if (cands[static_cast<std::size_t>(i)].predicted <= best * (1 + kModelTie) && (fav < 0 || i < fav)) fav = i;
  return fav;
}

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
                            const TuneSettings& s, double budget_s, double spent_s) {
  if (s.reps < 1 || s.warmup < 0 || !(s.cut_factor >= 1))
    fail("tune settings need reps >= 1, warmup >= 0 and cut factor >= 1 (got ", s.reps, ", ",
         s.warmup, ", ", s.cut_factor, ")");
  SelectResult res;
  std::vector<std::vector<double>> samples(cands.size());  // this rank's times per candidate
  double best = kNaN;
  const int finalists = std::min<int>(s.finalists, static_cast<int>(cands.size()));
  Tally tally{s, t, comm, t.now(), spent_s, budget_s, cands.size()};
  // The final rounds at most, for the estimate until they start (the model's favourite may add one).
  tally.final_runs_left = finalists >= 2 && s.final_reps >= 1 ? (finalists + 1) * max_final_rounds(s) * (s.reps + 1) : 0;
  tally.report("candidate 1 of " + std::to_string(cands.size()));
  for (std::size_t i = 0; i < cands.size(); ++i) {
    TuneCandidate& c = cands[i];
    c.status = TuneCandidate::Status::not_run;
    // Checked before each start, on the elapsed time maxed over ranks, so all ranks stop together
    // and no candidate starts once the budget is spent.
    if (budget_spent(tally, comm)) {
      res.budget_exhausted = true;
      continue;
    }
    ++res.started;
    const double t0 = t.now();
    std::string msg;
    Status why = Status::internal;
    if (!prepare_everywhere(t, i, comm, msg, &why)) {
      c.status = TuneCandidate::Status::rejected;
      c.note = msg;
      c.error = why;
    } else {
      measure_one(t, i, c, s, best, comm, samples[i]);
      t.release(i);
      if (c.status == TuneCandidate::Status::measured && !(c.median >= best)) {
        best = c.median;
        tally.run_seconds = best;
      }
    }
    tally.candidate_seconds += t.now() - t0;
    ++tally.started;
    tally.report("candidate " + std::to_string(i + 1) + " of " + std::to_string(cands.size()) + " " +
                 to_string(c.status) + ": " + c.label);
  }
  if (res.budget_exhausted) tally.started = tally.candidates;  // nothing more to start
  final_rounds(t, cands, samples, s, comm, res, tally);
  decide(cands, res);
  tally.finish();
  res.candidates = std::move(cands);
  return res;
}

}  // namespace dfft::detail
