// SPDX-License-Identifier: MIT
// Plan tuning and wisdom (docs/tuning.md).
//
//   dfft::Options opt;  opt.tune = dfft::Tune::measure;  opt.wisdom_file = "dfft-wisdom.json";
//   dfft::Plan<double> plan(comm, {64, 64, 64}, opt);   // times candidates, or reuses wisdom
//   const dfft::TuneReport* r = plan.tune_report();      // what was done (the app prints it)
//
// The library never prints: everything the tuner did or noticed is in the TuneReport.
#pragma once

#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "dfft/model.hpp"
#include "dfft/types.hpp"

namespace dfft {

struct TuneCandidate {
  enum class Status {
    measured,   // timed: median over repetitions
    cut,        // stopped after its first repetitions (> cut_factor x the best median so far)
    rejected,   // the library refused to build it (e.g. a grid that does not fit the size)
    not_run,    // the time budget ran out first
    predicted   // heuristic mode: model prediction only
  };
  Options options;
  std::string label;  // tune_label(options)
  Status status = Status::not_run;
  /// Seconds per forward+inverse pair. median: the median over the repetitions of the first pass
  /// (where every candidate is timed alike) of each repetition's slowest rank (`samples`), as
  /// dfft bench times; first: max over ranks of the first repetition; final_median: the same
  /// statistic over the repetitions of the final rounds alone (`final_samples`; finalists only,
  /// else NaN), where the finalists are timed interleaved.
  double median = std::numeric_limits<double>::quiet_NaN();
  double first = std::numeric_limits<double>::quiet_NaN();
  double final_median = std::numeric_limits<double>::quiet_NaN();
  /// Relative interquartile range (Q3 - Q1) / median of the repetitions time() is taken from
  /// (each the slowest rank's): how far apart the samples of one candidate are.
  double spread = std::numeric_limits<double>::quiet_NaN();
  int reps = 0;  // timed repetitions, first pass and final rounds together
  /// Seconds of each timed repetition, max over ranks (all ranks start a repetition together):
  /// the first pass's, then the final rounds' in final_samples. What median/final_median and
  /// spread summarise, for plots of how far apart candidates really are.
  std::vector<double> samples, final_samples;
  /// The time the choice was made on: final_median for a finalist, else median.
  double time() const { return std::isnan(final_median) ? median : final_median; }
  /// The analytic model's forward transform (the inverse walks the same path), seconds: its
  /// stages and phases in `prediction`, the total in `predicted` (NaN where the model refuses).
  double predicted = std::numeric_limits<double>::quiet_NaN();
  model::Prediction prediction;
  std::string note;  // why it was rejected
  dfft::Status error = dfft::Status::success;  // rejected: the kind of the refusal (out_of_memory, ...)
};
std::string to_string(TuneCandidate::Status);

struct TuneSettings {
  int warmup = 1;           // untimed forward+inverse pairs per candidate
  int reps = 5;             // timed pairs (median taken)
  /// Early cut: a candidate whose first repetition, and a confirming second one, each take more
  /// than cut_factor x the best median so far is not timed further.
  double cut_factor = 2.0;
  int finalists = 3;    // the best this many are timed again in rounds (< 2: no final rounds)
  int final_reps = 15;  // at most this many more repetitions of each finalist (blocks of reps)
  bool reuse_wisdom = true;   // measure: take a matching wisdom entry instead of measuring
  bool write_wisdom = true;   // measure: store the winner in Options::wisdom_file
  /// Called on every rank as the measuring goes on, in seconds: `done` is the time spent, `total`
  /// that plus the estimated time left (0 while no candidate has finished, so nothing is known
  /// yet), and what is under way. The estimate is the mean time per candidate so far times the
  /// candidates left, plus the final rounds at the measured time per run, within the budget;
  /// smoothed. Empty: nothing is called. The library itself never prints.
  std::function<void(double done, double total, const std::string& what)> progress;
};

struct TuneReport {
  Tune mode = Tune::none;
  Options chosen;       // the options of the plan that was built (tune field kept as given)
  int winner = -1;      // index into candidates; -1 when taken from wisdom
  std::vector<TuneCandidate> candidates;  // in the order they were tried
  TuneSettings settings;
  bool wisdom_hit = false;      // chosen from a wisdom entry, nothing measured
  bool wisdom_written = false;  // the winner was stored in the wisdom file
  std::string wisdom_file, wisdom_key;  // key as compact JSON
  std::vector<std::string> warnings;    // ignored wisdom, budget exhausted, write failures ...
  /// What the model predicted with (candidates were ranked or tie-broken by it): the wisdom file's
  /// calibration for these ranks, backend and device, else the placeholder constants
  /// (`measured` false). Default-constructed on a wisdom hit.
  model::Calibration calibration;
  std::string calibration_source;       // "calibration of FILE", or which built-in constants
  double seconds = 0;                   // wall time spent choosing (max over ranks)
  bool budget_exhausted = false;
  /// Candidates of tune_candidates() started so far, of how many (measure mode; a continued
  /// partial tuning counts the earlier runs' too): tried < of is a partial result, stored as such.
  int tried = 0, of = 0;
  bool continued = false;  // a partial wisdom entry was continued (its choice timed again first)
  bool final_rounds_skipped = false;  // the budget ended the final rounds early or left them out
  /// How sure the choice is (measure mode): the runner-up's time() over the winner's (NaN when
  /// alone); the noise bound of that comparison (max(3%, the larger spread)); the candidates that
  /// are within noise of the fastest (winner included; one: a clear choice), of which the winner
  /// is the model's favourite; the finalists; the final rounds run, and how many of the last ones
  /// in a row the same finalist led by more than the noise.
  int runner_up = -1;  // index of the runner-up; -1 when alone
  double runner_up_ratio = std::numeric_limits<double>::quiet_NaN();
  double tie_bound = std::numeric_limits<double>::quiet_NaN();
  std::vector<int> tied, finalists;
  /// Candidate indices best first: the winner, the other finalists by time(), the other measured
  /// (or predicted) candidates by time, then cut, rejected and not run ones.
  std::vector<int> order;
  int final_rounds = 0, stable_rounds = 0;
};

/// One-line name of a candidate: "pencil 2x2 realigned a2a-sync,p2p-type" (+ " chunks=N" when
/// a onesided exchange is used).
std::string tune_label(const Options& o);

/// The machine's default wisdom file: the file $DFFT_WISDOM names (none when it is `off`), else
/// dfft-wisdom-<hostname>.json beside the FFTW wisdom files ($DFFT_WISDOM_DIR, else
/// $XDG_CACHE_HOME/dfft, else ~/.cache/dfft); empty when there is none. Where
/// Options::wisdom_file is empty, `tune = measure` reads and writes its entries here, a plan with
/// automatic fields takes its tuned entry for the problem (else the model's choice, with the
/// calibration of this machine from the same file), and `dfft tune`, `dfft bench --tune` and
/// `dfft model calibrate` use it by default.
std::string default_wisdom_file();
/// Human-readable summary: a "wisdom hit" line, or what was measured and chosen, plus warnings.
std::string describe(const TuneReport& r);

/// Choose options as Plan<T> does for options.tune = heuristic / measure (collective over comm;
/// the same report on every rank). Writes wisdom like the plan. Options::tune = none is
/// treated as measure.
template <class T>
TuneReport tune(MPI_Comm comm, const std::vector<std::int64_t>& shape, const Options& options,
                const TuneSettings& settings = {});

/// Candidate option sets the tuner tries for this many ranks and dimensions: both slabs, the
/// pencil on every factorisation P1 x P2 (with d >= 3), both variants, every method per
/// exchange, chunks 1 and 4 for onesided. A fixed options.grid restricts them to that grid.
/// The node-aware methods (node-ring, hierarchical, per-peer) are tried only where `nodes` > 1.
std::vector<Options> tune_candidates(const Options& base, int ranks, int dims, int nodes = 1);
/// Methods the candidates use for a backend, in the order of the Method enum (cpu: a2a-sync,
/// a2a-type, p2p-sync, p2p-type, onesided, p2p-pipelined, node-ring, hierarchical, per-peer; cuda: all of
/// these and p2p-streams, nccl, cuda-ipc). Unbuilt ones are skipped when plans are made.
std::vector<Method> tune_methods(Backend b);

// ---------------------------------------------------------------------------------------------
// Wisdom files: {"dfft_wisdom": 1, "entries": [...], "calibrations": [...]} (docs/tuning.md).

/// What a wisdom entry is valid for: the problem and the machine, everything that changes the
/// result, the layout or which plan is fastest. The global shape, the rank count, the precision,
/// and every plan option the option table marks "wisdom key" (dfft/option_fields.hpp), by field
/// name, as the table writes its value (or as the row's wisdom_key_resolved says: the device's
/// model name, the node layout found). Not the FFTW planning effort: it chooses the local FFT
/// algorithms that every candidate runs, so `dfft tune` (estimate by default, to tune quickly)
/// and plans made with measure share their entries.
struct WisdomKey {
  std::vector<std::int64_t> shape;
  int ranks = 1;
  std::string precision = "double";
  std::map<std::string, std::string> options;  // field name -> text
  bool operator==(const WisdomKey& o) const = default;
};

/// The key of `shape` on `ranks` ranks with options `o` as given: every marked field's text,
/// none resolved (the tuner puts the device's model and the node layout in their place).
WisdomKey wisdom_key(const std::vector<std::int64_t>& shape, int ranks, bool is_double, const Options& o);

struct WisdomEntry {
  WisdomKey key;
  Decomposition decomposition = Decomposition::slab_2d1d;
  Variant variant = Variant::Default;
  std::vector<int> grid;
  std::vector<Method> methods;
  int chunks = 4;
  int overlap = 1;    // FFT/exchange overlap slices (absent in older files: 1)
  int in_flight = 2;  // p2p-pipelined steps in flight (absent in older files: 2)
  double seconds = 0;  // measured median of a forward+inverse pair
  std::string timestamp;
  /// A tuning cut short by its time budget: `tried` of `of` candidates were started (the first
  /// ones of tune_candidates()). 0 of 0: complete. Plans with automatic fields do not take a
  /// partial entry; the next measuring tuning continues it from candidate `tried` + 1 (the
  /// entry's choice timed again beside the rest), so that budgeted runs add up to a full one.
  int tried = 0, of = 0;
  bool partial() const { return of > 0 && tried < of; }
};

struct Wisdom {
  std::vector<WisdomEntry> entries;
  std::vector<model::Calibration> calibrations;
  std::vector<std::string> skipped;  // entries left out, and why (malformed parts)
  // The JSON text of the entries and calibrations left out (another key format, a later
  // version's): never used, but written back as they were, so that rewriting the file loses none.
  std::vector<std::string> kept_entries, kept_calibrations;
};

/// Parse a wisdom file's text. Throws dfft::Error (call "wisdom") when the text is not a wisdom
/// document; a malformed entry is left out and named in `skipped`. Never trusts, never crashes.
Wisdom parse_wisdom(const std::string& text);
std::string to_json(const Wisdom& w);
std::string to_json(const WisdomKey& k);  // compact, one line

}  // namespace dfft
