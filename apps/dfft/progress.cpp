// SPDX-License-Identifier: MIT
#include "progress.hpp"

#include <cstdio>
#include <numeric>

namespace dfftapp {

namespace {

std::string clock_text(double seconds) {
  const long s = seconds < 0 ? 0 : static_cast<long>(seconds + 0.5);
  char b[32];
  if (s >= 3600)
    std::snprintf(b, sizeof b, "%ldh%02ldm%02lds", s / 3600, s / 60 % 60, s % 60);
  else
    std::snprintf(b, sizeof b, "%ldm%02lds", s / 60, s % 60);
  return b;
}

}  // namespace

Progress::Progress(std::vector<double> costs, bool enabled)
    : costs_(std::move(costs)),
      enabled_(enabled),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {
  total_ = std::accumulate(costs_.begin(), costs_.end(), 0.0);
}

void Progress::done(std::size_t i, const std::string& label) {
  if (i < costs_.size()) finished_ += costs_[i];
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  const bool last = i + 1 >= costs_.size();
  if (!last && now - last_ < std::chrono::seconds(2)) return;
  last_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double left = finished_ > 0 ? elapsed * (total_ - finished_) / finished_ : 0;
  // Whole lines, not a line rewritten with \r: the result table goes to stdout at the same time.
  std::fprintf(stderr, "dfft bench: [%zu/%zu] elapsed %s, about %s left (%s)\n", i + 1,
               costs_.size(), clock_text(elapsed).c_str(), clock_text(left).c_str(), label.c_str());
  std::fflush(stderr);
}

}  // namespace dfftapp
