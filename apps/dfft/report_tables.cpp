// SPDX-License-Identifier: MIT
// `dfft bench --report FILE...`: relative-runtime tables (thesis section 5.3) in markdown. Per
// group (backend, precision, transform, direction, ranks) one table with a row per configuration
// and a column per size, each cell the configuration's time divided by the best time at that size,
// then a table of the fastest configuration per size with its absolute time and phase split.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "bench.hpp"
#include "mpi_check.hpp"
#include "report.hpp"
#include "results.hpp"

namespace dfftapp {

namespace {

using json = nlohmann::json;

struct Entry {
  double value = 0;       // the chosen statistic, ms
  bool fallback = false;  // --stat mean asked but the record has no mean (single-device rows)
  const json* record = nullptr;
};

struct Group {
  std::string title;
  std::map<std::vector<std::int64_t>, std::map<std::string, Entry>>
      by_size;  // size -> label -> entry
  std::set<std::string> labels;
};

int decomp_rank(const std::string& d) {
  if (d == "slab-2d1d") return 0;
  if (d == "slab-1d2d") return 1;
  if (d == "pencil") return 2;
  return d == "single-device" ? 4 : 3;
}

std::string label_of(const json& r) {
  const std::string d = r["decomposition"];
  if (d == "single-device") return "single-device";
  std::vector<std::string> methods;
  for (const auto& m : r["methods"]) methods.push_back(m.get<std::string>());
  std::string s = d + " " + r["variant"].get<std::string>() + " " + methods_text(methods);
  if (r.contains("codec") && r["codec"].is_string() && r["codec"] != "none")
    s += " codec " + r["codec"].get<std::string>();
  if (d == "pencil" || r["grid"].size() > 1) {
    std::vector<int> g;
    for (const auto& v : r["grid"]) g.push_back(v.get<int>());
    s += " grid " + grid_text(g);
  }
  return s;
}

// Sort key: decomposition in path order, then the label text; single-device last.
std::pair<int, std::string> label_key(const std::string& label) {
  return {decomp_rank(label.substr(0, label.find(' '))), label};
}

std::string size_label(const std::vector<std::int64_t>& s) {
  // The thesis notation: runs of equal extents as powers (128^2x256).
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t j = i;
    while (j < s.size() && s[j] == s[i]) ++j;
    if (!out.empty()) out += "x";
    out += std::to_string(s[i]);
    if (j - i > 1) out += "^" + std::to_string(j - i);
    i = j;
  }
  return out;
}

double points(const std::vector<std::int64_t>& s) {
  double n = 1;
  for (auto v : s) n *= static_cast<double>(v);
  return n;
}

Entry entry_of(const json& r, const std::string& stat) {
  Entry e;
  e.record = &r;
  const json& t = r["time_ms"];
  if (stat == "mean") {
    if (t.contains("mean") && t["mean"].is_number()) {
      e.value = t["mean"].get<double>();
    } else {
      e.value = t["median"].get<double>();
      e.fallback = true;
    }
  } else {
    e.value = t[stat].get<double>();
  }
  return e;
}

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::string group_key(const json& r, int ranks) {
  return r["backend"].get<std::string>() + "|" + r["precision"].get<std::string>() + "|" +
         r["transform"].get<std::string>() + "|" + r["direction"].get<std::string>() + "|" +
         std::to_string(1000000 + ranks);
}

std::string group_title(const json& r, int ranks) {
  const std::string tr = r["transform"], dir = r["direction"];
  const std::string kind =
      tr == "r2c" ? (dir == "forward" ? "r2c forward" : "c2r inverse") : "c2c " + dir;
  return kind + ", " + r["precision"].get<std::string>() + ", " + std::to_string(ranks) + " rank" +
         (ranks == 1 ? "" : "s") + ", backend " + r["backend"].get<std::string>();
}

// Groups distributed records; single-device rows join every group of the same kind.
std::map<std::string, Group> build_groups(const std::vector<json>& recs, const std::string& stat,
                                          int& replaced) {
  std::map<std::string, Group> groups;
  std::vector<const json*> singles;
  for (const auto& r : recs) {
    if (r["decomposition"] == "single-device") {
      singles.push_back(&r);
      continue;
    }
    const int ranks = r["ranks"].get<int>();
    Group& g = groups[group_key(r, ranks)];
    g.title = group_title(r, ranks);
    const std::string label = label_of(r);
    auto& cell = g.by_size[r["size"].get<std::vector<std::int64_t>>()];
    replaced += cell.count(label) ? 1 : 0;
    cell[label] = entry_of(r, stat);
    g.labels.insert(label);
  }
  std::set<std::string> seen;  // a reference row joins several groups but counts once
  for (const json* r : singles)
    if (!seen.insert(group_key(*r, 1) + "|" + r->at("size").dump()).second) ++replaced;
  if (groups.empty())  // only reference rows: show them on their own
    for (const json* r : singles) groups[group_key(*r, 1)].title = group_title(*r, 1);
  for (const json* r : singles) {
    const std::string prefix = group_key(*r, 1).substr(0, group_key(*r, 1).rfind('|'));
    for (auto& [key, g] : groups) {
      if (key.rfind(prefix + "|", 0) != 0) continue;
      auto size = (*r)["size"].get<std::vector<std::int64_t>>();
      if (!g.by_size.count(size) && !g.labels.empty()) continue;  // no distributed run of that size
      g.by_size[size]["single-device"] = entry_of(*r, stat);
      g.labels.insert("single-device");
    }
  }
  return groups;
}

std::vector<std::vector<std::int64_t>> sorted_sizes(const Group& g) {
  std::vector<std::vector<std::int64_t>> sizes;
  for (const auto& [s, cells] : g.by_size) sizes.push_back(s);
  std::stable_sort(sizes.begin(), sizes.end(),
                   [](auto& x, auto& y) { return points(x) < points(y); });
  return sizes;
}

void print_relative(const Group& g, const std::string& stat) {
  const auto sizes = sorted_sizes(g);
  std::vector<std::string> labels(g.labels.begin(), g.labels.end());
  std::sort(labels.begin(), labels.end(),
            [](auto& x, auto& y) { return label_key(x) < label_key(y); });
  std::printf("### %s\n\n", g.title.c_str());
  std::printf("Relative runtime: %s time / best %s time at the same size (1.00 = fastest).\n\n",
              stat.c_str(), stat.c_str());
  std::string head = "| configuration |", rule = "|---|";
  for (const auto& s : sizes) {
    head += " " + size_label(s) + " |";
    rule += "---:|";
  }
  std::printf("%s\n%s\n", head.c_str(), rule.c_str());
  bool any_fallback = false;
  for (const auto& label : labels) {
    std::string row = "| " + label + " |";
    for (const auto& s : sizes) {
      const auto& cells = g.by_size.at(s);
      double best = INFINITY;
      for (const auto& [l, e] : cells) best = std::min(best, e.value);
      auto it = cells.find(label);
      if (it == cells.end()) {
        row += " - |";
        continue;
      }
      const double rel = best > 0 ? it->second.value / best : 1.0;
      std::string v = fmt("%.2f", rel) + (it->second.fallback ? "*" : "");
      any_fallback |= it->second.fallback;
      row += " " + (it->second.value == best ? "**" + v + "**" : v) + " |";
    }
    std::printf("%s\n", row.c_str());
  }
  std::string best_row = "| best (ms) |";
  for (const auto& s : sizes) {
    double best = INFINITY;
    for (const auto& [l, e] : g.by_size.at(s)) best = std::min(best, e.value);
    best_row += " " + fmt("%.4g", best) + " |";
  }
  std::printf("%s\n\n", best_row.c_str());
  if (any_fallback) std::printf("\\* no mean recorded (single-device rows): median used.\n\n");
}

void print_best(const Group& g, const std::string& stat) {
  std::printf(
      "Fastest configuration per size (%s; phases: median over repetitions of the max over "
      "ranks):\n\n",
      stat.c_str());
  std::printf(
      "| size | configuration | time (ms) | 99%% CI of median (ms) | fft | pack | comm | unpack | "
      "GFlop/s |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const auto& s : sorted_sizes(g)) {
    const Entry* best = nullptr;
    std::string best_label;
    for (const auto& [l, e] : g.by_size.at(s))
      if (!best || e.value < best->value) {
        best = &e;
        best_label = l;
      }
    const json& r = *best->record;
    std::string ci = "-";
    if (r["time_ms"].contains("median_ci99") && r["time_ms"]["median_ci99"].is_array())
      ci = fmt("%.4g", r["time_ms"]["median_ci99"][0].get<double>()) + " - " +
           fmt("%.4g", r["time_ms"]["median_ci99"][1].get<double>());
    const json& p = r["phases_ms"];
    std::printf("| %s | %s | %.4g | %s | %.4g | %.4g | %.4g | %.4g | %.3g |\n",
                size_label(s).c_str(), best_label.c_str(), best->value, ci.c_str(),
                p["fft"].get<double>(), p["pack"].get<double>(), p["comm"].get<double>(),
                p["unpack"].get<double>(),
                r.contains("gflops") && r["gflops"].is_number() ? r["gflops"].get<double>() : 0.0);
  }
  std::printf("\n");
}

int report(const BenchArgs& a) {
  std::vector<json> recs;
  std::set<std::string> hosts;
  for (const auto& path : a.report) {
    auto part = read_results(path);
    for (auto& r : part) recs.push_back(std::move(r));
  }
  for (const auto& r : recs)
    if (r.contains("host") && r["host"].is_string()) hosts.insert(r["host"].get<std::string>());
  if (recs.empty()) throw InputError("no records in " + join(a.report, ", "));
  if (!a.csv.empty()) {
    CsvWriter csv;
    std::string why;
    if (!csv.open(a.csv, why)) throw UsageError(why);
    for (const auto& r : recs) csv.write(r);
    if (!csv.file().commit()) throw CliError(csv.file().error(), exit_failure);
  }
  int replaced = 0;
  auto groups = build_groups(recs, a.stat, replaced);
  std::printf("## dfft bench report\n\n%zu records from %s; host%s: %s.\n\n", recs.size(),
              join(a.report, ", ").c_str(), hosts.size() == 1 ? "" : "s",
              join(std::vector<std::string>(hosts.begin(), hosts.end()), ", ").c_str());
  if (replaced > 0)
    std::printf(
        "Note: %d record%s repeated a configuration measured earlier (e.g. by another test of a "
        "cases "
        "file); the later measurement is shown.\n\n",
        replaced, replaced == 1 ? "" : "s");
  for (const auto& [key, g] : groups) {
    print_relative(g, a.stat);
    print_best(g, a.stat);
  }
  return 0;
}

}  // namespace

int run_report(const BenchArgs& a, MPI_Comm comm) {
  return on_rank0(comm, "dfft bench --report", [&] { return report(a); });
}

}  // namespace dfftapp
