// SPDX-License-Identifier: MIT
// `dfft bench` options and their expansion into a sweep of configurations.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <set>
#include <sstream>

#include "bench.hpp"
#include "command.hpp"
#include "option_json.hpp"
#include "report.hpp"
#include "dfft/option_fields.hpp"
#include "dfft/types.hpp"

namespace dfftapp {

namespace {

const std::vector<std::string> kDecomps{"slab-2d1d", "slab-1d2d", "pencil"};
const std::vector<std::string> kVariants{"default", "realigned"};
const std::vector<std::string> kCpuMethods{"a2a-sync", "a2a-type", "p2p-sync", "p2p-type",
                                           "onesided"};
const std::vector<std::string> kAllMethods{"a2a-sync", "a2a-type", "p2p-sync", "p2p-type",
                                           "p2p-streams", "nccl", "onesided", "p2p-pipelined", "cuda-ipc",
                                           "node-ring", "hierarchical", "per-peer"};
// The embedded default sweep (no --size): a cube and an odd shape that divides no rank count.
const std::vector<std::vector<std::string>> kDefaultSizes{{"64", "64", "64"}, {"17", "12", "10"}};

const char* kBenchFooter = R"(Sweeps: every list option takes several values (repeat it or separate by commas) and
bench runs every combination. An omitted option sweeps: --decomp all three, --variant both,
--method every method of the backend (cpu: a2a-sync, a2a-type, p2p-sync, p2p-type, onesided), --grid
automatic. --method1/--method2 set the method of the first/second exchange (pencils; a slab uses
--method1 only). --transform r2c and c2r both time the same real plan, each configuration
giving two records: forward (r2c) and inverse (c2r). Configurations the library rejects for this
rank count (e.g. a grid that does not fit) are listed as skipped with the reason. On one rank
every decomposition, variant, method and codec is the same local transform: bench then runs one
configuration per size, precision and transform (and says so on stderr).

Default sweep: without --size, bench runs 64x64x64 and 17x12x10, double, r2c, all
decompositions x variants x methods, with --validate and --reference (unless --no-validate /
--no-reference are given); well under a minute on 2 cores with 2 ranks:
    mpirun -np 2 dfft bench

Timing: per repetition all ranks synchronise (MPI_Barrier), each times the transform with
MPI_Wtime, and the repetition's time is the maximum over ranks; min/median/max are over the
repetitions. Phases (fft/pack/comm/unpack) are summed over the plan's stages on each rank, maxed
over ranks per repetition, and the median over repetitions is shown. GFlop/s uses the FFTW
convention: 5 N log2 N (c2c) or 2.5 N log2 N (r2c/c2r), N = product of the sizes, over the
median time.

Columns: the plan options COLUMNS (as the plan resolved them: docs/options.md),
prec, size, P (ranks), dir (fwd/inv), med/min/max ms (over repetitions), fft/pack/comm/unpack (phase medians, ms), GF/s, error (--validate: fwd row
vs a serial FFTW transform, inv row the round trip), rt/lap (round-trip / Laplacian error),
check (pass/fail: 1e-10 double, 1e-4 float, plus twice a codec's expected error of
docs/compression.md). A row with max/median > 2 (some repetitions stalled) or median/min > 2
(most did) is marked noisy (the machine was busy). After the table: the fastest configuration
per size, precision and transform (forward + inverse medians), or a tie within noise where
another configuration's 99% interval of the median (from its fastest repetitions when noisy)
reaches below the fastest's. Progress lines go to stderr; stdout holds the table.

Exit status: 0 ok, 1 a configuration failed or nothing ran, 2 bad command line, 3 bad cases or
result file, 4 a validation check failed (docs/cli.md). Record fields: docs/bench.md.

Suites: --cases FILE.json runs a test-case file (benchmarks/cases/*.json; docs/cases.md).
Progress lines go to stderr on a terminal, or with --progress. --csv writes CSV; tools/plot.py
draws the figures, tools/results_pages.py the tables (docs/results-format.md).

Accuracy: --accuracy prints the forward and round-trip errors of every wire format (FP64, FP32,
FP64->FP32/FP16/BF16, FP32->FP16/BF16) on random and smooth data against an uncompressed FP64
transform, and times nothing; it takes --size (default 64x64x64), --decomp (default pencil),
--method (default a2a-sync) and --backend, one table per combination (docs/compression.md).)";

void add_suite_options(CLI::App* c, BenchArgs& a);

void add_options(CLI::App* c, BenchArgs& a) {
  add_size_option(c, a.sizes, "Global shape; repeat for several");
  c->add_option("--precision", a.precisions, "double | float (default double)")
      ->delimiter(',')->check(CLI::IsMember(std::vector<std::string>{"double", "float"}));
  c->add_option("--warmup", a.warmup, "Untimed runs per direction before timing")
      ->capture_default_str()->check(at_least(0, "an integer >= 0"));
  c->add_option("--reps", a.reps, "Timed repetitions per direction")
      ->capture_default_str()->check(at_least(1, "an integer >= 1"));
  c->add_flag("--validate,!--no-validate", a.validate,
              "Check each plan: error vs a serial FFTW transform, round trip, Laplacian");
  c->add_option("--json", a.json, "Write one JSON record per configuration and direction (JSON lines; "
                                  "FILE.dfft-tmp renamed to FILE at the end, so a failed write keeps the old FILE)");
  c->add_flag("--reference,!--no-reference", a.reference,
              "Also time the whole transform on one device (row 'single-device')");
  c->add_flag("--verbose", a.verbose, "Print each plan's path (plan.describe())");
  add_suite_options(c, a);
  add_plan_option_flags(c, a.option_sweeps, bench_uses(), {}, &a.item_sweeps);
}

// Test-case files, result files and what runs instead of a sweep (docs/cases.md,
// docs/results-format.md, docs/compression.md).
void add_suite_options(CLI::App* c, BenchArgs& a) {
  c->add_option("--cases", a.cases, "Run the tests of a JSON test-case file (docs/cases.md)");
  c->add_option("--csv", a.csv, "Also write the records as CSV (replaces the file at the end, as --json)");
  c->add_flag("--list", a.list, "Print the configurations the options or --cases expand to; run nothing");
  c->add_option("--shuffle", a.shuffle,
                "Run the configurations in an order drawn from SEED (0: as listed), so that no configuration "
                "is always timed first or last; the same SEED gives the same order on every rank");
  c->add_flag("--accuracy", a.accuracy, "Print the errors of every wire format (compressed communication) "
                                        "for --size, --decomp, --method; time nothing");
  c->add_flag("--progress,!--no-progress", a.progress,
              "Progress lines on stderr (default: when stderr is a terminal)");
}

// The options of bench's own (not the table's) whose explicit values override a --cases file.
// Flags and lists are read from their values (a flag with a default can count as given in some
// CLI11 versions); options with a value from count().
std::vector<std::string> given_options(const CLI::App& c, const BenchArgs& a) {
  std::vector<std::string> given;
  const auto add = [&](const char* name, bool yes) {
    if (yes) given.push_back(name);
  };
  add("--size", !a.sizes.empty());
  for (const auto& [key, values] : a.item_sweeps) add(("--" + key).c_str(), !values.empty());
  add("--precision", !a.precisions.empty());
  add("--warmup", c.count("--warmup") > 0);
  add("--reps", c.count("--reps") > 0);
  add("--validate", a.validate != 0);
  add("--reference", a.reference != 0);
  for (const auto& [name, values] : a.option_sweeps)
    if (!values.empty()) given.push_back(std::string(dfft::option_field(name).flag));
  return given;
}

template <class E>
std::vector<E> names_to(const std::vector<std::string>& v, E (*parse)(const std::string&)) {
  std::vector<E> out;
  for (const auto& s : v) {
    E e = parse(s);
    if (std::find(out.begin(), out.end(), e) == out.end()) out.push_back(e);
  }
  return out;
}

// Per-exchange method lists for one decomposition: one list per configuration.
std::vector<std::vector<dfft::Method>> method_sets(const BenchArgs& a, dfft::Decomposition d) {
  const auto& field = dfft::option_field("methods");
  const std::vector<std::string> methods = a.sweep("methods");
  // "auto": chosen by the plan; "a,b": one per exchange. Given item by item, a slab takes the
  // first (its one exchange), a pencil both.
  const std::vector<std::string> texts =
      items_given(field, a.item_sweeps)
          ? item_lists(field, a.item_sweeps, methods, d == dfft::Decomposition::pencil ? 2 : 1)
          : methods;
  std::vector<std::vector<dfft::Method>> sets;
  for (const auto& text : texts) {
    dfft::Options o;
    dfft::set_option(o, "methods", text);
    if (std::find(sets.begin(), sets.end(), o.methods) == sets.end()) sets.push_back(o.methods);
  }
  return sets;
}

}  // namespace

void finish_args(BenchArgs& a) {
  auto& v = a.option_sweeps;
  const std::string tune = a.option("tune");
  if (tune != "none") {
    refuse_with_tuning([&](const std::string& n) { return !v[n].empty() || items_given(dfft::option_field(n), a.item_sweeps); },
                       "--tune " + tune);
  }
  a.default_sweep = a.sizes.empty();
  if (a.default_sweep) {
    a.sizes = kDefaultSizes;
    if (a.validate == 0) a.validate = 1;
    if (a.reference == 0) a.reference = 1;
  }
  // Not given: every choice is swept (the table's default, auto, is one the plan makes).
  if (v["decomposition"].empty()) v["decomposition"] = kDecomps;
  if (v["variant"].empty()) v["variant"] = kVariants;
  if (v["methods"].empty()) v["methods"] = a.option("backend") == "cuda" ? kAllMethods : kCpuMethods;
  if (a.precisions.empty()) a.precisions = {"double"};
  const auto transforms = a.sweep("transform");
  if (std::find(transforms.begin(), transforms.end(), "r2r") != transforms.end() && v["r2r"].empty())
    throw UsageError("--transform r2r needs --r2r with a DCT/DST kind for every axis (e.g. --r2r dct2,dct2,dct2)");
  if (tune != "none") {  // one configuration per size, precision, transform and grid: the tuner picks
    v["decomposition"] = {"slab-2d1d"};
    v["variant"] = {"default"};
    v["methods"] = {"a2a-sync"};
    a.item_sweeps.clear();
  }
}

namespace {

// Every combination of the plan options given by field name (one empty combination if none).
// The fields expand() sweeps in loops of their own, in that order, are left out.
std::vector<std::vector<std::pair<std::string, std::string>>> option_combinations(const BenchArgs& a) {
  static const std::vector<std::string> looped{"transform", "decomposition", "variant", "grid",
                                               "methods",   "overlap",       "threads", "codec"};
  std::vector<std::vector<std::pair<std::string, std::string>>> out{{}};
  for (const auto& [name, values] : a.option_sweeps) {
    if (values.empty()) continue;  // a flag of the table that was not given
    if (std::find(looped.begin(), looped.end(), name) != looped.end()) continue;
    std::vector<std::vector<std::pair<std::string, std::string>>> next;
    for (const auto& combo : out)
      for (const auto& v : values) {
        next.push_back(combo);
        next.back().emplace_back(name, v);
      }
    out = std::move(next);
  }
  return out;
}

}  // namespace

std::vector<Config> expand(const BenchArgs& a) {
  const auto combos = option_combinations(a);
  std::vector<std::pair<dfft::Transform, bool>> transforms;  // (plan kind, inverse first)
  for (const auto& t : a.sweep("transform")) {
    auto kind = t == "c2r" ? dfft::Transform::r2c : dfft::parse_transform(t);
    bool seen = std::any_of(transforms.begin(), transforms.end(), [&](auto& p) { return p.first == kind; });
    if (!seen) transforms.emplace_back(kind, t == "c2r");
  }
  const dfft::Options base = options_with_defaults(bench_uses());
  std::vector<Config> out;
  for (const auto& size : a.sizes) {
    auto shape = parse_shape(size);
    for (const auto& prec : std::set<std::string>(a.precisions.begin(), a.precisions.end()))
      for (auto [kind, inv_first] : transforms)
        for (auto d : names_to(a.sweep("decomposition"), dfft::parse_decomposition))
          for (auto v : names_to(a.sweep("variant"), dfft::parse_variant))
            for (const auto& g : a.sweep("grid"))
              for (const auto& ms : method_sets(a, d))
              for (const auto& slices : a.sweep("overlap"))
              for (const auto& threads : a.sweep("threads"))
              for (const auto& codec : a.sweep("codec")) {
                Config c;
                c.shape = shape;
                c.is_double = prec == "double";
                c.inverse_first = inv_first;
                c.opt = base;
                c.opt.decomposition = d;
                c.opt.variant = v;
                c.opt.transform = kind;
                c.opt.grid = parse_grid(g);
                c.opt.methods = ms;
                dfft::set_option(c.opt, "overlap", slices);
                dfft::set_option(c.opt, "threads", threads);
                dfft::set_option(c.opt, "codec", codec);
                c.warmup = a.warmup;
                c.reps = a.reps;
                c.validate = a.validate > 0;
                c.reference = a.reference > 0;
                for (const auto& combo : combos) {
                  Config with = c;
                  for (const auto& [name, value] : combo) dfft::set_option(with.opt, name, value);
                  // A configuration the plan completes itself is the plan without options: its
                  // pipelines are the plan's choice too, unless given.
                  if (d == dfft::Decomposition::automatic || v == dfft::Variant::automatic || ms.empty())
                    for (const char* name : {"chunks", "overlap"})
                      if (const auto it = a.option_sweeps.find(name); it == a.option_sweeps.end() || it->second.empty())
                        dfft::set_option(with.opt, name, "0");
                  out.push_back(std::move(with));
                }
              }
  }
  return out;
}

Command make_bench_command(CLI::App& parent) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* c = parent.add_subcommand(
      "bench", "Time distributed transforms over a sweep of configurations; print a table, "
               "optionally validate and write JSON lines");
  add_options(c, *args);
  // The option columns as the table names them: heading (field) where the two differ.
  std::string names;
  for (const auto* f : option_columns())
    names += (names.empty() ? "" : ", ") + std::string(f->label) + (f->label == f->name ? "" : " (" + std::string(f->name) + ")");
  std::string footer = kBenchFooter;
  footer.replace(footer.find("COLUMNS"), 7, names);
  c->footer(footer);
  auto run = [args, c](MPI_Comm comm) {
    args->given = given_options(*c, *args);
    if (args->accuracy) {
      refuse_outside_accuracy(*c);
      return run_accuracy(*args, comm);
    }
    if (args->cases.empty()) finish_args(*args);  // a cases file brings its own settings
    return run_bench(*args, comm);
  };
  // The first configuration the command line expands to, as run() would expand it.
  auto options = [args, c] {
    BenchArgs a = *args;
    a.given = given_options(*c, a);
    finish_args(a);
    return expand(a).front().opt;
  };
  return {c, run, options};
}

}  // namespace dfftapp
