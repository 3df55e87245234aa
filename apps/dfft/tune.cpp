// SPDX-License-Identifier: MIT
// `dfft tune`: time the candidate plans of one problem, print them ranked, store the winner in
// the wisdom file; with --mode heuristic, the analytic model's ranking of the same candidates
// (docs/tuning.md, docs/models.md).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <utility>

#include "bench.hpp"
#include "dfft/option_fields.hpp"
#include "machine.hpp"
#include "output_target.hpp"
#include "command.hpp"
#include "dfft/dfft.hpp"
#include "dfft/tune.hpp"
#include "dfft/validate.hpp"
#include "model.hpp"
#include "mpi_check.hpp"
#include "progress.hpp"
#include "report.hpp"
#include "stats.hpp"

namespace dfftapp {

namespace {

struct TuneArgs {
  std::vector<std::string> size{"64", "64", "64"};
  std::string precision = "double", mode = "measure";
  bool no_wisdom = false, reuse = false, validate = false;
  double validate_limit = 0;  // --validate-limit: the reference error allowed (0: bench's limit)
  double budget = 0;
  dfft::TuneSettings settings;
  int top = 0;
  int progress = 0;  // >0 --progress, <0 --no-progress, 0: on a terminal
  OptionValues options;         // the plan options, by field name, as the table's flags gave them
  // Filled from `options` after parsing.
  std::string transform, backend, grid;
  std::string wisdom;           // empty: the machine's default file
  bool wisdom_given = false;    // --wisdom on the command line
  std::vector<int> threads;     // threads per rank; one tuning (and wisdom entry) per value
  std::string json;             // --json: one record per candidate (tools/plot.py --tune)
  std::vector<std::string> records;  // their lines, written once every tuning is done
};

const char* kTuneFooter = R"(Candidates: both slab decompositions, the pencil on every factorisation P1 x P2 of the
rank count, both variants, every method of the backend for each exchange, and chunks 1 and 4
for onesided. Each candidate runs --warmup untimed and --reps timed forward+inverse pairs
(all ranks start each repetition together after a barrier); its "median ms" is the median over
the repetitions of the slowest rank's time, as dfft bench times. A candidate whose first repetition takes more than --cut times the
best median so far is stopped (cut). The --finalists best are then timed again in rounds (a
block of --reps each, alternating order) until one leads two rounds in a row by more than the
noise or each had --final-reps more repetitions; "final ms" is their median over the final
rounds alone, and the chosen plan is always a finalist, decided on "final ms". Noise: the
larger relative interquartile range ("spread") of the two, at least 3%; finalists within it of
the fastest are a tie, and the tie goes to the one the analytic model predicts fastest. Rows:
the chosen, the other finalists by "final ms", the rest by "median ms"; "vs best" compares like
with like (a finalist's final ms with the chosen's, another's median with the chosen's median).
The certainty line gives the gap to the runner-up, both spreads and the verdict (clear or tie).
The chosen plan is stored in the wisdom file, keyed by the problem and the machine (docs/tuning.md
lists the key); `dfft bench --tune measure` and plans made with --tune measure
(Options::tune = measure) and the same wisdom file reuse it without measuring. Progress lines
go to stderr on a terminal, or with --progress.

--mode heuristic: the analytic model's ranking of the same candidates, nothing timed or stored:
the calibration it used (from --wisdom, by default the machine's wisdom file where `dfft model
calibrate` stores it; the placeholder constants where there is none), every candidate's
predicted fft, pack, comm and unpack time of one forward transform in ms (the slowest rank per
stage), the bytes and peers of each exchange, and the slab-vs-pencil crossover (docs/models.md).)";

// The table's flags as tune takes them. --mode and --budget are Options::tune and tune_budget_s
// here; the tuner times r2c (with its inverse) or c2c.
const FlagUses& tune_uses() {
  static const FlagUses uses{
      {"transform", FlagUse().just({"r2c", "c2c"})},
      {"grid", FlagUse().noted("Fixes the process grid; auto: the tuner chooses it")},
      {"effort", FlagUse().defaults_to("estimate")},
      {"threads", FlagUse().least(0, "an integer >= 0").noted("A list tunes each in turn")},
      {"wisdom_file", FlagUse().noted("The file tune updates; --mode heuristic reads the calibration from it")},
      {"tune", FlagUse().owned()},
      {"tune_budget_s", FlagUse().owned()},
  };
  return uses;
}

void add_options(CLI::App* c, TuneArgs& a) {
  add_size_option(c, a.size, "Global shape")->capture_default_str();
  c->add_option("--precision", a.precision)->check(CLI::IsMember({"double", "float"}))->capture_default_str();
  c->add_option("--mode", a.mode, "measure (time candidates) | heuristic (analytic model only)")
      ->check(CLI::IsMember({"measure", "heuristic"}))->capture_default_str();
  c->add_flag("--reuse", a.reuse, "Take a matching wisdom entry instead of measuring");
  c->add_option("--budget", a.budget, "No candidate or final round starts after this many seconds; the "
                                      "result is then stored as partial and a later run continues it (0: none)")
      ->check(at_least(0, "a number of seconds >= 0"))->capture_default_str();
  c->add_option("--reps", a.settings.reps, "Timed forward+inverse pairs per candidate")
      ->check(at_least(1, "an integer >= 1"))->capture_default_str();
  c->add_option("--warmup", a.settings.warmup, "Untimed pairs per candidate")
      ->check(at_least(0, "an integer >= 0"))->capture_default_str();
  c->add_option("--cut", a.settings.cut_factor, "Early-cut factor (>= 1)")
      ->check(at_least(1, "a factor >= 1"))->capture_default_str();
  c->add_option("--finalists", a.settings.finalists, "Best candidates timed again in rounds until one leads clearly (< 2: none)")
      ->check(at_least(0, "an integer >= 0"))->capture_default_str();
  c->add_option("--final-reps", a.settings.final_reps, "At most this many more repetitions per finalist")
      ->check(at_least(1, "an integer >= 1"))->capture_default_str();
  c->add_option("--top", a.top, "Print only the N best candidates (0: all)")->check(at_least(0, "an integer >= 0"));
  c->add_flag("--validate", a.validate, "Check the chosen plan against a serial FFTW transform");
  c->add_option("--validate-limit", a.validate_limit,
                "--validate: the relative error allowed (default: bench's limit for the precision and wire format)")
      ->check(CLI::PositiveNumber);
  c->add_option("--json", a.json,
                "Write one JSON line per candidate: its options, status, every timed repetition "
                "(samples_ms, final_samples_ms), medians, spread, prediction and whether it was "
                "chosen, a finalist or tied (tools/plot.py --tune draws them)");
  c->add_flag("--progress,!--no-progress", a.progress,
              "Progress lines on stderr (default: unless stderr is a file or /dev/null)");
  add_plan_option_flags(c, a.options, tune_uses());
  c->add_flag("--no-wisdom", a.no_wisdom, "Do not read or write a wisdom file")
      ->excludes(c->get_option(std::string(dfft::option_field("wisdom_file").flag)))
      ->group(std::string(dfft::option_field("wisdom_file").group));
}

// The fields tune reads itself, from the values the table's flags gave.
void finish_args(TuneArgs& a) {
  a.transform = option_value(a.options, tune_uses(), "transform");
  a.backend = option_value(a.options, tune_uses(), "backend");
  a.grid = option_value(a.options, tune_uses(), "grid");
  a.wisdom_given = option_given(a.options, "wisdom_file");
  a.wisdom = option_value(a.options, tune_uses(), "wisdom_file");
  a.threads.clear();
  for (const auto& t : option_given(a.options, "threads") ? a.options.at("threads")
                                                           : std::vector<std::string>{option_value(a.options, tune_uses(), "threads")})
    a.threads.push_back(std::stoi(t));
}

std::string ms(double s) {
  if (!std::isfinite(s)) return "-";
  char b[32];
  std::snprintf(b, sizeof b, "%.3f", s * 1e3);
  return b;
}

// The status column: the chosen, the tied, and why a candidate was rejected.
std::string status_of(const dfft::TuneReport& r, std::size_t k) {
  const auto& c = r.candidates[static_cast<std::size_t>(r.order[k])];
  std::string status = to_string(c.status);
  if (r.order[k] == r.winner) status += " <- chosen";
  else if (std::find(r.tied.begin(), r.tied.end(), r.order[k]) != r.tied.end()) status += " (tie)";
  if (!c.note.empty()) status += ": " + c.note;
  return status;
}

std::string ratio(double t, double ref) {
  char rel[32] = "-";
  if (std::isfinite(t) && std::isfinite(ref)) std::snprintf(rel, sizeof rel, "%.2fx", t / ref);
  return rel;
}

int label_width(const dfft::TuneReport& r) {
  std::size_t w = 9;
  for (const auto& c : r.candidates) w = std::max(w, c.label.size());
  return static_cast<int>(w);
}

// Whether row k of TuneReport::order is left out by --top (rejected ones always show why).
bool beyond_top(const dfft::TuneReport& r, std::size_t k, int top, int shown) {
  return top > 0 && shown >= top &&
         r.candidates[static_cast<std::size_t>(r.order[k])].status != dfft::TuneCandidate::Status::rejected;
}

// Measured candidates, in the tuner's order (TuneReport::order).
void print_table(const dfft::TuneReport& r, int top) {
  const int w = label_width(r);
  const auto* win = r.winner >= 0 ? &r.candidates[static_cast<std::size_t>(r.winner)] : nullptr;
  std::printf("%4s  %-*s  %10s  %10s  %10s  %6s  %4s  %7s  %s\n", "rank", w, "candidate", "median ms", "first ms",
              "final ms", "spread", "reps", "vs best", "status");
  int shown = 0;
  for (std::size_t k = 0; k < r.order.size(); ++k) {
    if (beyond_top(r, k, top, shown)) continue;
    const auto& c = r.candidates[static_cast<std::size_t>(r.order[k])];
    // Like with like: the final rounds against the chosen's final rounds, else the first pass.
    const bool final = std::isfinite(c.final_median) && win && std::isfinite(win->final_median);
    const double t = final ? c.final_median : c.median;
    const double ref = !win ? NAN : final ? win->final_median : win->median;
    char spread[32] = "-";
    if (std::isfinite(c.spread)) std::snprintf(spread, sizeof spread, "%.1f%%", 100 * c.spread);
    std::printf("%4zu  %-*s  %10s  %10s  %10s  %6s  %4d  %7s  %s\n", k + 1, w, c.label.c_str(), ms(c.median).c_str(),
                ms(c.first).c_str(), ms(c.final_median).c_str(), spread, c.reps, ratio(t, ref).c_str(),
                status_of(r, k).c_str());
    ++shown;
  }
}

// The model's ranking: every candidate's predicted phases and exchanges (heuristic mode).
void print_predictions(const dfft::TuneReport& r, int top) {
  const int w = label_width(r);
  const auto* win = r.winner >= 0 ? &r.candidates[static_cast<std::size_t>(r.winner)] : nullptr;
  std::printf("\npredicted forward transform (the inverse walks the same path), ms, slowest rank per stage:\n");
  std::printf("%4s  %-*s %9s %9s %9s %9s %9s  %7s  %s  %s\n", "rank", w, "candidate", "fft", "pack", "comm",
              "unpack", "total", "vs best", "exchanges: bytes sent / peers (max over ranks)", "status");
  int shown = 0;
  for (std::size_t k = 0; k < r.order.size(); ++k) {
    if (beyond_top(r, k, top, shown)) continue;
    const auto& c = r.candidates[static_cast<std::size_t>(r.order[k])];
    const bool has = std::isfinite(c.predicted);
    const auto& t = c.prediction.total;
    std::string ex;
    for (const auto& st : c.prediction.stages)
      if (st.name != "reshape" && st.name.rfind("exchange", 0) == 0)
        ex += (ex.empty() ? "" : ", ") + std::to_string(st.bytes) + " B / " + std::to_string(st.peers);
    auto cell = [&](double v) { return has ? ms(v) : std::string("-"); };
    std::printf("%4zu  %-*s %9s %9s %9s %9s %9s  %7s  %s  %s\n", k + 1, w, c.label.c_str(), cell(t.fft).c_str(),
                cell(t.pack).c_str(), cell(t.comm).c_str(), cell(t.unpack).c_str(), cell(c.predicted).c_str(),
                ratio(c.predicted, win ? win->predicted : NAN).c_str(), ex.empty() ? "-" : ex.c_str(),
                status_of(r, k).c_str());
    ++shown;
  }
}

// Where the model's constants came from (heuristic mode): the calibration, or the placeholders.
void print_calibration_source(const dfft::model::Calibration& c, const std::string& source,
                              const std::string& file, int ranks, const std::string& backend) {
  if (c.measured) {
    std::printf("%s:\n", source.c_str());
    print_calibration(c);
  } else {
    std::printf("calibration: the placeholder constants (docs/models.md): %s\n",
                file.empty() ? "--no-wisdom"
                             : ("no calibration for " + std::to_string(ranks) + " ranks on " + backend +
                                " and this device in " + file + "; `dfft model calibrate` measures one").c_str());
  }
}

void print_crossover(const dfft::model::Calibration& c, const std::vector<std::int64_t>& spectral, int P,
                     bool is_double) {
  double m = 1;
  for (auto v : spectral) m *= static_cast<double>(v);
  std::printf("\nslab vs pencil (thesis 2.5.3): pencil communicates less time iff P^2/M > 2s/(L*B)\n"
              "  M = %.0f complex elements exchanged, P = %d, s = %d bytes\n", m, P, is_double ? 8 : 4);
  auto show = [&](const char* what, const dfft::model::Link& l) {
    auto x = dfft::model::slab_pencil_crossover(m, P, is_double, l);
    std::printf("  %-28s L = %.2f us, B = %.3f GB/s: P^2/M = %.3g %s 2s/(LB) = %.3g -> %s; equal at M = %.3g "
                "(N = %.0f for a cube)\n",
                what, l.latency * 1e6, l.bandwidth * 1e-9, x.lhs, x.pencil_faster ? ">" : "<=", x.rhs,
                x.pencil_faster ? "pencil faster" : "slab faster", x.crossover_elements,
                std::cbrt(x.crossover_elements));
  };
  if (P < 2) {
    std::printf("  one rank: no communication\n");
    return;
  }
  show("all-to-all link of P ranks:", c.link(P));
  if (c.pingpong.bandwidth > 0) show("ping-pong link:", c.pingpong);
}

// One JSON line per candidate of a measured tuning: what tools/plot.py --tune draws, so that a
// reader sees which plans are ties. Times in ms; repetitions are the slowest rank's.
void add_candidate_records(const TuneArgs& a, const dfft::TuneReport& r, const std::vector<std::int64_t>& shape,
                           int ranks, std::vector<std::string>& lines) {
  auto has = [](const std::vector<int>& v, int i) { return std::find(v.begin(), v.end(), i) != v.end(); };
  auto ms = [](double s) { return std::isfinite(s) ? nlohmann::json(s * 1e3) : nlohmann::json(); };
  auto ms_list = [](const std::vector<double>& v) {
    nlohmann::json out = nlohmann::json::array();
    for (double s : v) out.push_back(s * 1e3);
    return out;
  };
  const nlohmann::json machine = machine_description(a.backend == "cuda");
  for (std::size_t i = 0; i < r.candidates.size(); ++i) {
    const auto& c = r.candidates[i];
    const int k = static_cast<int>(i);
    nlohmann::json j;
    j["kind"] = "tune-candidate";
    j["label"] = c.label;
    j["status"] = dfft::to_string(c.status);
    j["samples_ms"] = ms_list(c.samples);
    j["final_samples_ms"] = ms_list(c.final_samples);
    j["median_ms"] = ms(c.median);
    j["final_ms"] = ms(c.final_median);
    j["spread"] = std::isfinite(c.spread) ? nlohmann::json(c.spread) : nlohmann::json();
    j["predicted_ms"] = ms(c.predicted);
    j["chosen"] = k == r.winner;
    j["finalist"] = has(r.finalists, k);
    j["tied"] = has(r.tied, k);
    j["size"] = shape;
    j["ranks"] = ranks;
    j["precision"] = a.precision;
    j["transform"] = a.transform;
    j["backend"] = a.backend;
    j["options"] = nlohmann::json::object();
    for (const auto& field : dfft::option_fields()) j["options"][std::string(field.name)] = field.get(c.options);
    j["threads"] = c.options.threads;
    j["machine"] = machine;
    lines.push_back(j.dump() + "\n");
  }
}

template <class T>
int run_typed(TuneArgs& a, const std::vector<std::int64_t>& shape, dfft::Options o, MPI_Comm comm) {
  int rank = 0, size = 1;
  APP_MPI(MPI_Comm_rank(comm, &rank));
  APP_MPI(MPI_Comm_size(comm, &size));
  const bool heuristic = o.tune == dfft::Tune::heuristic;
  const std::string threads_text = o.threads == 0 ? std::string("the rank's share of its cores (threads 0)")
                                                  : std::to_string(o.threads) + (o.threads == 1 ? " thread" : " threads");
  if (rank == 0 && heuristic) {
    std::printf("dfft tune: %s %s %s on %d rank%s x %s, backend %s, mode heuristic: the analytic "
                "model's ranking, nothing timed or stored\n",
                shape_text(shape).c_str(), a.precision.c_str(), a.transform.c_str(), size, size == 1 ? "" : "s",
                threads_text.c_str(), a.backend.c_str());
  } else if (rank == 0) {
    std::printf("dfft tune: %s %s %s on %d rank%s x %s, backend %s, mode %s, warmup %d, reps %d, "
                "cut %gx, finalists %d, up to %d more reps%s\n",
                shape_text(shape).c_str(), a.precision.c_str(), a.transform.c_str(), size,
                size == 1 ? "" : "s", threads_text.c_str(), a.backend.c_str(), a.mode.c_str(), a.settings.warmup, a.settings.reps,
                a.settings.cut_factor, a.settings.finalists, a.settings.final_reps,
                a.budget > 0 ? (", budget " + std::to_string(a.budget) + " s").c_str() : "");
    std::printf("times in ms per forward+inverse pair: median over repetitions of the slowest rank's time\n");
  }
  dfft::TuneReport r;
  dfft::TuneSettings settings = a.settings;
  Progress progress("dfft tune", rank == 0 && progress_wanted(a.progress, true));
  settings.progress = [&](double spent, double total, const std::string& what) {
    progress.update_seconds(spent, total, what);
  };
  try {
    r = dfft::tune<T>(comm, shape, o, settings);
  } catch (const dfft::Error& e) {  // every decision of the tuner is collective, so is this refusal
    const bool grid_hint = a.grid != "auto" && exit_status(e) == exit_usage;
    if (rank == 0)
      std::fprintf(stderr, "dfft tune: %s%s\n", message_of(e).c_str(),
                   !grid_hint ? ""
                              : ("; with --grid " + a.grid + " the grid's product must be the " +
                                 std::to_string(size) + " ranks and fit the size").c_str());
    return exit_status(e);
  }
  if (rank == 0 && heuristic) {
    print_calibration_source(r.calibration, r.calibration_source, o.wisdom_file == "off" ? "" : r.wisdom_file,
                             size, a.backend);
    print_predictions(r, a.top);
    auto spectral = shape;
    if (o.transform == dfft::Transform::r2c) spectral.back() = spectral.back() / 2 + 1;
    print_crossover(r.calibration, spectral, size, a.precision == "double");
    std::printf("\n");
  } else if (rank == 0 && !r.wisdom_hit) {
    print_table(r, a.top);
    if (!a.json.empty()) add_candidate_records(a, r, shape, size, a.records);
  }
  if (rank == 0) std::printf("%s\n", dfft::describe(r).c_str());
  if (a.validate) {
    dfft::Options chosen = r.chosen;
    chosen.tune = dfft::Tune::none;
    dfft::Plan<T> plan(comm, shape, chosen);
    double e = dfft::validate::reference_error(plan, comm);
    // bench's limit (NaN: the serial reference is too large to run, which passes as in bench), for
    // the wire format the plan uses (a tolerance picks one: Plan::codec()).
    const int exchanges = static_cast<int>(std::max<std::size_t>(1, chosen.methods.size()));
    const double limit = a.validate_limit > 0 ? a.validate_limit
                                              : validation_limits(a.precision == "double", plan.codec(), exchanges, shape).reference;
    const bool fail = !std::isnan(e) && !(e <= limit);
    if (rank == 0)
      std::printf("dfft tune: chosen plan reference_error %.3g (limit %.3g): %s\n", e, limit, fail ? "FAIL" : "pass");
    if (fail) return exit_validation;
  }
  return 0;
}

// The options of the tuned plans, the threads per rank the first of --threads.
dfft::Options tune_options(const TuneArgs& a) {
  dfft::Options o = options_with_defaults(tune_uses());
  set_plan_options(o, a.options, {"threads"});
  o.threads = a.threads.front();
  o.tune = dfft::parse_tune(a.mode);
  o.tune_budget_s = a.budget;
  // Empty: the machine's default file, the one plans read (the library resolves it alike).
  o.wisdom_file = a.no_wisdom ? std::string("off") : a.wisdom;
  return o;
}

int run_tune(TuneArgs& a, MPI_Comm comm) {
  int rank = 0;
  APP_MPI(MPI_Comm_rank(comm, &rank));
  const std::vector<std::int64_t> shape = parse_shape(a.size);
  dfft::Options o = tune_options(a);
  if (o.tune == dfft::Tune::heuristic && !a.no_wisdom && a.wisdom_given) {
    // A named file that does not exist is a mistake (nothing will be written to it), not "no
    // calibration"; the default file is read where it exists.
    int absent = 0;
    if (rank == 0) absent = a.wisdom_given && ::access(o.wisdom_file.c_str(), F_OK) != 0;
    APP_MPI(MPI_Bcast(&absent, 1, MPI_INT, 0, comm));
    if (absent) throw InputError(o.wisdom_file + ": no such file (--mode heuristic reads the calibration from it)");
  }
  refuse_with_tuning([&](const std::string& n) { return option_given(a.options, n); }, "--mode " + a.mode);
  a.settings.reuse_wisdom = a.reuse;
  // Every output is checked before any candidate is timed.
  if (!a.json.empty()) check_output_target("", a.json, false, comm);
  if (o.tune == dfft::Tune::measure) {
    const std::string w = wisdom_target(o.wisdom_file, comm);
    if (!w.empty()) check_wisdom_target(w, comm);
    else if (!a.no_wisdom && rank == 0)
      std::fprintf(stderr, "dfft tune: no wisdom file (DFFT_WISDOM=off): the choice is not stored\n");
  }
  for (int t : a.threads) {
    o.threads = t;
    const int rc = a.precision == "double" ? run_typed<double>(a, shape, o, comm) : run_typed<float>(a, shape, o, comm);
    if (rc != 0) return rc;
  }
  if (a.json.empty()) return exit_ok;
  return on_rank0(comm, "dfft tune", [&] {
    OutputFile f;
    std::string why;
    if (!f.open(a.json, why)) throw CliError(why, exit_failure);
    for (const auto& line : a.records) f.write(line);
    if (!f.commit()) throw CliError(f.error(), exit_failure);
    return exit_ok;
  });
}

}  // namespace

Command make_tune_command(CLI::App& parent) {
  auto args = std::make_shared<TuneArgs>();
  CLI::App* c = parent.add_subcommand(
      "tune", "Time every candidate plan for one problem, print them ranked and store the fastest in "
              "the wisdom file (--mode heuristic: the analytic model's ranking, nothing timed)");
  add_options(c, *args);
  c->footer(kTuneFooter);
  return {c,
          [args](MPI_Comm comm) {
            finish_args(*args);
            return run_tune(*args, comm);
          },
          [args] {
            finish_args(*args);
            return tune_options(*args);
          }};
}

}  // namespace dfftapp
