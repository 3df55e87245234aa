// SPDX-License-Identifier: MIT
#include "bench_summary.hpp"

#include <algorithm>
#include <cmath>

#include "report.hpp"

namespace dfftapp {

std::string noise_note(const Record& r) {
  if (!is_noisy(r.time_min, r.time_median, r.time_max)) return "";
  char b[240];
  std::snprintf(b, sizeof b,
                "  noisy: %s spread %.1f > %.0f (max/median %.1f, median/min %.1f); the machine was busy "
                "(more --reps, or fewer processes per core)",
                r.direction == "forward" ? "fwd" : "inv", spread(r.time_min, r.time_median, r.time_max),
                kNoiseRatio, r.time_max / r.time_median, r.time_median / r.time_min);
  return b;
}

void Fastest::add(const std::vector<Record>& recs) {
  if (recs.size() != 2 || recs[0].validation == "fail") return;
  const auto key = std::make_tuple(problem_text(recs[0]), recs[0].precision, record_option(recs[0], "transform"));
  if (!groups_.count(key)) order_.push_back(key);
  Entry e{configuration_text(recs[0]), 0, 0, 0, 0, 0};
  for (const auto& r : recs) {
    (r.direction == "forward" ? e.fwd : e.inv) = r.time_median;
    const MedianInterval iv = r.samples_ms.empty() ? MedianInterval{r.time_median, r.time_median, 0}
                                                   : median_interval(r.samples_ms, 0.99);
    e.lo += is_noisy(r.time_min, r.time_median, r.time_max) ? r.time_min : iv.lo;
    e.hi += iv.hi;
  }
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
    // Sorted by median, not by lower end: a slower noisy row may still reach below the fastest.
    std::vector<const Entry*> tied{&w};
    for (std::size_t i = 1; i < entries.size(); ++i)
      if (entries[i].lo <= w.hi) tied.push_back(&entries[i]);
    std::fprintf(out, "  %s %s %s: ", std::get<0>(key).c_str(), std::get<1>(key).c_str(), std::get<2>(key).c_str());
    if (tied.size() > 1) {
      std::fprintf(out, "tie within noise, no winner: %zu of %zu configurations may be the fastest (", tied.size(),
                   entries.size());
      constexpr std::size_t shown = 3;
      for (std::size_t i = 0; i < tied.size() && i < shown; ++i)
        std::fprintf(out, "%s%s %.3f ms", i ? "; " : "", tied[i]->label.c_str(), tied[i]->total);
      if (tied.size() > shown) std::fprintf(out, "; %zu more", tied.size() - shown);
      std::fprintf(out, "); more --reps or a quieter machine can tell them apart\n");
      continue;
    }
    std::fprintf(out, "%s: %.3f ms (fwd %.3f + inv %.3f)", w.label.c_str(), w.total, w.fwd, w.inv);
    if (entries.size() > 1)
      std::fprintf(out, "; runner-up %.2fx: %s", entries[1].total / w.total, entries[1].label.c_str());
    std::fprintf(out, "\n");
  }
}

bool distribution_only(const dfft::OptionField& f) { return f.distribution_only; }

std::size_t keep_one_per_problem(std::vector<Config>& configs) {
  // Every other option a cases file may vary per test keeps configurations apart.
  std::vector<const dfft::OptionField*> compared;
  for (const auto& f : dfft::option_fields())
    if (!distribution_only(f)) compared.push_back(&f);
  std::vector<Config> kept;
  for (auto& c : configs) {
    const bool seen = std::any_of(kept.begin(), kept.end(), [&](const Config& k) {
      const bool same_options = std::all_of(compared.begin(), compared.end(), [&](const dfft::OptionField* f) {
        return f->get(k.opt) == f->get(c.opt);
      });
      return same_options && k.shape == c.shape && k.is_double == c.is_double && k.inverse_first == c.inverse_first &&
             k.warmup == c.warmup && k.reps == c.reps && k.validate == c.validate && k.reference == c.reference &&
             k.ranks == c.ranks;
    });
    if (!seen) kept.push_back(std::move(c));
  }
  const std::size_t dropped = configs.size() - kept.size();
  configs = std::move(kept);
  return dropped;
}

}  // namespace dfftapp
