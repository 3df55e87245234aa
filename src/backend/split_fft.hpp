// SPDX-License-Identifier: MIT
// A local FFT step of several axes run as two passes: the FFT over all its axes but the one
// slowest in memory ("rest"), and a one-axis FFT over that slowest axis in place ("column").
// Which is faster, the split or the FFT library's own plan of the whole step, depends on the
// machine; the backends time both (timed_fft.hpp). A GPU runs the column pass with dfft's column
// kernel (cuda/column_fft.hpp); the CPU runs both passes with FFTW, the rest in cache-sized
// blocks along the slowest axis (cpu_device.cpp).
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "backend/device.hpp"

namespace dfft::detail {

/// The FFT axis of `axes` (not empty) that comes first (slowest) in `order`.
inline int slowest_fft_axis(const std::vector<int>& axes, const std::vector<int>& order) {
  const auto pos = [&](int a) { return std::find(order.begin(), order.end(), a) - order.begin(); };
  return *std::min_element(axes.begin(), axes.end(), [&](int a, int b) { return pos(a) < pos(b); });
}

class SplitFft final : public LocalFft {
 public:
  /// `column_first` false: `rest` from the input to the output, then `column` in place on the
  /// output. true (a c2r, whose complex axes go first): `column` in place on the input, which a
  /// c2r may spend, then `rest` from there to the output. `name`: engine().
  SplitFft(std::unique_ptr<LocalFft> rest, std::unique_ptr<LocalFft> column, bool column_first, std::string name)
      : rest_(std::move(rest)), column_(std::move(column)), column_first_(column_first), name_(std::move(name)) {}
  void execute(void* in, void* out) override { run(in, out, true); }
  void execute_unscaled(void* in, void* out) override { run(in, out, false); }
  std::int64_t work_bytes() const override { return rest_->work_bytes() + column_->work_bytes(); }
  bool scales() const override { return rest_->scales() || column_->scales(); }
  std::string engine() const override { return name_; }

 private:
  void run(void* in, void* out, bool scaled) {
    auto pass = [&](LocalFft& f, void* i, void* o) { scaled ? f.execute(i, o) : f.execute_unscaled(i, o); };
    if (column_first_) {
      pass(*column_, in, in);
      pass(*rest_, in, out);
    } else {
      pass(*rest_, in, out);
      pass(*column_, out, out);
    }
  }

  std::unique_ptr<LocalFft> rest_, column_;
  bool column_first_;
  std::string name_;
};

}  // namespace dfft::detail
