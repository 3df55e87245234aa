// SPDX-License-Identifier: MIT
#include "bench_summary.hpp"

#include <algorithm>
#include <cmath>

#include "report.hpp"

namespace dfftapp {

std::string noise_note(const Record& r) {
  if (!(r.time_median > 0) || !(r.time_max > kNoiseRatio * r.time_median)) return "";
  char b[160];
  std::snprintf(b, sizeof b,
                "  noisy: %s max/median = %.1f > %.0f; the machine was busy (more --reps, or fewer "
                "processes per core)",
                r.direction == "forward" ? "fwd" : "inv", r.time_max / r.time_median, kNoiseRatio);
  return b;
}

namespace {

// What tells configurations of one problem apart.
std::string configuration_text(const Record& r) {
  std::string s = r.decomposition + " " + r.variant + " " + methods_text(r.methods) + " grid " + grid_text(r.grid);
  if (!r.codec.empty() && r.codec != "none") s += " codec " + r.codec;
  if (r.overlap > 1) s += " overlap " + std::to_string(r.overlap);
  return s;
}

}  // namespace

void Fastest::add(const std::vector<Record>& recs) {
  if (recs.size() != 2 || recs[0].validation == "fail") return;
  const auto key = std::make_tuple(shape_text(recs[0].size), recs[0].precision, recs[0].transform);
  if (!groups_.count(key)) order_.push_back(key);
  Entry e{configuration_text(recs[0]), 0, 0, 0};
  for (const auto& r : recs) (r.direction == "forward" ? e.fwd : e.inv) = r.time_median;
  e.total = e.fwd + e.inv;
  if (std::isfinite(e.total)) groups_[key].entries.push_back(e);
}

void Fastest::print(std::FILE* out) const {
  if (order_.empty()) return;
  std::fprintf(out, "fastest per size, precision and transform (median forward + inverse):\n");
  for (const auto& key : order_) {
    auto entries = groups_.at(key).entries;
    if (entries.empty()) continue;
    std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.total < b.total; });
    const Entry& w = entries.front();
    std::fprintf(out, "  %s %s %s: %s: %.3f ms (fwd %.3f + inv %.3f)", std::get<0>(key).c_str(),
                 std::get<1>(key).c_str(), std::get<2>(key).c_str(), w.label.c_str(), w.total, w.fwd, w.inv);
    if (entries.size() > 1)
      std::fprintf(out, "; runner-up %.2fx: %s", entries[1].total / w.total, entries[1].label.c_str());
    std::fprintf(out, "\n");
  }
}

std::size_t keep_one_per_problem(std::vector<Config>& configs) {
  std::vector<Config> kept;
  for (auto& c : configs) {
    const bool seen = std::any_of(kept.begin(), kept.end(), [&](const Config& k) {
      // What a cases file may vary per test beyond the distribution keeps configurations apart.
      const auto& a = k.opt;
      const auto& b = c.opt;
      return k.shape == c.shape && k.is_double == c.is_double && a.transform == b.transform &&
             k.inverse_first == c.inverse_first && a.overlap == b.overlap &&
             a.transposed_out == b.transposed_out && a.norm == b.norm && a.effort == b.effort &&
             a.backend == b.backend && a.batch == b.batch && a.axes == b.axes && a.padding == b.padding &&
             a.r2r == b.r2r && a.threads == b.threads && a.in_place == b.in_place &&
             k.warmup == c.warmup && k.reps == c.reps && k.validate == c.validate &&
             k.reference == c.reference && k.ranks == c.ranks;
    });
    if (!seen) kept.push_back(std::move(c));
  }
  const std::size_t dropped = configs.size() - kept.size();
  configs = std::move(kept);
  return dropped;
}

}  // namespace dfftapp
