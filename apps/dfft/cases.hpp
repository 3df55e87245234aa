// SPDX-License-Identifier: MIT
// Test-case files for `dfft bench --cases FILE.json` (format: docs/cases.md). Parsing takes any
// text and either returns the suite or throws CaseError; it does no MPI and no file access, so a
// fuzzer can call parse_cases_json() directly.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <map>
#include <set>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench.hpp"

namespace dfftapp {

/// A malformed test-case file; what() names the offending entry ("tests[2].method: ...").
struct CaseError : InputError {
  using InputError::InputError;
};

/// Largest cases file accepted.
constexpr std::size_t kMaxCasesBytes = 16u << 20;

/// Settings of "global" or of one test; unset fields inherit (test <- global <- bench defaults).
struct CaseSettings {
  std::optional<int> warmup, reps;
  std::optional<bool> validate, reference;
  std::optional<std::vector<std::string>> precisions;
  /// A list option's items given on their own (OptionField::item_flags: "method1", "method2"),
  /// by key: the values to sweep, as text.
  std::map<std::string, std::vector<std::string>> items;
  std::optional<std::vector<std::vector<std::int64_t>>> sizes;
  std::optional<std::vector<int>> ranks;
  /// The plan options, by their field name (dfft/option_fields.hpp): the values to sweep, as
  /// text, checked as bench's flags check them (bench_uses()).
  std::map<std::string, std::vector<std::string>> options;
  /// The plan options of `options` given by their second key (OptionField::cases_alias, "method").
  std::set<std::string> by_alias;
};

struct CaseTest {
  std::string name;  // "tests[i]" when the file gives none
  CaseSettings settings;
};

struct CaseFile {
  std::string name, description;
  CaseSettings global;
  std::vector<CaseTest> tests;
};

/// Parses a test-case file. Throws CaseError for invalid JSON, unknown keys, wrong types, unknown
/// names (decomposition, method, ...), bad sizes, grids or rank counts, or too many sizes.
CaseFile parse_cases_json(const std::string& text);

/// The sizes "from F doubling one axis at a time up to S" (thesis 5.1): F, then F with the last
/// axis doubled, then the last two, ... cycling from the fastest axis to the slowest, while every
/// axis stays <= S. Throws CaseError when F has a non-positive entry or S < F.
std::vector<std::vector<std::int64_t>> doubling_sizes(const std::vector<std::int64_t>& from,
                                                      const std::vector<std::int64_t>& to);

/// Parses "128x128x256", "128^2x256" or "256^3" into a shape; throws CaseError.
std::vector<std::int64_t> parse_size_text(const std::string& s);

/// Configurations of every test in order. `cli` holds the command-line values; options named in
/// cli.given override the file's settings (sweep options such as --size are refused).
std::vector<Config> expand_cases(const CaseFile& f, const BenchArgs& cli);

/// Rank 0 reads `path`, every rank parses it; throws CaseError (same text on every rank).
CaseFile load_cases(const std::string& path, MPI_Comm comm);

}  // namespace dfftapp
