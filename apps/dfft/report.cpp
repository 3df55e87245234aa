// SPDX-License-Identifier: MIT
#include "report.hpp"

#include "dfft/option_fields.hpp"
#include "option_json.hpp"
#include "results.hpp"
#include "stats.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <functional>

namespace dfftapp {

namespace {

std::string num(const char* fmt, double v) {
  if (std::isnan(v)) return "-";
  char b[64];
  std::snprintf(b, sizeof b, fmt, v);
  return b;
}

nlohmann::json or_null(double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); }

struct Column {
  std::string name;
  bool left;         // text columns are left-aligned, numbers right-aligned
  std::size_t room;  // width reserved for numbers, which are not known before the run
  std::function<std::string(const Record&)> cell;
};

// The option table's columns (OptionField::column) in their order, then the problem's and the
// measurements'.
std::vector<Column> make_columns() {
  std::vector<Column> c;
  for (const auto* f : option_columns()) {
    const bool number = f->type == "int" || f->type == "int64" || f->type == "number";
    c.push_back({std::string(f->label), !number, number ? 3u : 0u, [f](const Record& r) { return option_cell(r, *f); }});
  }
  const std::vector<Column> rest{
      {"prec", true, 0, [](const Record& r) { return r.precision; }},
      {"size", true, 0, [](const Record& r) { return problem_text(r); }},
      {"P", false, 3, [](const Record& r) { return std::to_string(r.ranks); }},
      {"dir", true, 0, [](const Record& r) { return r.direction == "forward" ? std::string("fwd") : std::string("inv"); }},
      {"med ms", false, 7, [](const Record& r) { return num("%.3f", r.time_median); }},
      {"min ms", false, 7, [](const Record& r) { return num("%.3f", r.time_min); }},
      {"max ms", false, 7, [](const Record& r) { return num("%.3f", r.time_max); }},
      {"fft", false, 7, [](const Record& r) { return num("%.3f", r.fft); }},
      {"pack", false, 7, [](const Record& r) { return num("%.3f", r.pack); }},
      {"comm", false, 7, [](const Record& r) { return num("%.3f", r.comm); }},
      {"unpack", false, 7, [](const Record& r) { return num("%.3f", r.unpack); }},
      {"GF/s", false, 6, [](const Record& r) { return num("%.2f", r.gflops); }},
      {"error", false, 7, [](const Record& r) { return num("%.1e", r.error); }},
      {"rt/lap", false, 11,
       [](const Record& r) { return num("%.0e", r.roundtrip_error) + "/" + num("%.0e", r.laplacian_error); }},
      {"check", true, 0, [](const Record& r) { return r.validation.empty() ? std::string("-") : r.validation; }},
  };
  c.insert(c.end(), rest.begin(), rest.end());
  return c;
}

const std::vector<Column>& columns() {
  static const std::vector<Column> c = make_columns();
  return c;
}

}  // namespace

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += sep;
    s += v[i];
  }
  return s;
}

std::string shape_text(const std::vector<std::int64_t>& s) {
  std::vector<std::string> p;
  for (auto v : s) p.push_back(std::to_string(v));
  return join(p, "x");
}

std::string problem_text(const Record& r) {
  const std::string s = shape_text(r.size);
  return r.options.batch > 1 ? s + " batch " + std::to_string(r.options.batch) : s;
}

std::string utc_timestamp() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return b;
}

std::string host_name() {
  char b[256] = {0};
  if (gethostname(b, sizeof b - 1) != 0) return "unknown";
  return b;
}

std::string record_option(const Record& r, std::string_view name) {
  const auto it = r.labels.find(name);
  return it != r.labels.end() ? it->second : dfft::get_option(r.options, name);
}

std::string option_cell(const Record& r, const dfft::OptionField& f) {
  const std::string text = record_option(r, f.name);
  if (f.type == "bool") return text == "true" ? "yes" : "no";
  if (!f.is_list()) return text;
  const auto items = dfft::option_items(f, text);
  if (items.empty()) return "-";
  if (f.separator == ',' && std::all_of(items.begin(), items.end(), [&](const auto& x) { return x == items[0]; }))
    return items[0];
  return text;
}

std::vector<const dfft::OptionField*> option_columns() {
  std::vector<const dfft::OptionField*> shown;
  for (const auto& f : dfft::option_fields())
    if (f.column > 0) shown.push_back(&f);
  std::sort(shown.begin(), shown.end(), [](auto* a, auto* b) { return a->column < b->column; });
  return shown;
}

std::string configuration_text(const Record& r) {
  std::vector<const dfft::OptionField*> named;
  for (const auto& f : dfft::option_fields())
    if (!f.in_name.empty()) named.push_back(&f);
  // Column order first, then the fields without a column in the table's order.
  std::stable_sort(named.begin(), named.end(), [](auto* a, auto* b) {
    return (a->column > 0 ? a->column : 1 << 20) < (b->column > 0 ? b->column : 1 << 20);
  });
  std::string s;
  const auto add = [&](const std::string& words) { s += (s.empty() ? "" : " ") + words; };
  for (const auto* f : named) {
    const std::string cell = option_cell(r, *f), name(f->name);
    if (f->in_name == "bare") add(cell);
    else if (f->in_name == "named") add(name + " " + cell);
    else if (f->in_name == "changed" && record_option(r, f->name) != (f->serial.empty() ? f->default_text() : std::string(f->serial)))
      add(name + " " + cell);
    else if (f->in_name == "flag" && record_option(r, f->name) == "true") add(std::string(f->flag.substr(2)));
  }
  return s;
}

bool always_written(const dfft::OptionField& f, bool peer) {
  return f.record == "every" || (!peer && f.record == "plan");
}

namespace {

// Every plan option of the table, under its field name and in its type (option_json): those
// always_written() names whatever their value, the others where they differ from the default (a
// reader takes an absent one as the default, so older records mean the same).
void add_options(nlohmann::json& j, const Record& r) {
  const bool peer = !r.library.empty();
  for (const auto& f : dfft::option_fields()) {
    const std::string key(f.name), value = f.get(r.options);
    const auto label = r.labels.find(key);
    if (label != r.labels.end())
      j[key] = label->second;
    else if (key == "staging" && (peer || r.options.backend != dfft::Backend::cuda))
      j[key] = nullptr;  // only the CUDA backend's MPI methods stage; docs/results-format.md
    else if (always_written(f, peer) || value != f.default_text())
      j[key] = option_json(f, value);
  }
}

}  // namespace

nlohmann::json to_json(const Record& r) {
  nlohmann::json j;
  // Fields every record has, dfft's or a peer library's.
  j["precision"] = r.precision;
  j["size"] = r.size;
  j["ranks"] = r.ranks;
  j["direction"] = r.direction;
  j["time_ms"] = {{"min", r.time_min}, {"median", r.time_median}, {"max", r.time_max}};
  j["noisy"] = is_noisy(r.time_min, r.time_median, r.time_max);
  j["phases_ms"] = {{"fft", or_null(r.fft)}, {"pack", or_null(r.pack)}, {"comm", or_null(r.comm)},
                    {"unpack", or_null(r.unpack)}};
  j["gflops"] = r.gflops;
  if (!std::isnan(r.memory_passes)) j["memory_passes"] = r.memory_passes;
  j["error"] = or_null(r.error);
  j["roundtrip_error"] = or_null(r.roundtrip_error);
  j["warmup"] = r.warmup;
  j["reps"] = r.reps;
  j["timestamp"] = r.timestamp;
  j["host"] = r.host;
  j["dfft_version"] = DFFT_VERSION_STRING;
  add_result_fields(j, r);
  add_options(j, r);
  if (!r.library.empty()) {  // a peer library's record: what only a dfft plan has does not apply
    j["library"] = r.library;
    j["plan_ms"] = or_null(r.plan_ms);
    return j;
  }
  // The environment switches of docs/overlap.md and docs/pipelined.md ("1": on).
  auto on = [](const char* var) {
    const char* t = std::getenv(var);
    return t && t[0] == '1' && !t[1];
  };
  if (r.options.overlap > 1) {
    j["slice_taper"] = on("DFFT_SLICE_TAPER");
    j["overlap_queue"] = on("DFFT_OVERLAP_QUEUE");
  }
  if (on("DFFT_CHUNK_TAPER")) j["chunk_taper"] = true;
  j["reference_error"] = or_null(r.reference_error);
  j["laplacian_error"] = or_null(r.laplacian_error);
  j["validation"] = r.validation.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.validation);
  j["exchange_bytes"] = r.exchange_bytes;
  j["memory_host_bytes"] = r.memory_host_bytes;
  j["memory_device_bytes"] = r.memory_device_bytes;
  j["intra_node_messages"] = r.traffic.intra_node_messages;
  j["intra_node_bytes"] = r.traffic.intra_node_bytes;
  j["inter_node_messages"] = r.traffic.inter_node_messages;
  j["inter_node_bytes"] = r.traffic.inter_node_bytes;
  return j;
}

void Table::fit(const Record& r) {
  const auto& cols = columns();
  if (width_.empty())
    for (const auto& c : cols) width_.push_back(c.name.size());
  for (std::size_t i = 0; i < cols.size(); ++i) {
    std::size_t w = cols[i].left ? cols[i].cell(r).size() : cols[i].room;
    width_[i] = std::max(width_[i], w);
  }
}

void Table::header() {
  const auto& cols = columns();
  if (width_.empty()) fit(Record{});
  std::string line, rule;
  for (std::size_t i = 0; i < cols.size(); ++i) {
    char b[128];
    std::snprintf(b, sizeof b, cols[i].left ? "%-*s" : "%*s", static_cast<int>(width_[i]), cols[i].name.c_str());
    if (i) {
      line += "  ";
      rule += "  ";
    }
    line += b;
    rule.append(width_[i], '-');
  }
  std::fprintf(out_, "%s\n%s\n", line.c_str(), rule.c_str());
  std::fflush(out_);
}

void Table::row(const Record& r) {
  const auto& cols = columns();
  std::string line;
  for (std::size_t i = 0; i < cols.size(); ++i) {
    std::string v = cols[i].cell(r);
    const std::size_t pad = v.size() < width_[i] ? width_[i] - v.size() : 0;
    if (i) line += "  ";
    if (!cols[i].left) line.append(pad, ' ');
    line += v;
    if (cols[i].left) line.append(pad, ' ');
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  std::fprintf(out_, "%s\n", line.c_str());
  std::fflush(out_);
}

void Table::note(const std::string& text) {
  std::fprintf(out_, "%s\n", text.c_str());
  std::fflush(out_);
}

void JsonLines::write(const Record& r) { out_.write(to_json(r).dump() + '\n'); }

}  // namespace dfftapp
