// SPDX-License-Identifier: MIT
// `dfft bench`: option values, the sweep of configurations they expand to, and the runner.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "dfft/types.hpp"

namespace dfftapp {

/// Raw option values as parsed (names still strings; lists may be comma-separated).
struct BenchArgs {
  std::vector<std::vector<std::string>> sizes;  // one entry per --size occurrence
  /// A list option's items given on their own (OptionField::item_flags: --method1, --method2), by
  /// key, each value one configuration.
  OptionValues item_sweeps;
  std::vector<std::string> precisions;
  std::string json;
  int warmup = 2, reps = 10;
  int validate = 0;   // >0 --validate, <0 --no-validate, 0 not given
  int reference = 0;  // likewise for --reference / --no-reference
  bool verbose = false;
  bool default_sweep = false;          // --size was not given
  // Suites and result files (docs/cases.md, docs/results-format.md).
  std::string cases, csv;              // --cases FILE, --csv FILE
  bool list = false;                   // --list: print the configurations, run nothing
  unsigned shuffle = 0;                // --shuffle SEED: run the configurations in an order drawn from SEED
  bool accuracy = false;               // --accuracy: print the wire formats' errors, time nothing
  int progress = 0;                    // >0 --progress, <0 --no-progress
  std::vector<std::string> given;      // options given on the command line (override a cases file)
  /// Plan options by field name (dfft/option_fields.hpp), as text, from the table's flags and the
  /// cases-file keys: each value one configuration. Those not given take bench_uses()' default,
  /// else the table's (option()); decomposition, variant and methods sweep every choice.
  std::map<std::string, std::vector<std::string>> option_sweeps;

  /// Field `name`'s value where bench runs one (the last given, else the default).
  std::string option(const std::string& name) const;
  /// Field `name`'s values to sweep (given, else the default alone).
  std::vector<std::string> sweep(const std::string& name) const;
};

/// How bench takes the table's flags and the cases files' keys where it differs from the table:
/// --transform c2r (the r2c plan, its inverse listed first), values to sweep comma-separated,
/// bench's defaults (chunks 4, no overlap, one thread) and least values.
const FlagUses& bench_uses();

/// One plan to build and time.
struct Config {
  std::vector<std::int64_t> shape;
  dfft::Options opt;
  bool is_double = true;
  bool inverse_first = false;  // --transform c2r: list the inverse (c2r) record first
  // Per configuration so that a cases file can vary them per test; expand() copies the options.
  int warmup = 2, reps = 10;
  bool validate = false, reference = false;
  int ranks = 0;     // run on world ranks [0, ranks) only; 0: all ranks
  std::string test;  // name of the cases-file test it came from
};

/// Fill in defaults (default sweep, method lists per backend) after parsing.
void finish_args(BenchArgs& a);
/// Expand the options into the list of configurations, outer to inner: size, precision,
/// transform, decomposition, variant, grid, methods. Throws dfft::Error on unknown names or
/// malformed sizes/grids.
std::vector<Config> expand(const BenchArgs& a);
/// Run the sweep; collective over `comm`. Returns the process exit code (same on every rank).
int run_bench(const BenchArgs& a, MPI_Comm comm);
/// `--accuracy`: the accuracy table of compressed communication per size, decomposition and
/// method (accuracy.cpp); collective over `comm`.
int run_accuracy(const BenchArgs& a, MPI_Comm comm);
/// Throws UsageError for an option given to `bench` that --accuracy does not take.
void refuse_outside_accuracy(const CLI::App& bench);

}  // namespace dfftapp
