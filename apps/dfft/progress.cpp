// SPDX-License-Identifier: MIT
#include "progress.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace dfftapp {

namespace {

constexpr auto kMinGap = std::chrono::seconds(2);  // between two lines
constexpr auto kTick = std::chrono::seconds(5);    // a line at least this often while work runs

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

bool progress_wanted(int flag, bool unless_redirected) {
  if (flag != 0) return flag > 0;
  if (::isatty(STDERR_FILENO) == 1) return true;
  if (!unless_redirected) return false;
  struct stat st {};
  if (::fstat(STDERR_FILENO, &st) != 0) return false;  // closed: nobody reads it
  // A file (2> log) or a device that is not a terminal (/dev/null) is read later or never.
  return !S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode);
}

Progress::Progress(std::string who, bool enabled)
    : who_(std::move(who)), enabled_(enabled), start_(std::chrono::steady_clock::now()), last_(start_) {
  if (enabled_) ticker_ = std::thread([this] { tick(); });
}

Progress::~Progress() {
  if (!enabled_) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  ticker_.join();
}

void Progress::update(double done, double total, const std::string& what) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mu_);
  const auto now = std::chrono::steady_clock::now();
  if (done > 0 && base_done_ < 0) {  // the first work done: the rate is measured from here
    base_done_ = done;
    base_ = now;
  }
  done_ = done;
  total_ = total;
  what_ = what;
  const bool complete = total > 0 && done >= total;
  if ((complete && !complete_) || (!complete && now - last_ >= kMinGap)) print_locked(now);
  complete_ = complete;
}

void Progress::update_seconds(double spent, double total, const std::string& what) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mu_);
  const auto now = std::chrono::steady_clock::now();
  seconds_ = true;
  done_ = spent;
  total_ = total;
  what_ = what;
  left_ = total > 0 ? std::max(0.0, total - spent) : -1;
  reported_ = now;
  const bool complete = total > 0 && spent >= total;
  if ((complete && !complete_) || (!complete && now - last_ >= kMinGap)) print_locked(now);
  complete_ = complete;
}

void Progress::print_locked(std::chrono::steady_clock::time_point now) {
  last_ = now;
  if (seconds_) {
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    // Counted down from the caller's last estimate; a step that overruns it shows 0m00s until the
    // next report revises it.
    const double left = left_ < 0 ? -1 : std::max(0.0, left_ - std::chrono::duration<double>(now - reported_).count());
    const double frac = total_ > 0 ? std::min(1.0, (total_ - left) / total_) : 0;
    const std::string text = complete_ || (total_ > 0 && done_ >= total_) ? "done"
                             : left < 0 ? "time left not known yet"
                                        : "about " + clock_text(left) + " left";
    std::fprintf(stderr, "%s: %3.0f%%, elapsed %s, %s (%s)\n", who_.c_str(), 100 * frac, clock_text(elapsed).c_str(),
                 text.c_str(), what_.c_str());
    std::fflush(stderr);
    return;
  }
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double frac = total_ > 0 ? done_ / total_ : 0;
  // The rate since the first work was done, so that a slow start (planning) is not taken for
  // the pace of the rest; until then the rate over all the time.
  const double since = std::chrono::duration<double>(now - base_).count();
  const double rate = base_done_ >= 0 && done_ > base_done_ && since > 0 ? (done_ - base_done_) / since
                      : elapsed > 0 ? done_ / elapsed : 0;
  const std::string left = done_ >= total_ && total_ > 0 ? "done"
                           : rate > 0 ? "about " + clock_text((total_ - done_) / rate) + " left"
                                      : "time left not known yet";
  // Whole lines, not a line rewritten with \r: a result table goes to stdout at the same time.
  std::fprintf(stderr, "%s: %3.0f%%, elapsed %s, %s (%s)\n", who_.c_str(), 100 * frac,
               clock_text(elapsed).c_str(), left.c_str(), what_.c_str());
  std::fflush(stderr);
}

void Progress::tick() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    cv_.wait_for(lock, kTick);
    const auto now = std::chrono::steady_clock::now();
    if (!stop_ && !complete_ && now - last_ >= kTick) print_locked(now);
  }
}

}  // namespace dfftapp
