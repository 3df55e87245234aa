// SPDX-License-Identifier: MIT
// What every `dfft` subcommand shares: the exit status of each kind of error, the --size syntax
// and range checks that say the allowed range in words (docs/cli.md).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
class Validator;
}  // namespace CLI

namespace dfftapp {

/// Exit status of every subcommand, one per kind of outcome (the table in docs/cli.md).
enum Exit : int {
  exit_ok = 0,
  exit_failure = 1,     // a run-time or library failure (MPI, I/O, an unexpected error)
  exit_usage = 2,       // bad command line: unknown option, bad value, value out of range
  exit_input = 3,       // an input file is missing, malformed or does not fit the options
  exit_validation = 4,  // the run finished but a validation check exceeded its limit
};

/// A bad option value found after parsing. Every rank parses the same arguments, so every rank
/// throws it at the same point; main() prints "dfft <subcommand>: <message>" once and exits
/// with exit_usage.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Registers --size: "NX NY [NZ ...]" or "NXxNYxNZ" (the same syntax for every subcommand); the
/// second form takes one shape per occurrence of --size.
CLI::Option* add_size_option(CLI::App* c, std::vector<std::string>& tokens, const std::string& help);
CLI::Option* add_size_option(CLI::App* c, std::vector<std::vector<std::string>>& shapes, const std::string& help);

/// Parses --size tokens into a shape: at least 2 dimensions, every size an integer >= 1.
/// Throws UsageError saying what is allowed.
std::vector<std::int64_t> parse_shape(const std::vector<std::string>& tokens);

/// Parses "P1xP2", "P" or "auto" (= {}) into a process grid; every factor an integer >= 1.
std::vector<int> parse_grid(const std::string& s);

/// Accepts numbers >= `min`; the error names the range in words (e.g. "an integer >= 1").
CLI::Validator at_least(double min, const std::string& words);

}  // namespace dfftapp
