// SPDX-License-Identifier: MIT
// What every `dfft` subcommand shares: the exit status of each kind of error, the --size syntax
// and range checks that say the allowed range in words (docs/cli.md).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace CLI {
class App;
class Option;
class Validator;
}  // namespace CLI

namespace dfft {
struct Options;
struct OptionField;
}  // namespace dfft

namespace dfftapp {

/// Exit status of every subcommand, one per kind of outcome (the table in docs/cli.md).
enum Exit : int {
  exit_ok = 0,
  exit_failure = 1,     // a run-time or library failure (MPI, I/O, an unexpected error)
  exit_usage = 2,       // bad command line: unknown option, bad value, value out of range
  exit_input = 3,       // an input file is missing, malformed or does not fit the options
  exit_validation = 4,  // the run finished but a validation check exceeded its limit
};

/// An error that every rank meets alike (the same arguments, or a decision rank 0 broadcast):
/// main() prints "dfft <subcommand>: <message>" once and exits with `status`.
struct CliError : std::runtime_error {
  CliError(const std::string& what, Exit s) : std::runtime_error(what), status(s) {}
  Exit status;
};

/// A bad option value found after parsing (exit_usage). Every rank parses the same arguments, so
/// every rank throws it at the same point.
struct UsageError : CliError {
  explicit UsageError(const std::string& what) : CliError(what, exit_usage) {}
};

/// An input file that is missing, not a regular file, unreadable or malformed (exit_input).
struct InputError : CliError {
  explicit InputError(const std::string& what) : CliError(what, exit_input) {}
};

/// The exit status of an error of any kind (the table in docs/cli.md): a CliError's own, a plan
/// that does not fit in memory (OutOfMemory) exit_failure, a refused wisdom file (InvalidArgument
/// of call "wisdom") exit_input, another refused plan (dfft::Error of call "plan") exit_usage,
/// anything else exit_failure.
Exit exit_status(const std::exception& e);

/// The text of `e` for "dfft <subcommand>: <text>": without the library's own "dfft: " prefix,
/// so that every message carries one prefix.
std::string message_of(const std::exception& e);

/// Runs `work` on rank 0 alone (reading files, printing tables), then gives every rank its exit
/// status. An exception there is printed as "<who>: <message>" and mapped by exit_status().
int on_rank0(MPI_Comm comm, const std::string& who, const std::function<int()>& work);

/// Rank 0 reads the whole input file `path` (`what` names it in messages: "cases file",
/// "result file", ...) and every rank gets its text, or every rank throws the same InputError:
/// missing, unreadable, larger than `max_bytes`, or not a regular file (a directory, a device
/// such as /dev/full, a FIFO: refused before reading, which may block or never end).
std::string read_input(const std::string& path, const std::string& what, MPI_Comm comm,
                       std::size_t max_bytes = std::size_t{1} << 30);
/// The same on this rank alone (no MPI).
std::string read_input_here(const std::string& path, const std::string& what,
                            std::size_t max_bytes = std::size_t{1} << 30);

/// Registers --size: "NX NY [NZ ...]" or "NXxNYxNZ" (the same syntax for every subcommand); the
/// second form takes one shape per occurrence of --size.
CLI::Option* add_size_option(CLI::App* c, std::vector<std::string>& tokens, const std::string& help);
CLI::Option* add_size_option(CLI::App* c, std::vector<std::vector<std::string>>& shapes, const std::string& help);

/// Parses --size tokens into a shape: at least 2 dimensions, every size an integer >= 1; a
/// single-shape --size given twice is refused (its occurrences arrive separated by an empty
/// token). Throws UsageError saying what is allowed.
std::vector<std::int64_t> parse_shape(const std::vector<std::string>& tokens);

/// Parses "P1xP2", "P" or "auto" (= {}) into a process grid; every factor an integer >= 1.
std::vector<int> parse_grid(const std::string& s);

/// Accepts numbers >= `min`; the error names the range in words (e.g. "an integer >= 1").
CLI::Validator at_least(double min, const std::string& words);

/// Plan options by field name (dfft/option_fields.hpp), as text, as the command line gave them.
using OptionValues = std::map<std::string, std::vector<std::string>>;

/// How a subcommand takes the flag of one table field where it differs from the table: the
/// flag's spelling and help come from the table, these only narrow, widen or annotate it.
struct FlagUse {
  bool own = false;                // the subcommand defines this spelling itself, for another meaning
  std::string default_text;        // the value when the flag is not given ("": the table's default)
  std::vector<std::string> extra;  // values taken besides the table's (bench's c2r: r2c, inverse first)
  std::vector<std::string> only;   // the values taken, where fewer than the table's
  double min = -1e308;             // numbers: the least taken, named by min_words
  std::string min_words;
  /// A list field whose values are separated by ',' like a scalar's: each item one value (bench's
  /// --method a2a-sync,p2p-sync sweeps two methods).
  bool split_items = false;
  std::string note;                // said after the table's help (what the subcommand does with it)

  // Setters, so that a table of uses reads `FlagUse().also({"c2r"}).noted("...")`.
  FlagUse& owned() { own = true; return *this; }
  FlagUse& defaults_to(std::string t) { default_text = std::move(t); return *this; }
  FlagUse& also(std::vector<std::string> v) { extra = std::move(v); return *this; }
  FlagUse& just(std::vector<std::string> v) { only = std::move(v); return *this; }
  FlagUse& least(double m, std::string words) { min = m; min_words = std::move(words); return *this; }
  FlagUse& items() { split_items = true; return *this; }
  FlagUse& noted(std::string n) { note = std::move(n); return *this; }

  /// Why `text` is not a value of field `f` taken this way ("": it is one): not among `only`, below
  /// `min`, or refused by dfft::set_option; values of `extra` are taken as they are.
  std::string refusal(const dfft::OptionField& f, const std::string& text) const;
};
/// FlagUse by field name.
using FlagUses = std::map<std::string, FlagUse>;

/// The table's flags on subcommand `c`, in `--help` sections named after the option groups, each
/// with the table's help and its values checked by the library (dfft::set_option) as `uses` adjusts
/// them; the values are collected in `values` under the field name, as text. A list-valued field
/// (--axes 0,1) takes one value per occurrence, the others several, comma-separated or repeated.
/// With `fields` non-empty only those fields' flags are added. With `items`, a list field's item
/// flags too (OptionField::item_flags: --method1, --method2), each collected under its key and
/// excluding the field's own flag.
void add_plan_option_flags(CLI::App* c, OptionValues& values, const FlagUses& uses = {},
                           const std::vector<std::string>& fields = {}, OptionValues* items = nullptr);

/// The text of field `name` for a subcommand: the last value given, else the FlagUse default,
/// else the table's default.
std::string option_value(const OptionValues& values, const FlagUses& uses, const std::string& name);
/// Whether the flag of field `name` was given.
bool option_given(const OptionValues& values, const std::string& name);
/// Options with the subcommand's defaults of `uses` (FlagUse::default_text) set.
dfft::Options options_with_defaults(const FlagUses& uses);

/// Refuses a choice the tuner makes (decomposition, variant, methods) that `given` says the
/// command line set (given(field name)), beside the tuning named by `tuning` ("--tune measure"),
/// naming both flags (UsageError).
void refuse_with_tuning(const std::function<bool(const std::string&)>& given, const std::string& tuning);

/// Sets the fields of `values` in `o` (fields named in `skip` excepted); a field given several
/// values is refused (UsageError) where the subcommand runs one plan, except a list with ','
/// between items, whose occurrences add items (--axes 0 --axes 1 is --axes 0,1).
void set_plan_options(dfft::Options& o, const OptionValues& values, const std::vector<std::string>& skip = {});

}  // namespace dfftapp
