// SPDX-License-Identifier: MIT
#include "results.hpp"

#include <cmath>
#include <sstream>

#include "option_json.hpp"
#include "report.hpp"
#include "stats.hpp"

namespace dfftapp {

namespace {

using json = nlohmann::json;

json number_or_null(double v) { return std::isnan(v) ? json(nullptr) : json(v); }

struct CsvColumn {
  std::string name;
  std::string pointer;  // JSON pointer into the record
  char sep;             // how a list is joined
  /// A plan option's row (the option table): a record that leaves the key out has the default,
  /// unless every dfft record writes the key (a peer's record lacks what does not apply).
  const dfft::OptionField* option = nullptr;
};

// The plan options first, every field of the option table in its order, then the measurement.
// clang-format off
const std::vector<CsvColumn>& csv_column_table() {
  static const std::vector<CsvColumn> c = [] {
    std::vector<CsvColumn> v;
    for (const auto& f : dfft::option_fields())
      // Items joined with ';' (a ',' would need quoting), a grid with its own 'x'.
      v.push_back({std::string(f.name), "/" + std::string(f.name), f.separator == ',' ? ';' : f.separator, &f});
    const std::vector<CsvColumn> rest{
      {"precision", "/precision", ';'},
      {"size", "/size", 'x'},
      {"ranks", "/ranks", ';'},
      {"direction", "/direction", ';'},         {"time_min_ms", "/time_ms/min", ';'},
      {"time_median_ms", "/time_ms/median", ';'}, {"time_max_ms", "/time_ms/max", ';'},
      {"time_mean_ms", "/time_ms/mean", ';'},   {"time_stddev_ms", "/time_ms/stddev", ';'},
      {"time_median_ci99_lo_ms", "/time_ms/median_ci99/0", ';'},
      {"time_median_ci99_hi_ms", "/time_ms/median_ci99/1", ';'},
      {"samples", "/time_ms/n", ';'},           {"noisy", "/noisy", ';'},           {"fft_ms", "/phases_ms/fft", ';'},
      {"pack_ms", "/phases_ms/pack", ';'},      {"comm_ms", "/phases_ms/comm", ';'},
      {"unpack_ms", "/phases_ms/unpack", ';'},  {"gflops", "/gflops", ';'},
      {"error", "/error", ';'},                 {"reference_error", "/reference_error", ';'},
      {"roundtrip_error", "/roundtrip_error", ';'}, {"laplacian_error", "/laplacian_error", ';'},
      {"validation", "/validation", ';'},
      {"warmup", "/warmup", ';'},
      {"reps", "/reps", ';'},                   {"exchange_bytes", "/exchange_bytes", ';'},
      {"test", "/test", ';'},
      {"intra_node_messages", "/intra_node_messages", ';'}, {"intra_node_bytes", "/intra_node_bytes", ';'},
      {"inter_node_messages", "/inter_node_messages", ';'}, {"inter_node_bytes", "/inter_node_bytes", ';'},
      {"timestamp", "/timestamp", ';'},         {"host", "/host", ';'},
      {"dfft_version", "/dfft_version", ';'},   {"cpu_model", "/machine/cpu_model", ';'},
      {"cpu_cores", "/machine/cpu_cores", ';'}, {"gpu_model", "/machine/gpu_model", ';'},
      {"mpi_library", "/machine/mpi_library", ';'}, {"fftw_version", "/machine/fftw_version", ';'},
      {"cuda_runtime", "/machine/cuda_runtime", ';'}, {"cufft_version", "/machine/cufft_version", ';'},
      {"rank_fft_ms", "/rank_phases_ms/fft", ';'}, {"rank_pack_ms", "/rank_phases_ms/pack", ';'},
      {"rank_comm_ms", "/rank_phases_ms/comm", ';'}, {"rank_unpack_ms", "/rank_phases_ms/unpack", ';'},
      {"samples_ms", "/samples_ms", ';'},
    };
    v.insert(v.end(), rest.begin(), rest.end());
    return v;
  }();
  return c;
}
// clang-format on

std::string scalar_text(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();  // numbers (shortest exact form) and booleans
}

std::string cell(const json& v, char sep) {
  if (!v.is_array()) return scalar_text(v);
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += sep;
    s += scalar_text(v[i]);
  }
  return s;
}

std::string quoted(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char ch : s) {
    if (ch == '"') q += '"';
    q += ch;
  }
  return q + '"';
}


}  // namespace

void add_result_fields(json& j, const Record& r) {
  if (!r.samples_ms.empty()) {
    const SampleStats s = sample_stats(r.samples_ms, 0.99);
    auto& t = j["time_ms"];
    t["mean"] = s.mean;
    t["stddev"] = number_or_null(s.stddev);
    // Written only where the samples reach the 99% level (8 or more repetitions).
    t["median_ci99"] = s.median_ci.coverage >= 0.99 ? json::array({s.median_ci.lo, s.median_ci.hi}) : json(nullptr);
    t["n"] = s.n;
    j["samples_ms"] = r.samples_ms;
  }
  if (!r.rank_phases.empty()) {
    const char* names[4] = {"fft", "pack", "comm", "unpack"};
    json per = json::object();
    for (int p = 0; p < 4; ++p) {
      json col = json::array();
      for (const auto& rp : r.rank_phases) col.push_back(rp[static_cast<std::size_t>(p)]);
      per[names[p]] = col;
    }
    j["rank_phases_ms"] = per;
  }
  if (!r.stages.empty()) {
    json st = json::array();
    for (const auto& [name, v] : r.stages)
      st.push_back({{"name", name}, {"fft", v[0]}, {"pack", v[1]}, {"comm", v[2]}, {"unpack", v[3]}});
    j["stages_ms"] = st;
  }
  j["test"] = r.test.empty() ? json(nullptr) : json(r.test);
  if (r.machine) j["machine"] = *r.machine;
}

const std::vector<std::string>& csv_columns() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& c : csv_column_table()) v.push_back(c.name);
    return v;
  }();
  return names;
}

std::string csv_row(const json& record) {
  std::string row;
  bool first = true;
  for (const auto& c : csv_column_table()) {
    if (!first) row += ',';
    first = false;
    const json::json_pointer p(c.pointer);
    if (record.contains(p))
      row += quoted(cell(record.at(p), c.sep));
    else if (c.option && !always_written(*c.option, false))
      row += quoted(cell(option_json(*c.option, c.option->default_text()), c.sep));
  }
  return row;
}

bool CsvWriter::open(const std::string& path, std::string& why) {
  if (!out_.open(path, why)) return false;
  std::string header;
  for (const auto& n : csv_columns()) header += (header.empty() ? "" : ",") + n;
  out_.write(header + '\n');
  return true;
}

void CsvWriter::write(const json& record) { out_.write(csv_row(record) + '\n'); }

std::vector<json> read_result_lines(const std::string& path, int& skipped) {
  std::istringstream in;
  try {
    in.str(read_input_here(path, "result file"));
  } catch (const InputError& e) {
    throw ResultFileError(e.what());
  }
  std::vector<json> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    // The fields are left to the caller (dfft model reads the few it needs).
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      ++skipped;
      continue;
    }
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace dfftapp
