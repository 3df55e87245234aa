// SPDX-License-Identifier: MIT
// Results of `dfft bench`: one Record per configuration and direction, printed as an aligned
// table row and written as one JSON line. Field meanings: docs/bench.md.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "dfft/option_fields.hpp"
#include "dfft/types.hpp"
#include "output_target.hpp"

namespace dfftapp {

constexpr double kNotRun = std::numeric_limits<double>::quiet_NaN();  // JSON null

struct Record {
  std::string precision, direction;
  std::vector<std::int64_t> size;
  int ranks = 1;
  double time_min = 0, time_median = 0, time_max = 0;   // ms
  double fft = 0, pack = 0, comm = 0, unpack = 0;       // ms
  double gflops = 0;
  /// The median time in passes over device memory (ReferenceTiming::pass of the same job's
  /// single-device row); NaN where not measured (CPU, or no --reference).
  double memory_passes = kNotRun;
  double error = kNotRun;  // forward: reference_error; inverse: roundtrip_error
  double reference_error = kNotRun, roundtrip_error = kNotRun, laplacian_error = kNotRun;
  std::string validation;  // "pass", "fail" or "" (not validated)
  int warmup = 0, reps = 0;
  std::vector<std::int64_t> exchange_bytes;  // per exchange, max over ranks
  dfft::NodeTraffic traffic;  // messages and bytes per transform inside / across nodes, all ranks
  std::int64_t memory_host_bytes = 0, memory_device_bytes = 0;  // Plan::memory(), max over ranks
  std::string timestamp, host;
  // Result-file fields (results.cpp, docs/results-format.md).
  std::vector<double> samples_ms;                  // per repetition, max over ranks
  std::vector<std::array<double, 4>> rank_phases;  // per rank: fft, pack, comm, unpack medians (ms)
  std::vector<std::pair<std::string, std::array<double, 4>>> stages;  // per stage: name, phase medians (ms)
  std::string test;                                // test name of a cases file
  /// What the plan ran, every field of the option table (dfft/option_fields.hpp): the options as
  /// the plan resolved them (decomposition, variant, methods per exchange, wire format, grid,
  /// staging, overlap slices, chunks, steps in flight), written under their field names.
  dfft::Options options;
  /// Fields whose value no Options value spells, written as this text instead of the option's:
  /// the serial reference's decomposition "single-device" and variant "-", a peer's "slab".
  std::map<std::string, std::string, std::less<>> labels;
  const nlohmann::json* machine = nullptr;         // machine_description(), shared by all records
  // A peer library's record (fftw-mpi-bench): its name, and its planning time (ms). Empty for
  // dfft's own records, whose plan fields (codec, overlap, exchange bytes, ...) it then lacks.
  std::string library;
  double plan_ms = kNotRun;
};

/// Field `name` of the record's options as text (dfft::get_option), or its label where it has one.
std::string record_option(const Record& r, std::string_view name);
/// Field `f` of the record as a cell of bench's table shows it: its text (record_option); a list
/// with no items "-", a ','-separated list whose items are all equal its one item; a flag
/// "yes" or "no".
std::string option_cell(const Record& r, const dfft::OptionField& f);
/// The option fields with a column in bench's table (OptionField::column), in column order.
std::vector<const dfft::OptionField*> option_columns();
/// What tells the record's configuration apart from the others of its problem: the option
/// fields the table writes in it (OptionField::in_name), in their column order.
std::string configuration_text(const Record& r);

/// Whether every record writes option field `f`, whatever its value (with `peer`: a peer
/// library's record). The other fields are written only where they differ from the default.
bool always_written(const dfft::OptionField& f, bool peer);

/// The record as one JSON object: the one writer of bench records (dfft bench, fftw-mpi-bench);
/// the fields are those of docs/results-format.md.
nlohmann::json to_json(const Record& r);

/// Aligned text table on one stream, rows printed as they come (a long sweep shows progress).
class Table {
 public:
  explicit Table(std::FILE* out) : out_(out) {}
  /// Widen the text columns to fit this record's labels (call for every row before header()).
  void fit(const Record& r);
  void header();
  void row(const Record& r);
  /// A line that is not a result (skipped or failed configuration).
  void note(const std::string& text);

 private:
  std::FILE* out_;
  std::vector<std::size_t> width_;
};

/// JSON lines file written by rank 0: every record goes to the disk at once (a killed sweep
/// leaves what it measured in `path`.dfft-tmp); commit() puts the file in place (OutputFile).
class JsonLines {
 public:
  /// Refuses a `path` that is not a new or regular file; returns false with `why` set.
  bool open(const std::string& path, std::string& why) { return out_.open(path, why); }
  void write(const Record& r);
  bool is_open() const { return out_.is_open(); }
  OutputFile& file() { return out_; }

 private:
  OutputFile out_;
};

/// Text helpers shared by the table and the bench summary.
std::string join(const std::vector<std::string>& v, const std::string& sep);
std::string shape_text(const std::vector<std::int64_t>& s);
/// The record's array shape, with "batch N" after it when it transforms N arrays together.
std::string problem_text(const Record& r);
std::string utc_timestamp();
std::string host_name();

}  // namespace dfftapp
