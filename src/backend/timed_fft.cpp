// SPDX-License-Identifier: MIT
#include "backend/timed_fft.hpp"

#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

#include "util/check.hpp"

namespace dfft::detail {

namespace {

// The engine chosen by timing, with both times for describe().
class Timed final : public LocalFft {
 public:
  Timed(std::unique_ptr<LocalFft> f, std::string timing) : f_(std::move(f)), timing_(std::move(timing)) {}
  void execute(void* in, void* out) override { f_->execute(in, out); }
  void execute_unscaled(void* in, void* out) override { f_->execute_unscaled(in, out); }
  std::int64_t work_bytes() const override { return f_->work_bytes(); }
  bool scales() const override { return f_->scales(); }
  std::string engine() const override { return f_->engine(); }
  std::string engine_timing() const override { return timing_; }

 private:
  std::unique_ptr<LocalFft> f_;
  std::string timing_;
};

std::mutex choices_mutex;
// By problem key: whether the other engine won, and both times.
std::map<std::string, std::pair<bool, std::string>>& choices() {
  static std::map<std::string, std::pair<bool, std::string>> m;
  return m;
}

}  // namespace

std::unique_ptr<LocalFft> faster_fft(const std::string& key, const std::string& library_name, const FftMaker& library,
                                     const FftMaker& own, const std::function<double(LocalFft&)>& seconds) {
  std::optional<std::pair<bool, std::string>> before;
  {
    std::lock_guard<std::mutex> lock(choices_mutex);
    if (auto it = choices().find(key); it != choices().end()) before = it->second;
  }
  if (before) {
    // A choice made before: only the chosen one is planned. The makers run outside the lock:
    // they may plan steps that are timed choices themselves (a split's passes).
    auto chosen = before->first ? own() : library();
    return std::make_unique<Timed>(chosen ? std::move(chosen) : library(), before->second);
  }
  auto lib = library();
  auto other = own();
  if (!other) return lib;  // the other engine could not be planned for this step
  const double t_lib = seconds(*lib), t_own = seconds(*other);
  const bool pick_own = t_own < t_lib;
  const std::string timing = library_name + " " + ms_text(t_lib) + ", " + other->engine() + " " + ms_text(t_own);
  {
    std::lock_guard<std::mutex> lock(choices_mutex);
    choices().emplace(key, std::make_pair(pick_own, timing));
  }
  return std::make_unique<Timed>(pick_own ? std::move(other) : std::move(lib), timing);
}

EnginePolicy engine_policy(const char* variable) {
  const char* v = std::getenv(variable);
  const std::string s = v ? v : "";
  if (s == "0") return EnginePolicy::never;
  if (s == "1") return EnginePolicy::always;
  return EnginePolicy::timed;
}

}  // namespace dfft::detail
