// SPDX-License-Identifier: MIT
// Times one candidate plan: a forward and an inverse transform (the one direction of a
// one-direction plan) on plan-owned buffers.
#include <algorithm>
#include <map>

#include "tune/tuner.hpp"
#include "util/check.hpp"

namespace dfft::detail {

namespace {

class PlanTimer final : public CandidateTimer {
 public:
  PlanTimer(MPI_Comm comm, const std::vector<std::int64_t>& shape, const std::vector<Options>& cands,
            bool is_double, const Layout* in, const Layout* out)
      : comm_(comm), shape_(shape), cands_(cands), is_double_(is_double), in_(in), out_(out) {}
  ~PlanTimer() override {
    for (auto& [i, slot] : slots_) slot.free();
  }

  void prepare(std::size_t i) override {
    Slot& s = slots_[i];
    s.plan = std::make_unique<PlanImpl>(comm_, shape_, cands_.at(i), is_double_, in_, out_);
    const Options& o = s.plan->options();
    const std::size_t real = is_double_ ? 8 : 4, cplx = 2 * real;
    const std::size_t in_elem = o.transform == Transform::c2c ? cplx : real;
    const std::size_t out_elem = o.transform == Transform::r2r ? real : cplx;
    const auto in_bytes = static_cast<std::size_t>(s.plan->path().input.alloc_count()) * in_elem;
    const auto out_bytes = static_cast<std::size_t>(s.plan->path().output.alloc_count()) * out_elem;
    s.in_place = o.in_place;
    Device& dev = s.plan->dev();
    s.a = Buffer(dev, std::max<std::size_t>(s.in_place ? std::max(in_bytes, out_bytes) : in_bytes, 1));
    if (!s.in_place) {
      s.b = Buffer(dev, std::max<std::size_t>(out_bytes, 1));
      s.c = Buffer(dev, std::max<std::size_t>(in_bytes, 1));
    }
    fill(dev, s.a, in_bytes);
    // An inverse-only plan starts from b: finite numbers there too (no NaN or subnormal timing).
    if (!s.in_place && o.directions == Directions::inverse) fill(dev, s.b, out_bytes);
  }

  double run(std::size_t i) override {
    Slot& s = slots_.at(i);
    const double t0 = MPI_Wtime();
    // A one-direction plan is timed on that direction only (FFTW's plans are: their tuning
    // problem is the one direction).
    const Directions dirs = s.plan->options().directions;
    const bool fwd = runs_direction(dirs, false), inv = runs_direction(dirs, true);
    if (s.in_place) {
      if (fwd) s.plan->forward(s.a.get(), s.a.get());
      if (inv) s.plan->inverse(s.a.get(), s.a.get());
    } else {
      if (fwd) s.plan->forward(s.a.get(), s.b.get());
      if (inv) s.plan->inverse(s.b.get(), s.c.get());  // keeps the input intact for the next repetition
    }
    return MPI_Wtime() - t0;
  }

  void release(std::size_t i) override {
    auto it = slots_.find(i);
    if (it == slots_.end()) return;
    it->second.free();
    slots_.erase(it);
  }

 private:
  struct Slot {
    std::unique_ptr<PlanImpl> plan;
    Buffer a, b, c;
    bool in_place = false;
    void free() {  // buffers first: they come from the plan's device
      a = {};
      b = {};
      c = {};
      plan.reset();
    }
  };

  // Small bounded values: the timing of an FFT does not depend on them, but NaN/denormals might.
  void fill(Device& dev, const Buffer& buf, std::size_t bytes) const {
    if (is_double_) {
      std::vector<double> h(bytes / sizeof(double));
      for (std::size_t k = 0; k < h.size(); ++k) h[k] = static_cast<double>(k % 17) * 0.0625 - 0.5;
      dev.upload(buf.get(), h.data(), h.size() * sizeof(double));
    } else {
      std::vector<float> h(bytes / sizeof(float));
      for (std::size_t k = 0; k < h.size(); ++k) h[k] = static_cast<float>(k % 17) * 0.0625f - 0.5f;
      dev.upload(buf.get(), h.data(), h.size() * sizeof(float));
    }
  }

  MPI_Comm comm_;
  const std::vector<std::int64_t>& shape_;
  const std::vector<Options>& cands_;
  bool is_double_;
  const Layout *in_, *out_;
  std::map<std::size_t, Slot> slots_;
};

}  // namespace

std::unique_ptr<CandidateTimer> make_plan_timer(MPI_Comm comm, const std::vector<std::int64_t>& shape,
                                               const std::vector<Options>& candidates, bool is_double,
                                               const Layout* in, const Layout* out) {
  return std::make_unique<PlanTimer>(comm, shape, candidates, is_double, in, out);
}

}  // namespace dfft::detail
