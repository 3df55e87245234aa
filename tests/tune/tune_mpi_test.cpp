// SPDX-License-Identifier: MIT
// MPI tests of the tuner: consistent selection from injected timings, tune=measure building a
// correct plan and writing wisdom, the next plan reusing it, and bad wisdom being ignored.
#include <gtest/gtest.h>
#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "dfft/dfft.hpp"
#include "dfft/tune.hpp"
#include "dfft/validate.hpp"
#include "model/machine.hpp"
#include "tune/select.hpp"
#include "tune/tuner.hpp"

namespace {

int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int ranks() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

bool same_on_all_ranks(int v) {
  int lo = 0, hi = 0;
  MPI_Allreduce(&v, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&v, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return lo == hi;
}

// Timings made up per (candidate, rank, repetition); a clock that advances 1 s per run.
class MockTimer : public dfft::detail::CandidateTimer {
 public:
  std::function<double(std::size_t, int, int)> time;  // (candidate, rank, repetition)
  std::function<bool(std::size_t, int)> reject = [](std::size_t, int) { return false; };
  int runs = 0;
  double clock = 0;
  void prepare(std::size_t i) override {
    if (reject(i, rank())) throw dfft::Error("plan", 0, rank(), "mock rejection on this rank");
  }
  double run(std::size_t i) override {
    ++runs;
    clock += 1;
    return time(i, rank(), rep_[i]++);
  }
  void release(std::size_t) override {}
  double now() override { return clock; }

 private:
  std::map<std::size_t, int> rep_;  // runs so far per candidate (warm-up included)
};

std::vector<dfft::TuneCandidate> candidates(std::size_t n) {
  std::vector<dfft::TuneCandidate> c(n);
  for (std::size_t i = 0; i < n; ++i) c[i].label = "candidate " + std::to_string(i);
  return c;
}

TEST(Select, PicksTheMinimumOfMaxOverRanksConsistently) {
  // Candidate i on rank r takes base[i] * (1 + 0.1 r): the slowest rank decides. Candidate 3
  // is fastest on rank 0 alone but slowest at the max, so it must not win; candidate 2 wins.
  const std::vector<double> base{5, 4, 2, 1, 3};
  MockTimer t;
  t.time = [&](std::size_t i, int r, int) {
    double f = i == 3 ? 1 + 10.0 * r : 1 + 0.1 * r;
    return base[i] * f;
  };
  dfft::TuneSettings s;
  s.warmup = 0;
  s.reps = 3;
  auto res = dfft::detail::select_fastest(MPI_COMM_WORLD, candidates(base.size()), t, s, 0);
  const int P = ranks();
  const int expect = P == 1 ? 3 : 2;
  EXPECT_EQ(res.winner, expect);
  EXPECT_TRUE(same_on_all_ranks(res.winner));
  EXPECT_DOUBLE_EQ(res.candidates[2].median, 2 * (1 + 0.1 * (P - 1)));
  for (const auto& c : res.candidates) EXPECT_TRUE(same_on_all_ranks(static_cast<int>(c.status)));
  // The samples a plot shows: one per timed repetition, each the slowest rank's.
  ASSERT_EQ(res.candidates[2].samples.size(), 3u);
  for (double v : res.candidates[2].samples) {
    EXPECT_DOUBLE_EQ(v, 2 * (1 + 0.1 * (P - 1)));
  }
  for (const auto& c : res.candidates) {
    EXPECT_EQ(c.final_samples.size() % 3, 0u) << c.label;
  }
}

// A repetition of a collective transform lasts as long as its slowest rank. Here rank r is slow
// (3 s) in repetition r alone: every repetition with two or more ranks had a slow rank, so the
// candidate's time is 3 s, as dfft bench would report it, though each rank's own median is 1 s.
TEST(Select, ARepetitionTakesItsSlowestRanksTime) {
  MockTimer t;
  t.time = [](std::size_t, int r, int rep) { return rep == r ? 3.0 : 1.0; };
  dfft::TuneSettings s;
  s.warmup = 0;
  s.reps = 3;
  s.finalists = 0;
  auto res = dfft::detail::select_fastest(MPI_COMM_WORLD, candidates(1), t, s, 0);
  const int P = ranks();
  EXPECT_DOUBLE_EQ(res.candidates[0].median, P == 1 ? 1.0 : 3.0);
  // Repetitions 1, 3, 3 with two ranks: quartiles 2 and 3 around the median 3.
  if (P == 2) {
    EXPECT_DOUBLE_EQ(res.candidates[0].spread, 1.0 / 3.0);
  }
}

TEST(Select, EarlyCutAndRejectionAndTiesAreCollective) {
  MockTimer t;
  // 0: 1.0 s; 1: first two repetitions 2.5 s (> 2 x 1.0: cut, confirmed) then fast; 2: rejected
  // on the last rank only; 3: 1.0 s (a tie with 0: the lower index ranks first); 4: 0.9 s wins;
  // 5: one slow first repetition only (not confirmed: timed fully, median 0.95 s).
  t.time = [](std::size_t i, int, int rep) {
    if (i == 1) return rep < 2 ? 2.5 : 0.1;
    if (i == 5) return rep == 0 ? 2.5 : 0.95;
    return i == 4 ? 0.9 : 1.0;
  };
  t.reject = [](std::size_t i, int r) { return i == 2 && r == ranks() - 1; };
  dfft::TuneSettings s;
  s.warmup = 0;
  s.reps = 3;
  auto res = dfft::detail::select_fastest(MPI_COMM_WORLD, candidates(6), t, s, 0);
  using S = dfft::TuneCandidate::Status;
  EXPECT_EQ(res.candidates[1].status, S::cut);
  EXPECT_EQ(res.candidates[1].reps, 2);
  EXPECT_EQ(res.candidates[2].status, S::rejected);
  EXPECT_NE(res.candidates[2].note.find("mock rejection"), std::string::npos);
  EXPECT_EQ(res.candidates[5].status, S::measured);
  EXPECT_DOUBLE_EQ(res.candidates[5].median, 0.95);
  // Finalists: the three best medians, 4, 5 and 0 (0 before 3 on the tie).
  EXPECT_TRUE(std::isfinite(res.candidates[0].final_median));
  EXPECT_FALSE(std::isfinite(res.candidates[3].final_median));
  EXPECT_EQ(res.winner, 4);
  EXPECT_TRUE(same_on_all_ranks(res.winner));
}

TEST(Select, TheFinalRoundDecides) {
  MockTimer t;
  // Candidate 0 looked fastest in its own repetitions (0.5 s) but is slow in the final rounds
  // (2 s); candidate 1 is 1 s throughout and must win.
  t.time = [](std::size_t i, int, int rep) { return i == 0 ? (rep < 3 ? 0.5 : 2.0) : 1.0; };
  dfft::TuneSettings s;
  s.warmup = 0;
  s.reps = 3;
  auto res = dfft::detail::select_fastest(MPI_COMM_WORLD, candidates(2), t, s, 0);
  EXPECT_DOUBLE_EQ(res.candidates[0].median, 0.5);  // the first pass alone
  EXPECT_DOUBLE_EQ(res.candidates[0].final_median, 2.0);
  EXPECT_EQ(res.winner, 1);
  EXPECT_EQ(res.runner_up, 0);
  EXPECT_DOUBLE_EQ(res.runner_up_ratio, 2.0);
  EXPECT_EQ(res.tied, std::vector<int>{1});
  EXPECT_GE(res.stable_rounds, 2);  // the same clear leader twice in a row ends the rounds
  s.finalists = 0;  // without a final round the first medians decide
  MockTimer t2;
  t2.time = t.time;
  EXPECT_EQ(dfft::detail::select_fastest(MPI_COMM_WORLD, candidates(2), t2, s, 0).winner, 0);
}

// The machine slows down during the final rounds (another job starts): every finalist's
// repetitions there take twice as long as in the first pass. The plan chosen must still be one
// of the finalists, decided on their final rounds, never a candidate that was not timed again
// because its first-pass median now looks better than the finalists' slower ones.
TEST(Select, TheWinnerIsAlwaysAFinalistTimedInTheFinalRounds) {
  MockTimer t;
  const std::vector<double> base{1.0, 1.1, 1.2, 1.3, 1.4};
  t.time = [&](std::size_t i, int, int rep) { return base[i] * (rep < 3 ? 1.0 : 2.0); };
  dfft::TuneSettings s;
  s.warmup = 0;
  s.reps = 3;
  s.finalists = 3;
  auto res = dfft::detail::select_fastest(MPI_COMM_WORLD, candidates(base.size()), t, s, 0);
  EXPECT_EQ(res.finalists, (std::vector<int>{0, 1, 2}));
  ASSERT_GE(res.winner, 0);
  EXPECT_NE(std::find(res.finalists.begin(), res.finalists.end(), res.winner), res.finalists.end())
      << "winner " << res.winner << " was not timed in the final rounds";
  EXPECT_TRUE(std::isfinite(res.candidates[static_cast<std::size_t>(res.winner)].final_median));
  EXPECT_EQ(res.winner, 0);
  EXPECT_DOUBLE_EQ(res.candidates[0].time(), 2.0);
  EXPECT_FALSE(std::isfinite(res.candidates[3].final_median));
  EXPECT_TRUE(same_on_all_ranks(res.winner));
}

TEST(Select, ACloseRaceRunsEveryFinalRoundAndIsATie) {
  MockTimer t;  // 1% apart: never a clear lead, so all rounds run and they are reported tied
  t.time = [](std::size_t i, int, int) { return i == 0 ? 1.01 : 1.0; };
  dfft::TuneSettings s;
  s.warmup = 0;
  s.reps = 3;
  s.final_reps = 9;
  auto res = dfft::detail::select_fastest(MPI_COMM_WORLD, candidates(2), t, s, 0);
  EXPECT_EQ(res.winner, 1);  // no prediction: the fastest measured
  EXPECT_EQ(res.final_rounds, 3);
  EXPECT_EQ(res.stable_rounds, 0);
  EXPECT_EQ(res.tied, (std::vector<int>{1, 0}));
  EXPECT_LT(res.runner_up_ratio, 1 + res.tie_bound);
  EXPECT_EQ(res.candidates[1].reps, 12);  // the first 3 and 3 per final round
}

// Finalists within noise of the fastest are a tie, and the model's favourite among them wins;
// a finalist clearly slower than the fastest is not in the tie, whatever the model says.
TEST(Select, ATieGoesToTheModelsFavouriteAmongTheTied) {
  MockTimer t;
  const std::vector<double> base{1.00, 1.02, 1.20, 1.01};
  t.time = [&](std::size_t i, int, int) { return base[i]; };
  auto cands = candidates(base.size());
  const std::vector<double> predicted{3.0, 2.0, 1.0, 2.5};  // 2 is the model's pick, but slow
  for (std::size_t i = 0; i < cands.size(); ++i) cands[i].predicted = predicted[i];
  dfft::TuneSettings s;
  s.warmup = 0;
  s.reps = 3;
  s.finalists = 4;
  auto res = dfft::detail::select_fastest(MPI_COMM_WORLD, cands, t, s, 0);
  EXPECT_EQ(res.tied, (std::vector<int>{0, 3, 1}));
  EXPECT_EQ(res.winner, 1);
  EXPECT_EQ(res.runner_up, 0);  // the fastest measured of the others
  EXPECT_DOUBLE_EQ(res.tie_bound, dfft::detail::kTieMargin);
  // Noisy samples widen the bound: candidate 2 (20% slower) joins the tie when its spread is wider.
  MockTimer noisy;
  noisy.time = [&](std::size_t i, int, int rep) { return i == 2 ? base[i] + 0.3 * (rep % 3 - 1) : base[i]; };
  auto res2 = dfft::detail::select_fastest(MPI_COMM_WORLD, cands, noisy, s, 0);
  EXPECT_GT(res2.candidates[2].spread, 0.2);
  EXPECT_NE(std::find(res2.tied.begin(), res2.tied.end(), 2), res2.tied.end());
  EXPECT_TRUE(same_on_all_ranks(res2.winner));
}

TEST(Select, BudgetStopsStartingCandidates) {
  MockTimer t;  // every run advances the mock clock by 1 s; 1 warmup + 2 reps = 3 s each
  t.time = [](std::size_t i, int, int) { return 1.0 + static_cast<double>(i); };
  dfft::TuneSettings s;
  s.warmup = 1;
  s.reps = 2;
  auto res = dfft::detail::select_fastest(MPI_COMM_WORLD, candidates(6), t, s, 5.0);
  EXPECT_TRUE(res.budget_exhausted);
  EXPECT_EQ(res.candidates[0].status, dfft::TuneCandidate::Status::measured);
  EXPECT_EQ(res.candidates[5].status, dfft::TuneCandidate::Status::not_run);
  EXPECT_EQ(res.winner, 0);
}

// The first pass cannot tell candidates within noise apart, so which of them are the fastest few
// (the finalists) is chance. Whichever order the noise puts them in, the model's favourite among
// them is timed in the final rounds and, tied there, chosen: the same plan run after run.
TEST(Select, TiesGiveTheSamePlanWhateverOrderTheNoiseMakes) {
  const std::vector<double> predicted{2.0, 2.02, 1.5, 3.0, 1.51};  // 2 and 4 tie in the model: 2
  const std::vector<std::vector<double>> orders{{1.00, 1.01, 1.02, 1.005, 1.015},
                                                {1.02, 1.00, 1.01, 1.015, 1.005},
                                                {1.01, 1.02, 1.00, 1.005, 1.015}};
  for (const auto& base : orders) {
    MockTimer t;
    t.time = [&](std::size_t i, int, int) { return base[i]; };
    auto cands = candidates(base.size());
    for (std::size_t i = 0; i < cands.size(); ++i) cands[i].predicted = predicted[i];
    dfft::TuneSettings s;
    s.warmup = 0;
    s.reps = 3;
    s.finalists = 2;
    auto res = dfft::detail::select_fastest(MPI_COMM_WORLD, cands, t, s, 0);
    EXPECT_EQ(res.winner, 2);
    EXPECT_NE(std::find(res.finalists.begin(), res.finalists.end(), 2), res.finalists.end());
    EXPECT_TRUE(same_on_all_ranks(res.winner));
  }
  // A measured difference beyond the noise still wins over the model.
  MockTimer t;
  t.time = [](std::size_t i, int, int) { return i == 0 ? 1.0 : 1.5; };
  auto cands = candidates(3);
  for (std::size_t i = 0; i < cands.size(); ++i) cands[i].predicted = predicted[i];
  dfft::TuneSettings s;
  s.warmup = 0;
  s.reps = 3;
  EXPECT_EQ(dfft::detail::select_fastest(MPI_COMM_WORLD, cands, t, s, 0).winner, 0);
}

// The budget counts the time the tuning spent before the loop, no candidate starts once it is
// spent, and the final rounds are left out when it is.
TEST(Select, TheBudgetCoversTheWholeTuningAndTheFinalRounds) {
  MockTimer t;  // 1 warm-up + 2 reps = 3 s per candidate on the mock clock
  t.time = [](std::size_t i, int, int) { return 1.0 + 0.01 * static_cast<double>(i); };
  dfft::TuneSettings s;
  s.warmup = 1;
  s.reps = 2;
  auto res = dfft::detail::select_fastest(MPI_COMM_WORLD, candidates(6), t, s, 5.0, 1.5);
  EXPECT_EQ(res.started, 2);  // starts at 1.5 s and 4.5 s; at 7.5 s the budget is spent
  EXPECT_TRUE(res.budget_exhausted);
  EXPECT_TRUE(res.final_rounds_skipped);
  EXPECT_EQ(res.final_rounds, 0);
  EXPECT_EQ(t.runs, 6);
  EXPECT_EQ(res.winner, 0);
  MockTimer none;
  none.time = t.time;
  auto spent = dfft::detail::select_fastest(MPI_COMM_WORLD, candidates(6), none, s, 5.0, 5.0);
  EXPECT_EQ(spent.started, 0);
  EXPECT_EQ(none.runs, 0);
  EXPECT_EQ(spent.winner, -1);
}

// The estimate of the time left is the measured time per candidate times the candidates left:
// with every candidate taking 3 s, it says so after the first one and stays there.
TEST(Select, TheTimeLeftIsMeasuredPerCandidate) {
  MockTimer t;
  t.time = [](std::size_t, int, int) { return 1.0; };
  dfft::TuneSettings s;
  s.warmup = 1;
  s.reps = 2;
  s.finalists = 0;
  std::vector<double> left;
  s.progress = [&](double spent, double total, const std::string&) {
    if (total > 0) left.push_back(total - spent);
  };
  dfft::detail::select_fastest(MPI_COMM_WORLD, candidates(5), t, s, 0);
  ASSERT_GE(left.size(), 4u);
  for (std::size_t k = 0; k + 1 < 4; ++k) EXPECT_NEAR(left[k], 3.0 * static_cast<double>(4 - k), 1e-9) << k;
  EXPECT_DOUBLE_EQ(left.back(), 0.0);
}

// A wisdom file path in a fresh temporary directory, the same on every rank.
std::string temp_wisdom(const char* name) {
  char dir[4096] = {0};
  if (rank() == 0) {
    std::string tmpl = "/tmp/dfft-tune-test-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data())) std::snprintf(dir, sizeof dir, "%s", buf.data());
  }
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  return std::string(dir) + "/" + name;
}

void write_on_rank0(const std::string& path, const std::string& text) {
  if (rank() == 0) std::ofstream(path) << text;
  MPI_Barrier(MPI_COMM_WORLD);
}

bool has_warning(const dfft::TuneReport& r, const std::string& part) {
  for (const auto& w : r.warnings)
    if (w.find(part) != std::string::npos) return true;
  return false;
}

dfft::Options measure_options(const std::string& wisdom) {
  dfft::Options o;
  o.tune = dfft::Tune::measure;
  o.wisdom_file = wisdom;
  return o;
}

const std::vector<std::int64_t> kShape{10, 9, 7};

TEST(TuneMeasure, BuildsACorrectPlanAndTheNextPlanReusesWisdom) {
  const auto path = temp_wisdom("wisdom.json");
  dfft::Plan<double> first(MPI_COMM_WORLD, kShape, measure_options(path));
  const dfft::TuneReport* r = first.tune_report();
  ASSERT_NE(r, nullptr);
  EXPECT_FALSE(r->wisdom_hit);
  EXPECT_TRUE(r->wisdom_written);
  ASSERT_GE(r->winner, 0);
  EXPECT_EQ(r->candidates[static_cast<std::size_t>(r->winner)].status, dfft::TuneCandidate::Status::measured);
  EXPECT_EQ(first.options().decomposition, r->chosen.decomposition);
  EXPECT_LT(dfft::validate::reference_error(first, MPI_COMM_WORLD), 1e-12);
  EXPECT_TRUE(same_on_all_ranks(r->winner));

  dfft::Plan<double> second(MPI_COMM_WORLD, kShape, measure_options(path));
  const dfft::TuneReport* r2 = second.tune_report();
  ASSERT_NE(r2, nullptr);
  EXPECT_TRUE(r2->wisdom_hit);
  EXPECT_TRUE(r2->candidates.empty());  // nothing measured
  EXPECT_EQ(dfft::tune_label(r2->chosen), dfft::tune_label(r->chosen));
  EXPECT_EQ(second.grid(), first.grid());
  EXPECT_LT(dfft::validate::reference_error(second, MPI_COMM_WORLD), 1e-12);
  EXPECT_NE(dfft::describe(*r2).find("wisdom hit"), std::string::npos);

  // Another precision is another configuration: measured, not taken from the double entry.
  dfft::Plan<float> other(MPI_COMM_WORLD, kShape, measure_options(path));
  EXPECT_FALSE(other.tune_report()->wisdom_hit);
  EXPECT_TRUE(has_warning(*other.tune_report(), "none of the 1 entries"));
  EXPECT_LT(dfft::validate::reference_error(other, MPI_COMM_WORLD), 1e-5);
}

// Other axes, padding or a tolerance are other problems: each is measured and stored beside
// the plain problem's entry, which still serves the plain problem.
TEST(TuneMeasure, AxesPaddingAndToleranceAreOtherProblems) {
  const auto path = temp_wisdom("problems.json");
  dfft::TuneSettings s;
  s.warmup = 0;
  s.reps = 1;
  s.finalists = 0;
  ASSERT_TRUE(dfft::tune<double>(MPI_COMM_WORLD, kShape, measure_options(path), s).wisdom_written);
  std::vector<dfft::Options> others(3, measure_options(path));
  others[0].axes = {0, 1};
  others[1].padding = {1.5, 1.5, 1.5};
  others[2].tolerance = 1e-3;
  for (const auto& o : others) {
    const auto r = dfft::tune<double>(MPI_COMM_WORLD, kShape, o, s);
    EXPECT_FALSE(r.wisdom_hit) << r.wisdom_key;
    EXPECT_TRUE(r.wisdom_written) << dfft::describe(r);
  }
  EXPECT_TRUE(dfft::tune<double>(MPI_COMM_WORLD, kShape, measure_options(path), s).wisdom_hit);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(dfft::parse_wisdom(text.str()).entries.size(), 4u);
}

// The key holds the node layout found, not the option's text: the same (empty) option on
// another layout is another problem.
TEST(TuneMeasure, TheKeyHoldsTheNodeLayoutFound) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  dfft::Options o;
  o.ranks_per_node = {1};
  EXPECT_EQ(dfft::detail::wisdom_key(MPI_COMM_WORLD, kShape, o, true).options.at("ranks_per_node"),
            size == 1 ? "1" : size == 2 ? "1,1" : size == 3 ? "1,1,1" : "1,1,1,1");
  o.ranks_per_node = {};
  const std::string found = dfft::detail::wisdom_key(MPI_COMM_WORLD, kShape, o, true).options.at("ranks_per_node");
  EXPECT_FALSE(found.empty());
  int sum = 0;
  std::stringstream items(found);
  for (std::string n; std::getline(items, n, ',');) sum += std::stoi(n);
  if (found.front() != '0') {
    EXPECT_EQ(sum, size) << found;  // ranks per node
  }
}

// The key holds the threads per rank a plan would run, not the option's text: threads 0 on ranks
// the launcher bound to one core each and on a rank alone with every core are other problems.
TEST(TuneMeasure, TheKeyHoldsTheThreadsResolved) {
  dfft::Options o;
  dfft::Plan<double> plan(MPI_COMM_WORLD, {17, 12, 10}, o);
  EXPECT_EQ(dfft::detail::wisdom_key(MPI_COMM_WORLD, kShape, o, true).options.at("threads"),
            std::to_string(plan.threads()));
  o.threads = 3;
  EXPECT_EQ(dfft::detail::wisdom_key(MPI_COMM_WORLD, kShape, o, true).options.at("threads"), "3");
}

TEST(TuneMeasure, MalformedWisdomIsRefusedAndLeftAsItWas) {
  const auto path = temp_wisdom("bad.json");
  const std::string text = "{\"dfft_wisdom\": 1, \"entries\": [ {\"key\": ";
  write_on_rank0(path, text);
  try {
    dfft::Plan<double> p(MPI_COMM_WORLD, kShape, measure_options(path));
    ADD_FAILURE() << "a truncated wisdom file was not refused";
  } catch (const dfft::InvalidArgument& e) {
    EXPECT_EQ(e.call(), "wisdom");
    EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos) << e.what();
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    std::ifstream in(path, std::ios::binary);
    std::string now((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(now, text);
  }
}

TEST(TuneMeasure, EntryWithThisKeyButAnImpossibleChoiceIsNotTrusted) {
  const auto path = temp_wisdom("forged.json");
  // Learn this configuration's key without measuring: heuristic mode reports it too.
  dfft::Options h;
  h.tune = dfft::Tune::heuristic;
  auto key = dfft::tune<double>(MPI_COMM_WORLD, kShape, h).wisdom_key;
  std::ostringstream doc;
  doc << R"({"dfft_wisdom": 1, "entries": [{"key": )" << key
      << R"(, "choice": {"decomposition": "pencil", "variant": "default", "grid": [3, 3],
            "methods": ["a2a-sync"], "chunks": 4}, "seconds": 0.001, "timestamp": "x"}]})";
  write_on_rank0(path, doc.str());
  dfft::TuneSettings s;
  s.write_wisdom = false;
  auto r = dfft::tune<double>(MPI_COMM_WORLD, kShape, measure_options(path), s);
  EXPECT_FALSE(r.wisdom_hit);
  EXPECT_TRUE(has_warning(r, "wisdom entry for this configuration ignored"));
  EXPECT_GE(r.winner, 0);
}

// One key for every effort: wisdom that `dfft tune` stores (FFTW estimate, to tune quickly) is
// found by a plan made with FFTW measure.
TEST(TuneMeasure, WisdomTunedWithEstimateServesAMeasurePlan) {
  const auto path = temp_wisdom("efforts.json");
  dfft::Options o = measure_options(path);
  o.effort = dfft::Effort::estimate;
  dfft::TuneSettings s;
  s.reps = 1;
  s.finalists = 0;
  const auto tuned = dfft::tune<double>(MPI_COMM_WORLD, kShape, o, s);
  ASSERT_TRUE(tuned.wisdom_written);
  o.effort = dfft::Effort::measure;
  dfft::Plan<double> p(MPI_COMM_WORLD, kShape, o);
  ASSERT_NE(p.tune_report(), nullptr);
  EXPECT_TRUE(p.tune_report()->wisdom_hit) << dfft::describe(*p.tune_report());
  EXPECT_EQ(dfft::tune_label(p.tune_report()->chosen), dfft::tune_label(tuned.chosen));
}

// A wisdom path that is not a regular file is refused at once on every rank: a device would be
// read forever, a FIFO would block the open, a directory never parses.
TEST(TuneMeasure, AWisdomPathThatIsNotARegularFileIsRefused) {
  const auto dir = temp_wisdom("");
  const auto fifo = dir + "fifo";
  if (rank() == 0) {
    EXPECT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (const std::string& path : {dir, std::string("/dev/full"), fifo}) {
    SCOPED_TRACE(path);
    const double t0 = MPI_Wtime();
    try {
      dfft::Plan<double> p(MPI_COMM_WORLD, kShape, measure_options(path));
      ADD_FAILURE() << "a plan was made with wisdom file " << path;
    } catch (const dfft::InvalidArgument& e) {
      if (rank() == 0) {
        EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
      }
    }
    EXPECT_LT(MPI_Wtime() - t0, 10.0);
  }
  if (rank() == 0) std::remove(fifo.c_str());
}

TEST(TuneHeuristic, PicksWithoutMeasuringAndBuildsAValidPlan) {
  dfft::Options o;
  o.tune = dfft::Tune::heuristic;
  // A folder of its own for the machine's default wisdom file, which then does not exist.
  const auto dir = temp_wisdom("unused.json");
  o.fftw_wisdom_dir = dir.substr(0, dir.rfind('/'));
  dfft::Plan<double> p(MPI_COMM_WORLD, kShape, o);
  const auto* r = p.tune_report();
  ASSERT_NE(r, nullptr);
  for (const auto& c : r->candidates)
    EXPECT_TRUE(c.status == dfft::TuneCandidate::Status::predicted ||
                c.status == dfft::TuneCandidate::Status::rejected);
  EXPECT_TRUE(has_warning(*r, "no calibration of this machine")) << dfft::describe(*r);
  EXPECT_FALSE(r->calibration.measured);  // the report names what it predicted with
  EXPECT_LT(dfft::validate::reference_error(p, MPI_COMM_WORLD), 1e-12);
}

// The model's bytes per exchange are what the real plan sends (Plan::exchange_bytes, max over
// ranks): the prediction walks the plan's own path. One plan per decomposition, variant and grid
// the tuner predicts (the bytes are the path's blocks; method, chunks and slices only schedule
// them), so that the check stays cheap on four oversubscribed ranks.
TEST(TuneHeuristic, PredictedExchangeBytesAreThePlansOwn) {
  dfft::Options o;
  o.tune = dfft::Tune::heuristic;
  o.effort = dfft::Effort::estimate;  // FFTW's planning does not move a byte
  const auto r = dfft::tune<double>(MPI_COMM_WORLD, kShape, o);
  int compared = 0;
  std::vector<std::tuple<dfft::Decomposition, dfft::Variant, std::vector<int>>> seen;
  for (const auto& c : r.candidates) {
    if (c.status != dfft::TuneCandidate::Status::predicted) continue;
    EXPECT_DOUBLE_EQ(c.predicted, c.prediction.total.total()) << c.label;
    const auto path = std::make_tuple(c.options.decomposition, c.options.variant, c.prediction.grid);
    if (std::find(seen.begin(), seen.end(), path) != seen.end()) continue;
    seen.push_back(path);
    std::vector<std::int64_t> predicted;
    for (const auto& s : c.prediction.stages)
      if (s.name.rfind("exchange", 0) == 0 || s.name == "reshape") predicted.push_back(s.bytes);
    dfft::Options exact = c.options;  // this candidate itself, not the tuner's choice again
    exact.tune = dfft::Tune::none;
    std::vector<std::int64_t> mine;
    int built = 1;
    try {
      mine = dfft::Plan<double>(MPI_COMM_WORLD, kShape, exact).exchange_bytes();
    } catch (const dfft::Error&) {
      built = 0;  // a method this build lacks: refused alike on every rank
    }
    ASSERT_TRUE(same_on_all_ranks(built)) << c.label;
    if (!built) continue;
    std::vector<std::int64_t> most(mine.size());
    ASSERT_EQ(MPI_Allreduce(mine.data(), most.data(), static_cast<int>(mine.size()), MPI_INT64_T, MPI_MAX,
                            MPI_COMM_WORLD), MPI_SUCCESS);
    EXPECT_EQ(predicted, most) << c.label;
    ++compared;
  }
  EXPECT_GT(compared, 0);
}

// The tuner's heuristic mode and the automatic choice of a plan made with defaults read the
// same calibration (a wisdom file holding one of this machine) and choose the same plan.
TEST(TuneHeuristic, ChoosesWhatAPlanWithDefaultsChooses) {
  const int P = ranks();
  if (P < 2) GTEST_SKIP() << "one rank exchanges nothing: there is nothing to choose";
  // Fixed numbers, so that the choice is the same in every run, under this machine's name.
  auto cal = dfft::model::Calibration::builtin(dfft::Backend::cpu, P, false, false);
  cal.measured = true;
  cal.device = dfft::detail::device_model(MPI_COMM_WORLD, dfft::Backend::cpu, -1);
  cal.host = dfft::detail::broadcast_string(dfft::detail::host_name(), MPI_COMM_WORLD);
  dfft::Wisdom w;
  w.calibrations.push_back(cal);
  const auto path = temp_wisdom("calibrated.json");
  write_on_rank0(path, dfft::to_json(w));
  for (const auto& shape : {kShape, std::vector<std::int64_t>{16, 12, 10}, std::vector<std::int64_t>{24, 20}}) {
    dfft::Options o;
    o.wisdom_file = path;
    o.effort = dfft::Effort::estimate;
    o.fftw_wisdom = false;
    dfft::Plan<double> automatic(MPI_COMM_WORLD, shape, o);
    o.tune = dfft::Tune::heuristic;
    dfft::Plan<double> tuned(MPI_COMM_WORLD, shape, o);
    SCOPED_TRACE(automatic.describe() + "\n" + dfft::describe(*tuned.tune_report()));
    EXPECT_NE(automatic.describe().find("calibration of " + path), std::string::npos);
    EXPECT_FALSE(has_warning(*tuned.tune_report(), "calibration"));
    const auto& a = automatic.options();
    const auto& t = tuned.options();
    EXPECT_EQ(t.decomposition, a.decomposition);
    EXPECT_EQ(t.variant, a.variant);
    EXPECT_EQ(t.methods, a.methods);
    EXPECT_EQ(t.chunks, a.chunks);
    EXPECT_EQ(t.overlap, a.overlap);
    EXPECT_EQ(tuned.grid(), automatic.grid());
  }
}

// calibrate() on emulated nodes measures each link class between a pair of ranks of that
// class; a class without such a pair stays unmeasured. (Emulated nodes share this machine's
// memory: both classes measure the same wire, so only positivity is checked, not an order.)
TEST(Calibrate, EmulatedNodesFillTheLinkClasses) {
  const int P = ranks();
  if (P < 2) GTEST_SKIP() << "link classes need two ranks";
  auto measured = [](const dfft::model::Link& l) {
    return l.bandwidth > 0 && std::isfinite(l.bandwidth) && l.latency > 0 && std::isfinite(l.latency);
  };
  dfft::model::CalibrateSettings s;
  s.reps = 2;
  s.fft_n = 8;
  // One rank per node, one node, and two nodes (2 + 1 ranks with 3).
  std::vector<std::vector<int>> layouts{{1}, {P}};
  if (P >= 3) layouts.push_back({P - P / 2, P / 2});
  for (const auto& layout : layouts) {
    s.ranks_per_node = layout;
    const auto c = dfft::model::calibrate(MPI_COMM_WORLD, dfft::Backend::cpu, s);
    const int nodes = layout[0] == 1 ? P : layout[0] == P ? 1 : 2;
    SCOPED_TRACE("first node of " + std::to_string(layout[0]) + " ranks");
    EXPECT_EQ(c.nodes, nodes);
    EXPECT_TRUE(c.emulated_nodes);
    EXPECT_EQ(measured(c.intra), nodes < P);
    EXPECT_EQ(measured(c.inter), nodes > 1);
    // Ranks 0 and 1 are the first pair of their class: the ping-pong is that class's.
    EXPECT_DOUBLE_EQ(c.pingpong.bandwidth, (layout[0] == 1 ? c.inter : c.intra).bandwidth);
    EXPECT_TRUE(same_on_all_ranks(static_cast<int>(c.inter.bandwidth > 0)));
    // The prediction of a slab exchange on these nodes charges the measured classes.
    dfft::Options o;
    o.decomposition = dfft::Decomposition::slab_2d1d;
    o.ranks_per_node = layout;
    const auto p = dfft::model::predict(c, {9, 10, 11}, o, P, true);
    EXPECT_TRUE(std::isfinite(p.total.comm) && p.total.comm > 0);
  }
}

// The default wisdom file ($DFFT_WISDOM here): the tuner writes it without being told a file, and
// a plan made without options then runs the tuned plan, saying so; with DFFT_WISDOM=off it runs
// the model's choice. The entry is then changed to a plan the model would not choose, which the
// next plan must run: the choice follows the file, not the model.
class DefaultWisdom : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* old = std::getenv("DFFT_WISDOM");
    saved_ = old ? old : "";
    had_ = old != nullptr;
  }
  void TearDown() override {
    if (had_) setenv("DFFT_WISDOM", saved_.c_str(), 1);
    else unsetenv("DFFT_WISDOM");
  }
  std::string saved_;
  bool had_ = false;
};

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST_F(DefaultWisdom, APlanWithoutOptionsRunsTheTunedPlan) {
  if (ranks() < 2) GTEST_SKIP() << "one rank has nothing to choose";
  const auto path = temp_wisdom("default.json");
  setenv("DFFT_WISDOM", path.c_str(), 1);
  EXPECT_EQ(dfft::default_wisdom_file(), path);
  dfft::Options o;
  o.tune = dfft::Tune::measure;  // no wisdom_file: the default one
  dfft::TuneSettings quick;
  quick.reps = 2;
  quick.warmup = 0;
  quick.final_reps = 2;
  const auto r = dfft::tune<double>(MPI_COMM_WORLD, kShape, o, quick);
  ASSERT_TRUE(r.wisdom_written) << dfft::describe(r);
  EXPECT_EQ(r.wisdom_file, path);

  dfft::Plan<double> plain(MPI_COMM_WORLD, kShape);
  EXPECT_EQ(dfft::tune_label(plain.options()), dfft::tune_label(r.chosen));
  EXPECT_NE(plain.describe().find("from wisdom " + path), std::string::npos) << plain.describe();
  EXPECT_EQ(plain.wisdom_source(), path);
  EXPECT_LT(dfft::validate::reference_error(plain, MPI_COMM_WORLD), 1e-12);

  // A choice the model would not make (pencil, realigned, p2p-sync): the file decides.
  std::string text = rank() == 0 ? read_text(path) : std::string();
  auto wisdom = dfft::parse_wisdom(text.empty() ? "{\"dfft_wisdom\": 1}" : text);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank() == 0) {
    ASSERT_EQ(wisdom.entries.size(), 1u);
    auto& e = wisdom.entries[0];
    e.decomposition = dfft::Decomposition::pencil;
    e.grid = {ranks(), 1};
    e.variant = dfft::Variant::Realigned;
    e.methods = {dfft::Method::p2p_sync};
    e.overlap = 1;
    std::ofstream(path) << dfft::to_json(wisdom);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  dfft::Plan<double> forged(MPI_COMM_WORLD, kShape);
  EXPECT_EQ(forged.options().decomposition, dfft::Decomposition::pencil);
  EXPECT_EQ(forged.options().variant, dfft::Variant::Realigned);
  EXPECT_EQ(forged.options().methods, std::vector<dfft::Method>{dfft::Method::p2p_sync});
  EXPECT_LT(dfft::validate::reference_error(forged, MPI_COMM_WORLD), 1e-12);

  setenv("DFFT_WISDOM", "off", 1);
  EXPECT_EQ(dfft::default_wisdom_file(), "");
  dfft::Plan<double> model(MPI_COMM_WORLD, kShape);
  EXPECT_EQ(model.describe().find("from wisdom"), std::string::npos) << model.describe();
  EXPECT_EQ(model.wisdom_source(), "");
  EXPECT_NE(model.describe().find("predicted by the model"), std::string::npos) << model.describe();
  EXPECT_FALSE(model.options().decomposition == dfft::Decomposition::pencil &&
               model.options().variant == dfft::Variant::Realigned &&
               model.options().methods == std::vector<dfft::Method>{dfft::Method::p2p_sync})
      << "DFFT_WISDOM=off still ran the stored choice";
}

// A tuning cut short by its budget is stored as partial: a plan without options does not take it
// (the model chooses), and the next tuning continues it, timing the stored choice again beside
// the candidates it did not reach, and then stores a complete entry.
TEST_F(DefaultWisdom, APartialTuningIsContinuedNotTrusted) {
  if (ranks() < 2) GTEST_SKIP() << "one rank has nothing to choose";
  const auto path = temp_wisdom("partial.json");
  setenv("DFFT_WISDOM", path.c_str(), 1);
  dfft::Options o;
  o.tune = dfft::Tune::measure;
  dfft::TuneSettings quick;
  quick.reps = 2;
  quick.warmup = 0;
  quick.final_reps = 2;
  const auto all = dfft::tune_candidates(dfft::Options{}, ranks(), 3);
  ASSERT_GT(all.size(), 4u);
  // The first full tuning gives the key; the entry is then marked as 3 of N tried.
  const auto full = dfft::tune<double>(MPI_COMM_WORLD, kShape, o, quick);
  ASSERT_TRUE(full.wisdom_written);
  EXPECT_EQ(full.tried, full.of);
  std::string text = rank() == 0 ? read_text(path) : std::string();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank() == 0) {
    auto w = dfft::parse_wisdom(text);
    auto& e = w.entries.at(0);
    e.decomposition = all[1].decomposition;
    e.variant = all[1].variant;
    e.grid = all[1].grid;
    e.methods = all[1].methods;
    e.chunks = all[1].chunks;
    e.overlap = all[1].overlap;
    e.tried = 3;
    e.of = static_cast<int>(all.size());
    std::ofstream(path) << dfft::to_json(w);
    EXPECT_NE(dfft::to_json(w).find("\"partial\""), std::string::npos);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  dfft::Plan<double> plain(MPI_COMM_WORLD, kShape);
  EXPECT_EQ(plain.describe().find("from wisdom"), std::string::npos) << plain.describe();
  EXPECT_NE(plain.describe().find("partial tuning"), std::string::npos) << plain.describe();

  const auto next = dfft::tune<double>(MPI_COMM_WORLD, kShape, o, quick);
  EXPECT_TRUE(next.continued) << dfft::describe(next);
  EXPECT_EQ(next.candidates.size(), all.size() - 3 + 1);
  EXPECT_EQ(next.candidates.front().label, dfft::tune_label(all[1]));
  EXPECT_EQ(next.tried, next.of);
  text = rank() == 0 ? read_text(path) : std::string();
  if (rank() == 0) {
    const auto w = dfft::parse_wisdom(text);
    ASSERT_EQ(w.entries.size(), 1u);
    EXPECT_FALSE(w.entries[0].partial());
  }
  dfft::Plan<double> tuned(MPI_COMM_WORLD, kShape);
  EXPECT_NE(tuned.describe().find("from wisdom " + path), std::string::npos) << tuned.describe();

  // A budget spent before the first candidate: nothing timed, the model's choice, nothing stored.
  o.tune_budget_s = 1e-9;
  o.wisdom_file = temp_wisdom("budget.json");
  const auto cut = dfft::tune<double>(MPI_COMM_WORLD, kShape, o, quick);
  EXPECT_TRUE(cut.budget_exhausted);
  EXPECT_FALSE(cut.wisdom_written);
  EXPECT_TRUE(has_warning(cut, "no candidate was timed within the budget")) << dfft::describe(cut);
}

}  // namespace
