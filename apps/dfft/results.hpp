// SPDX-License-Identifier: MIT
// Result files of `dfft bench`: the record fields beyond the basic ones of report.cpp (thesis
// statistics, per-rank phases, machine), CSV output, and reading JSON-lines files back.
// Field list: docs/results-format.md.
#pragma once

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "output_target.hpp"

namespace dfftapp {

struct Record;

/// Adds time_ms.{mean,stddev,ci99,n}, samples_ms, rank_phases_ms, stages_ms, test and machine to a
/// record's JSON object (called by to_json()).
void add_result_fields(nlohmann::json& j, const Record& r);

/// CSV with a fixed header: one row per JSON record (lists joined with ';', sizes with 'x'), the
/// plan options (every field of the option table) first.
/// Written as an OutputFile: commit() puts it in place.
class CsvWriter {
 public:
  bool open(const std::string& path, std::string& why);
  void write(const nlohmann::json& record);
  bool is_open() const { return out_.is_open(); }
  OutputFile& file() { return out_; }

 private:
  OutputFile out_;
};

/// The CSV column names, in order.
const std::vector<std::string>& csv_columns();
/// One CSV row (no newline) for a record as written by `dfft bench --json`.
std::string csv_row(const nlohmann::json& record);

/// A result file that cannot be read or has a malformed line.
struct ResultFileError : InputError {
  using InputError::InputError;
};

/// Every JSON object of a JSON-lines result file, unchecked (the caller checks the fields it
/// reads); blank lines are passed over, other lines that are not JSON objects counted in
/// `skipped`. A file that is missing, not a regular file or unreadable throws ResultFileError.
std::vector<nlohmann::json> read_result_lines(const std::string& path, int& skipped);

}  // namespace dfftapp
