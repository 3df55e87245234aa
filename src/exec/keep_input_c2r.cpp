// SPDX-License-Identifier: MIT
#include "exec/keep_input_c2r.hpp"

#include <mpi.h>

#include <algorithm>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>
#include <utility>
#include <vector>

#include "plan/geometry.hpp"
#include "util/check.hpp"

namespace dfft::detail {

namespace {

bool row_major(const Layout& l) {
  return l.padded.empty() && l.order == natural_order(l.box.dims());
}

// The c2c over the leading cand.split axes of a split candidate, from the input's layout into
// the same layout in the workspace.
FftDesc split_c2c(const FftDesc& d, const KeepInputCandidate& cand) {
  FftDesc c = d;
  c.kind = FftDesc::Kind::backward;
  c.axes.assign(d.axes.begin(), d.axes.begin() + cand.split);
  c.out = d.in;
  if (!cand.scale_first) c.scale = 1;  // the c2r that follows applies it, where it can
  c.scale_on_load = cand.scale_on_load;
  return c;
}

// Output bytes of one group of lines of the grouped c2r: well inside a core's L2 cache, so the
// scaling that follows reads it from there.
constexpr std::int64_t kGroupBytes = 128 * 1024;

class Chosen final : public KeepInputC2r {
 public:
  Chosen(Device& dev, const FftDesc& d, LocalFft& whole) : dev_(dev), d_(d), whole_(whole) {}

  // Plans candidate `cand` on a and b: the split after `cand.split` leading axes (0: the copy);
  // `grouped`: its c2r (then of the last axis alone) in groups of lines, each scaled while in
  // cache; `scale_first`: the c2c, not the c2r, applies d.scale; `scale_on_load`: as it reads
  // (else as it stores).
  void plan(const KeepInputCandidate& cand, void* a, void* b) {
    cand_ = cand;
    const int k = cand.split;
    const bool scale_first = cand.scale_first, on_load = cand.scale_on_load;
    first_.reset();
    second_.reset();
    tail_.reset();
    if (k == 0) return;
    copying_ = false;
    if (cand.copying) {
      // Planned in place on the workspace; an FFT that cannot copy (a layout
      // keep_input_can_copy did not foresee) is planned out of place instead.
      FftDesc c = split_c2c(d_, cand);
      c.scale = 1;  // execute_copying applies the caller's factor
      first_ = dev_.make_fft(c, b, b);
      copying_ = first_->copies();
      if (!copying_) first_ = dev_.make_fft(split_c2c(d_, cand), a, b);
    } else {
      first_ = dev_.make_fft(split_c2c(d_, cand), a, b);
    }
    FftDesc r = d_;
    r.axes.assign(d_.axes.begin() + k, d_.axes.end());
    if (scale_first) r.scale = 1;
    r.scale_on_load = on_load;
    if (!cand.grouped) {
      second_ = dev_.make_fft(r, b, a);
      return;
    }
    // Lines of the last axis, contiguous in both layouts (row-major): a group is `lines_` of
    // them, a multiple of 8 so that every group starts on the alignment FFTW planned for.
    const int last = d_.axes.back();
    n_ = d_.out.box.extent(last);
    m_ = d_.in.box.extent(last);
    const std::int64_t total = d_.in.box.count() / std::max<std::int64_t>(m_, 1);
    lines_ = std::max<std::int64_t>(8, kGroupBytes / (n_ * real_bytes()) / 8 * 8);
    lines_ = std::min(lines_, total);
    groups_ = total / lines_;
    second_ = dev_.make_fft(lines_desc(lines_), b, a);
    rest_ = total - groups_ * lines_;
    if (rest_ > 0) tail_ = dev_.make_fft(lines_desc(rest_), b, a);
  }

  bool execute(const void* in, void* scratch, void* out, double factor) override {
    void* src = const_cast<void*>(in);
    if (cand_.split == 0) {
      // The c2r applies the factor as it stores where it can; the copy does otherwise.
      if (whole_.scales()) {
        copy_spectrum(dev_, src, d_.in, scratch, d_.is_double, 1);
        whole_.execute(scratch, out);
        return true;
      }
      const bool scaled = copy_spectrum(dev_, src, d_.in, scratch, d_.is_double, factor);
      whole_.execute(scratch, out);
      return scaled && factor != 1;
    }
    if (copying_) {
      first_->execute_copying(src, scratch, factor);
      second_->execute(scratch, out);
      return true;
    }
    first_->execute(src, scratch);  // out of place: FFTW and cuFFT keep the input of a c2c
    if (!cand_.grouped) {
      second_->execute(scratch, out);
      return cand_.scale_first ? first_->scales() : second_->scales();
    }
    auto* s = static_cast<char*>(scratch);
    auto* o = static_cast<char*>(out);
    const std::int64_t in_step = lines_ * m_ * cplx_bytes(), out_step = lines_ * n_ * real_bytes();
    for (std::int64_t g = 0; g < groups_; ++g) {
      second_->execute(s + g * in_step, o + g * out_step);
      if (factor != 1) dev_.scale(o + g * out_step, lines_ * n_, factor, d_.is_double);
    }
    if (tail_) {
      tail_->execute(s + groups_ * in_step, o + groups_ * out_step);
      if (factor != 1) dev_.scale(o + groups_ * out_step, rest_ * n_, factor, d_.is_double);
    }
    return true;
  }

  std::int64_t work_bytes() const override {
    std::int64_t w = 0;
    for (const auto* f : {first_.get(), second_.get(), tail_.get()})
      if (f) w += f->work_bytes();
    return w;
  }

  std::string timings() const override { return timings_; }
  void set_timings(std::string t) { timings_ = std::move(t); }

  std::string name() const override {
    if (cand_.split == 0) return "copy";
    const auto k = static_cast<std::ptrdiff_t>(cand_.split);
    // dfft's own kernels (LocalFft::engine) apply the factor as they store, asked to load or not.
    const bool own_first = cand_.scale_first && first_ && !first_->engine().empty();
    return "c2c(" + axes_text({d_.axes.begin(), d_.axes.begin() + k}) + ") then c2r(" +
           axes_text({d_.axes.begin() + k, d_.axes.end()}) + ")" +
           (cand_.grouped ? " in groups of " + std::to_string(lines_) + " lines" : "") +
           (copying_ ? ", the c2c copying block by block and normalising" : "") +
           (first_ && !first_->engine().empty() ? ", the c2c by " + first_->engine() : "") +
           (second_ && !second_->engine().empty() ? ", the c2r by " + second_->engine() : "") +
           (d_.scale == 1 || !(cand_.scale_first || cand_.scale_on_load) || copying_
                ? ""
                : std::string(", the ") + (cand_.scale_first ? "c2c" : "c2r") + " normalising as it " +
                      (cand_.scale_on_load && !own_first ? "loads" : "stores"));
  }

 private:
  std::int64_t real_bytes() const { return d_.is_double ? 8 : 4; }
  std::int64_t cplx_bytes() const { return 2 * real_bytes(); }
  // A 1-D c2r of `count` contiguous lines.
  FftDesc lines_desc(std::int64_t count) const {
    FftDesc r = d_;
    r.axes = {1};
    r.in = Layout{Box{{0, 0}, {count, m_}}, {0, 1}, {}};
    r.out = Layout{Box{{0, 0}, {count, n_}}, {0, 1}, {}};
    r.r2r.clear();
    return r;
  }

  Device& dev_;
  FftDesc d_;
  LocalFft& whole_;
  KeepInputCandidate cand_;
  std::int64_t n_ = 0, m_ = 0, lines_ = 0, groups_ = 0, rest_ = 0;  // rest_: lines of the tail group
  bool copying_ = false;  // first_ runs execute_copying (KeepInputCandidate::copying)
  std::unique_ptr<LocalFft> first_, second_, tail_;
  std::string timings_;
};

// Seconds of one execution with input a, scratch b and output a (the input is spent by the
// time the output is written, so two buffers serve), its normalisation included; the best of
// two after a warm-up.
double time_candidate(Device& dev, Chosen& c, const FftDesc& d, void* a, void* b, double factor) {
  const std::size_t bytes = static_cast<std::size_t>(d.in.alloc_count()) * (d.is_double ? 16 : 8);
  const std::int64_t reals = d.out.alloc_count();
  double best = std::numeric_limits<double>::infinity();
  for (int rep = 0; rep < 3; ++rep) {
    dev.zero(a, bytes);  // planners leave anything in the buffers; zeros keep the timing clean
    dev.synchronize();
    const double t0 = MPI_Wtime();
    if (!c.execute(a, b, a, factor) && factor != 1) dev.scale(a, reals, factor, d.is_double);
    dev.synchronize();
    if (rep > 0) best = std::min(best, MPI_Wtime() - t0);
  }
  return best;
}

// Choices timed in this process, by problem: a later plan of the same problem takes the same
// one (as FFTW's wisdom gives it the same FFT plans), so that two such plans run, and describe
// themselves, alike and the timing is paid once.
std::mutex choices_mutex;
// The chosen candidate and what the timing gave for each.
std::map<std::string, std::pair<int, std::string>>& choices() {
  static std::map<std::string, std::pair<int, std::string>> m;
  return m;
}

std::string problem_key(const Device& dev, const FftDesc& d, double factor) {
  return fft_problem_key(dev, d) + (factor != 1 ? " normalised" : "");
}

}  // namespace

bool copy_spectrum(Device& dev, const void* in, const Layout& l, void* to, bool is_double, double factor) {
  // Unpadded: the box is one contiguous run of box.count() complex elements in both arrays.
  if (factor != 1 && l.padded.empty() && dev.scale_copy(in, to, 2 * l.box.count(), factor, is_double))
    return true;
  dev.copy_box(in, l, to, l, l.box, is_double ? 16 : 8);
  return factor == 1;
}

bool keep_input_can_group(const Device& dev, const FftDesc& c2r) {
  // A GPU scales the whole output at its memory bandwidth; the lines must be contiguous.
  return !dev.on_device() && row_major(c2r.in) && row_major(c2r.out) &&
         c2r.axes.back() == c2r.in.box.dims() - 1;
}

std::vector<KeepInputCandidate> keep_input_candidates(const Device& dev, const FftDesc& c2r) {
  const int r = static_cast<int>(c2r.axes.size());
  const bool periodic = std::all_of(c2r.r2r.begin(), c2r.r2r.end(), [](R2R k) { return k == R2R::none; });
  if (c2r.kind != FftDesc::Kind::c2r || r < 2 || !periodic) return {};
  std::vector<KeepInputCandidate> c{{0, false, false}};
  for (int k = 1; k < r; ++k) c.push_back({k, false, false});
  if (keep_input_can_group(dev, c2r)) c.push_back({r - 1, true, false});
  // The CPU's copying FFT of the slowest axis (its batch, the faster axes, packed below it).
  if (!dev.on_device() && row_major(c2r.in) && c2r.axes.front() == 0 && c2r.in.box.dims() >= 2)
    c.push_back({1, false, true, false, true});
  // A GPU FFT that normalises runs a kernel with a cuFFT callback linked in, whose cost depends
  // on the transform it is linked into and on whether it loads or stores: the c2c over the
  // leading axes may carry the factor at a lower cost than the c2r, and a load callback at a
  // lower cost than a store callback (the plan times them).
  if (dev.on_device() && c2r.scale != 1)
    for (int k = 1; k < r; ++k)
      for (bool first : {false, true})
        for (bool load : {false, true})
          if (first || load) c.push_back({k, false, first, load});
  return c;
}

std::unique_ptr<KeepInputC2r> make_keep_input_c2r(Device& dev, const FftDesc& c2r, LocalFft& whole,
                                                  void* a, void* b, double factor, int choice) {
  if (c2r.kind != FftDesc::Kind::c2r) fail_internal("make_keep_input_c2r takes a c2r step");
  const auto cands = keep_input_candidates(dev, c2r);
  if (cands.empty()) return nullptr;
  const int n = static_cast<int>(cands.size());
  if (choice >= n) fail_internal("this c2r has no candidate ", choice, " (", n, " candidates)");
  auto c = std::make_unique<Chosen>(dev, c2r, whole);
  if (choice >= 0 || c2r.effort == Effort::estimate || c2r.in.box.empty()) {
    c->plan(cands[static_cast<std::size_t>(std::max(choice, 0))], a, b);
    return c;
  }
  const std::string key = problem_key(dev, c2r, factor);
  {
    std::lock_guard<std::mutex> lock(choices_mutex);
    if (auto it = choices().find(key); it != choices().end() && it->second.first < n) {
      c->plan(cands[static_cast<std::size_t>(it->second.first)], a, b);
      c->set_timings(it->second.second);
      return c;
    }
  }
  int best = 0, last = -1;
  double best_t = std::numeric_limits<double>::infinity();
  std::ostringstream timed;
  // The candidates that move the normalisation only to the split that was fastest with the
  // c2r's store callback: the splits differ far more than the callbacks do (one H200, 1024^3
  // float: 9.6 against 99.5 ms), and each candidate costs cuFFT plans and timed runs.
  int best_split = 0;
  double best_split_t = std::numeric_limits<double>::infinity();
  for (int k = 0; k < n; ++k) {
    const KeepInputCandidate& cand = cands[static_cast<std::size_t>(k)];
    const bool moved = (cand.scale_first || cand.scale_on_load) && !cand.copying;
    if (moved && cand.split != best_split) continue;
    c->plan(cand, a, b);
    last = k;
    const double t = time_candidate(dev, *c, c2r, a, b, factor);
    timed << (k ? "; " : "") << c->name() << ' ' << ms_text(t);
    if (t < best_t) best = k, best_t = t;
    if (!moved && cand.split > 0 && !cand.grouped && !cand.copying && t < best_split_t) best_split = cand.split, best_split_t = t;
  }
  if (best != last) c->plan(cands[static_cast<std::size_t>(best)], a, b);
  c->set_timings(timed.str());
  std::lock_guard<std::mutex> lock(choices_mutex);
  choices().emplace(key, std::make_pair(best, timed.str()));
  return c;
}

}  // namespace dfft::detail
