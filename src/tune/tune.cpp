// SPDX-License-Identifier: MIT
// The tuner: wisdom lookup, then the analytic model (heuristic) or the timed candidates
// (measure), then the chosen plan and the wisdom update.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>

#include "backend/device.hpp"
#include "model/machine.hpp"
#include "tune/automatic.hpp"
#include "transport/topology.hpp"
#include "tune/tuner.hpp"
#include "util/check.hpp"

namespace dfft::detail {

namespace {

// Tuning parameters decide collective calls; different values on different ranks would hang.
void check_consistent(MPI_Comm comm, const Options& o, const TuneSettings& s) {
  // The path's hash, cut to 52 bits so that it survives the trip through a double exactly.
  const auto path_hash = static_cast<double>(std::hash<std::string>{}(wisdom_path(o)) & ((1ull << 52) - 1));
  double v[8] = {static_cast<double>(o.tune), o.tune_budget_s, path_hash,
                 static_cast<double>(s.reps), static_cast<double>(s.warmup), s.cut_factor,
                 static_cast<double>(s.reuse_wisdom), static_cast<double>(s.write_wisdom)};
  double lo[8], hi[8];
  DFFT_MPI(MPI_Allreduce(v, lo, 8, MPI_DOUBLE, MPI_MIN, comm));
  DFFT_MPI(MPI_Allreduce(v, hi, 8, MPI_DOUBLE, MPI_MAX, comm));
  for (int i = 0; i < 8; ++i)
    if (lo[i] != hi[i])
      fail("ranks disagree on the tuning options (tune, tune_budget_s, wisdom_file, settings); "
           "give every rank the same");
}

// The model's time of every candidate (for breaking measured ties); NaN where it refuses one.
void predict_all(std::vector<TuneCandidate>& cands, const model::Calibration& cal,
                 const std::vector<std::int64_t>& shape, int ranks, bool is_double,
                 const std::vector<int>& node, std::vector<std::string>& why) {
  why.assign(cands.size(), std::string());
  for (std::size_t i = 0; i < cands.size(); ++i) {
    try {
      cands[i].prediction = model::predict(cal, shape, cands[i].options, ranks, is_double, node);
      cands[i].predicted = cands[i].prediction.total.total();
    } catch (const Error& e) {
      cands[i].predicted = std::numeric_limits<double>::quiet_NaN();
      why[i] = e.what();
    }
  }
}

// Candidate indices best first (TuneReport::order): the winner, the other finalists by time(),
// the other usable ones by time (measured) or prediction, then cut (by first repetition),
// rejected and not run ones; ties keep the order they were tried in.
std::vector<int> ranked(const TuneReport& r) {
  using S = TuneCandidate::Status;
  auto key = [&](int i) -> std::pair<int, double> {
    const auto& c = r.candidates[static_cast<std::size_t>(i)];
    if (i == r.winner) return {0, 0.0};
    if (std::find(r.finalists.begin(), r.finalists.end(), i) != r.finalists.end()) return {1, c.time()};
    // The model's ties keep the candidate order they were taken in (choose_automatic).
    if (c.status == S::predicted && std::find(r.tied.begin(), r.tied.end(), i) != r.tied.end())
      return {1, static_cast<double>(i)};
    if (c.status == S::measured && std::isfinite(c.time())) return {2, c.time()};
    if (c.status == S::predicted && std::isfinite(c.predicted)) return {2, c.predicted};
    if (c.status == S::cut) return {3, c.first};
    return {c.status == S::rejected ? 4 : 5, 0.0};
  };
  std::vector<int> idx(r.candidates.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int>(i);
  std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return key(a) < key(b); });
  return idx;
}

struct Problem {
  MPI_Comm comm;
  const std::vector<std::int64_t>& shape;
  const Options& opt;
  bool is_double;
  const Layout *in, *out;
};

// Heuristic mode: the choice a plan makes of its automatic fields (choose_automatic), with the
// tuned fields left automatic, so that the model's choice is the same whether a plan is tuned
// heuristically or made with defaults. The candidates are the choice's ranking, the chosen one
// first; a chosen plan that cannot be built gives way to the next (build_winner).
void choose_as_plans_do(const Problem& p, const MachineFacts& facts, const model::Calibration& cal,
                        TuneReport& r) {
  Options open = p.opt;
  open.decomposition = Decomposition::automatic;
  open.variant = Variant::automatic;
  open.methods.clear();
  open.chunks = 0;
  const AutoChoice choice = choose_automatic(facts, p.shape, open, p.is_double, cal);
  r.candidates.clear();
  auto add = [&](const Options& o, double predicted) {
    TuneCandidate c;
    c.options = o;
    c.label = tune_label(o);
    c.predicted = predicted;
    c.status = TuneCandidate::Status::predicted;
    r.candidates.push_back(c);
  };
  add(choice.chosen, choice.ranked.empty() ? std::numeric_limits<double>::quiet_NaN() : choice.ranked.front().predicted);
  for (std::size_t i = 1; i < choice.ranked.size(); ++i) add(choice.ranked[i].options, choice.ranked[i].predicted);
  for (const auto& w : choice.ruled_out) r.warnings.push_back("heuristic: ruled out " + w);
  r.warnings.insert(r.warnings.end(), choice.warnings.begin(), choice.warnings.end());
  r.winner = 0;
  // The model's ties: within kModelTie of the best, listed in candidate order, not by prediction.
  if (choice.tied > 1)
    for (int i = 0; i < choice.tied; ++i) r.tied.push_back(i);
}

// Wisdom hit: builds the stored choice. False (with a warning) when it fails.
bool try_wisdom(const Problem& p, const WisdomEntry& e, TuneReport& r, std::unique_ptr<PlanImpl>& plan) {
  Options o = with_choice(p.opt, e);
  std::string msg;
  plan = build_everywhere(p.comm, p.shape, o, p.is_double, p.in, p.out, msg);
  if (!plan) {
    r.warnings.push_back("wisdom entry for this configuration could not be built (" + msg + "); measuring");
    return false;
  }
  r.chosen = o;
  r.wisdom_hit = true;
  return true;
}

// Builds the winner, or else the next candidate in the ranking that builds (a heuristic winner
// may name an unbuilt method; a measured one was built before, so only resources can fail it,
// which the warnings say); sets r.winner, r.chosen and r.order.
void build_winner(const Problem& p, TuneReport& r, std::unique_ptr<PlanImpl>& plan) {
  using S = TuneCandidate::Status;
  std::string first_note;
  for (const auto& c : r.candidates)
    if (c.status == S::rejected && first_note.empty()) first_note = c.note;
  const int selected = r.winner;
  // A problem that no candidate has the memory for is a resource failure, as a plan made
  // directly reports it (OutOfMemory), not a bad argument.
  auto no_plan = [&] {
    bool any = false, all_memory = true;
    for (const auto& c : r.candidates)
      if (c.status == S::rejected) {
        any = true;
        all_memory = all_memory && c.error == Status::out_of_memory;
      }
    const std::string why = first_note.empty() ? std::string() : " (first rejection: " + first_note + ")";
    if (any && all_memory)
      throw OutOfMemory("plan", 0, world_rank(), "dfft: tuning found no candidate plan that fits in memory" + why);
    fail("tuning found no candidate plan that can be built", why);
  };
  for (int i : ranked(r)) {
    auto& c = r.candidates[static_cast<std::size_t>(i)];
    if (c.status != S::measured && c.status != S::predicted) break;  // the usable ones come first
    std::string msg;
    Status why = Status::internal;
    plan = build_everywhere(p.comm, p.shape, c.options, p.is_double, p.in, p.out, msg, &why);
    if (plan) {
      r.winner = i;
      r.chosen = c.options;
      r.order = ranked(r);
      return;
    }
    if (i == selected && r.mode == Tune::measure)
      r.warnings.push_back("the chosen " + c.label + " could not be built again (" + msg +
                           "); taking the next in the ranking");
    c.status = S::rejected;
    c.note = msg;
    c.error = why;
    if (first_note.empty()) first_note = msg;
  }
  no_plan();
}

std::string seconds_text(double s) {
  std::ostringstream o;
  o << s << " s";
  return o.str();
}

std::string percent(double fraction) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(1);
  s << fraction * 100 << "%";
  return s.str();
}

// How sure a measured choice is: the gap to the runner-up against the noise bound.
std::string certainty(const TuneReport& r) {
  const auto& w = r.candidates[static_cast<std::size_t>(r.winner)];
  std::ostringstream s;
  s.precision(4);
  const bool finals = !r.finalists.empty();
  const char* stat = finals ? "final-round median" : "median";
  if (r.runner_up < 0) return "certainty: " + w.label + " was the only candidate measured";
  const auto& ru = r.candidates[static_cast<std::size_t>(r.runner_up)];
  s << "certainty: chosen " << w.time() * 1e3 << " ms (spread " << percent(w.spread) << "), runner-up "
    << ru.label << " " << ru.time() * 1e3 << " ms (spread " << percent(ru.spread) << "), " << stat << "s; gap " << (r.runner_up_ratio >= 1 ? "+" : "") << percent(r.runner_up_ratio - 1)
    << ", noise bound " << percent(r.tie_bound) << " -> ";
  if (r.tied.size() > 1) {
    s << "tie among " << r.tied.size() << (finals ? " finalists" : " candidates") << " (";
    for (std::size_t k = 0; k < r.tied.size(); ++k)
      s << (k ? "; " : "") << r.candidates[static_cast<std::size_t>(r.tied[k])].label;
    s << "): chose the model's favourite";
  } else {
    s << "clear";
  }
  if (finals)
    s << " (" << r.final_rounds << " final round" << (r.final_rounds == 1 ? "" : "s") << ", the same leader by more "
      << "than the noise in the last " << r.stable_rounds << ")";
  else
    s << (r.final_rounds_skipped ? " (no final rounds: the time budget was spent)"
                                 : " (no final rounds: fewer than two finalists)");
  return s.str();
}

}  // namespace

std::unique_ptr<PlanImpl> build_everywhere(MPI_Comm comm, const std::vector<std::int64_t>& shape,
                                           const Options& o, bool is_double, const Layout* in,
                                           const Layout* out, std::string& msg, Status* status) {
  std::unique_ptr<PlanImpl> plan;
  bool failed = false;
  Status st = Status::internal;
  try {
    plan = std::make_unique<PlanImpl>(comm, shape, o, is_double, in, out);
  } catch (const Error& e) {
    failed = true;
    msg = e.what();
    st = e.status();
  }
  if (any_rank_failed(failed, msg, st, comm)) {
    plan.reset();
    if (status) *status = st;
  }
  return plan;
}

TuneReport run_tuner(MPI_Comm comm, const std::vector<std::int64_t>& shape, const Options& opt,
                     bool is_double, const Layout* user_in, const Layout* user_out,
                     const TuneSettings& s, std::unique_ptr<PlanImpl>* built) {
  const double t0 = MPI_Wtime();
  check_consistent(comm, opt, s);
  TuneReport r;
  r.mode = opt.tune == Tune::heuristic ? Tune::heuristic : Tune::measure;
  r.settings = s;
  int ranks = 1;
  DFFT_MPI(MPI_Comm_size(comm, &ranks));
  const Problem p{comm, shape, opt, is_double, user_in, user_out};
  const bool boxes = user_in != nullptr;
  // The wisdom key does not hold every rank's boxes, so box-API plans neither read nor write it.
  if (boxes && !opt.wisdom_file.empty() && opt.wisdom_file != kWisdomOff)
    r.warnings.push_back("wisdom is not used for plans with user boxes");
  const std::string file = boxes ? std::string() : wisdom_path(opt);
  r.wisdom_file = file;
  const WisdomKey key = wisdom_key(comm, shape, opt, is_double);
  r.wisdom_key = to_json(key);
  const Wisdom w = load_wisdom(file, comm, r.warnings);
  std::unique_ptr<PlanImpl> plan;
  // The stored entry: reused as it is when complete (and reuse is asked), continued when partial.
  std::optional<WisdomEntry> stored;
  if (r.mode == Tune::measure && !file.empty())
    stored = find_wisdom(w, key, opt, static_cast<int>(shape.size()), r.warnings);
  const bool hit = stored && !stored->partial() && s.reuse_wisdom && try_wisdom(p, *stored, r, plan);
  if (!hit) {
    const Topology topo = make_topology(comm, opt.ranks_per_node);
    // The model, with the calibration the automatic choice of a plan looks up, makes the
    // heuristic choice and breaks the measured ties.
    std::unique_ptr<Device> gpu;  // the GPU active while the facts are gathered
    if (opt.backend == Backend::cuda) gpu = make_cuda_device(comm, opt.device, opt.stream);
    const MachineFacts facts = machine_facts(comm, opt, topo, gpu ? gpu->ordinal() : -1);
    gpu.reset();
    std::string source;
    std::vector<std::string> notes;
    const model::Calibration cal = machine_calibration(comm, facts, opt, source, notes);
    r.calibration = cal;
    r.calibration_source = source;
    if (r.mode == Tune::heuristic) {
      r.warnings.insert(r.warnings.end(), notes.begin(), notes.end());
      if (!cal.measured && notes.empty())
        r.warnings.push_back("heuristic: no calibration of this machine; the model uses the " + source +
                             " (dfft model calibrate makes one)");
      choose_as_plans_do(p, facts, cal, r);
      // Each candidate's stage breakdown, for the table `dfft tune --mode heuristic` prints.
      std::vector<std::string> why;
      predict_all(r.candidates, cal, shape, ranks, is_double, topo.node, why);
    } else {
      const auto all = tune_candidates(opt, ranks, static_cast<int>(shape.size()), topo.nodes());
      // A partial entry of the same candidate list is continued: its choice is timed again
      // first (so that it is compared at this moment), then the candidates it did not reach.
      std::size_t first = 0;
      if (stored && stored->partial()) {
        const std::string label = tune_label(with_choice(opt, *stored));
        const auto it = std::find_if(all.begin(), all.begin() + std::min<std::size_t>(stored->tried, all.size()),
                                     [&](const Options& o) { return tune_label(o) == label; });
        if (static_cast<std::size_t>(stored->of) == all.size() && it != all.end()) {
          r.continued = true;
          first = static_cast<std::size_t>(stored->tried);
          TuneCandidate c;
          c.options = *it;
          c.label = label;
          r.candidates.push_back(c);
          r.warnings.push_back("continuing the partial tuning in " + file + " (" + std::to_string(stored->tried) +
                               " of " + std::to_string(stored->of) + " candidates tried): its choice " + label +
                               " timed again beside candidates " + std::to_string(first + 1) + " to " +
                               std::to_string(all.size()));
        } else {
          r.warnings.push_back("the partial tuning in " + file + " is of another candidate list; tuning from the start");
        }
      }
      for (std::size_t i = first; i < all.size(); ++i) {
        TuneCandidate c;
        c.options = all[i];
        c.label = tune_label(all[i]);
        r.candidates.push_back(c);
      }
      std::vector<std::string> why;
      predict_all(r.candidates, cal, shape, ranks, is_double, topo.node, why);
      std::vector<Options> opts;
      for (const auto& c : r.candidates) opts.push_back(c.options);
      auto timer = make_plan_timer(comm, shape, opts, is_double, user_in, user_out);
      // The budget counts the whole tuning, the wisdom lookup and the model included.
      double spent = MPI_Wtime() - t0, spent_max = 0;
      DFFT_MPI(MPI_Allreduce(&spent, &spent_max, 1, MPI_DOUBLE, MPI_MAX, comm));
      auto res = select_fastest(comm, std::move(r.candidates), *timer, s, opt.tune_budget_s, spent_max);
      r.candidates = std::move(res.candidates);
      r.winner = res.winner;
      r.budget_exhausted = res.budget_exhausted;
      r.final_rounds_skipped = res.final_rounds_skipped;
      r.runner_up = res.runner_up;
      r.runner_up_ratio = res.runner_up_ratio;
      r.tie_bound = res.tie_bound;
      r.tied = res.tied;
      r.finalists = res.finalists;
      r.final_rounds = res.final_rounds;
      r.stable_rounds = res.stable_rounds;
      r.of = static_cast<int>(all.size());
      r.tried = static_cast<int>(first) + res.started - (r.continued ? 1 : 0);
      if (r.continued && res.started == 0) r.tried = static_cast<int>(first);
      if (res.budget_exhausted)
        r.warnings.push_back("tune budget of " + seconds_text(opt.tune_budget_s) + " spent: " +
                             std::to_string(r.of - r.tried) + " of " + std::to_string(r.of) +
                             " candidates not run; the result is partial (a later tuning continues it)");
      else if (res.final_rounds_skipped)
        r.warnings.push_back("tune budget of " + seconds_text(opt.tune_budget_s) +
                             " spent before the final rounds were done: the rounds so far decided");
      if (r.winner < 0 && res.budget_exhausted) {
        // Nothing timed in the budget: the model's choice among the candidates, as a plan
        // without tuning would make it, and nothing stored.
        std::vector<int> pool;
        for (std::size_t i = 0; i < r.candidates.size(); ++i) pool.push_back(static_cast<int>(i));
        const int fav = model_favourite(r.candidates, pool);
        r.winner = fav >= 0 ? fav : 0;
        r.candidates[static_cast<std::size_t>(r.winner)].status = TuneCandidate::Status::predicted;
        r.warnings.push_back("no candidate was timed within the budget: the model's choice");
      }
    }
    build_winner(p, r, plan);
    for (const auto& note : plan->warnings()) r.warnings.push_back(note);
    const auto& c = r.candidates[static_cast<std::size_t>(r.winner)];
    if (r.mode == Tune::measure && s.write_wisdom && !file.empty() && c.status == TuneCandidate::Status::measured) {
      WisdomEntry e{key, c.options.decomposition, c.options.variant, plan->path().grid,
                    c.options.methods, c.options.chunks, c.options.overlap,
                    c.options.in_flight, c.time(), utc_timestamp()};
      if (r.tried < r.of) {
        e.tried = r.tried;
        e.of = r.of;
      }
      try {
        store_wisdom(file, e, comm, wisdom_is_default(opt));
        r.wisdom_written = true;
      } catch (const LibraryError& err) {
        // The default file is a cache the caller did not name: a plan is not refused because it
        // cannot be written (a read-only home), but the report says so. A named file's failed
        // write is the caller's error.
        if (!wisdom_is_default(opt)) throw;
        r.warnings.push_back(std::string("wisdom not written: ") + err.what());
      }
    }
  }
  double el = MPI_Wtime() - t0;
  DFFT_MPI(MPI_Allreduce(&el, &r.seconds, 1, MPI_DOUBLE, MPI_MAX, comm));
  if (built) *built = std::move(plan);
  return r;
}

std::unique_ptr<PlanImpl> make_plan_impl(MPI_Comm comm, const std::vector<std::int64_t>& shape,
                                         const Options& opt, bool is_double, const Layout* user_in,
                                         const Layout* user_out,
                                         std::shared_ptr<const TuneReport>& report) {
  if (opt.tune == Tune::none) return std::make_unique<PlanImpl>(comm, shape, opt, is_double, user_in, user_out);
  std::unique_ptr<PlanImpl> plan;
  report = std::make_shared<const TuneReport>(
      run_tuner(comm, shape, with_fixed_defaults(opt), is_double, user_in, user_out, TuneSettings{}, &plan));
  return plan;
}

}  // namespace dfft::detail

namespace dfft {

template <class T>
TuneReport tune(MPI_Comm comm, const std::vector<std::int64_t>& shape, const Options& options,
                const TuneSettings& settings) {
  Options o = detail::with_fixed_defaults(options);
  if (o.tune == Tune::none) o.tune = Tune::measure;
  return detail::run_tuner(comm, shape, o, std::is_same_v<T, double>, nullptr, nullptr, settings, nullptr);
}

template TuneReport tune<float>(MPI_Comm, const std::vector<std::int64_t>&, const Options&, const TuneSettings&);
template TuneReport tune<double>(MPI_Comm, const std::vector<std::int64_t>&, const Options&, const TuneSettings&);

std::string describe(const TuneReport& r) {
  std::ostringstream s;
  s.precision(3);
  if (r.wisdom_hit) {
    s << "dfft tune: wisdom hit in " << r.wisdom_file << ": " << tune_label(r.chosen)
      << " (nothing measured, " << r.seconds << " s)";
  } else {
    int measured = 0, cut = 0, rejected = 0, not_run = 0;
    for (const auto& c : r.candidates) {
      measured += c.status == TuneCandidate::Status::measured || c.status == TuneCandidate::Status::predicted;
      cut += c.status == TuneCandidate::Status::cut;
      rejected += c.status == TuneCandidate::Status::rejected;
      not_run += c.status == TuneCandidate::Status::not_run;
    }
    s << "dfft tune: " << to_string(r.mode) << ": " << r.candidates.size() << " candidates ("
      << measured << (r.mode == Tune::heuristic ? " predicted, " : " measured, ") << cut << " cut, "
      << rejected << " rejected, " << not_run << " not run) in " << r.seconds << " s; chose "
      << tune_label(r.chosen);
    if (r.winner >= 0) {
      const auto& w = r.candidates[static_cast<std::size_t>(r.winner)];
      const double t = r.mode == Tune::heuristic ? w.predicted : w.time();
      // One rank predicts nothing: every candidate is the same local transform. The model
      // predicts one forward transform; the candidates are timed as forward+inverse pairs.
      if (std::isfinite(t))
        s << " (" << t * 1e3 << (r.mode == Tune::heuristic ? " ms per forward transform, predicted)" : " ms per forward+inverse)");
    }
    if (r.wisdom_written)
      s << "; wisdom written to " << r.wisdom_file
        << (r.tried < r.of ? " as partial (" + std::to_string(r.tried) + " of " + std::to_string(r.of) +
                                 " candidates tried; a later tuning continues it)"
                           : std::string());
    if (r.mode == Tune::measure && r.winner >= 0) s << "\n  " << detail::certainty(r);
    if (r.mode == Tune::heuristic && r.tied.size() > 1)
      s << "\n  the model cannot tell the first " << r.tied.size()
        << " apart (predictions within " << detail::kModelTie * 100 << "%): the first listed is taken";
  }
  for (const auto& w : r.warnings) s << "\n  warning: " << w;
  return s.str();
}

}  // namespace dfft
