// SPDX-License-Identifier: MIT
// The executor's schedules (per direction: steps in execution order, overlap groups, buffer
// assignment) and its online tuning of overlap slices, chunks and steps in flight.
#include <algorithm>
#include <initializer_list>

#include "exec/plan_impl.hpp"
#include "util/check.hpp"

namespace dfft {

using namespace detail;

namespace {

// First plan buffer (2 a_, 3 b_, 4 c_) not in `avoid`.
int pick(std::initializer_list<int> avoid) {
  for (int id : {2, 3, 4})
    if (std::find(avoid.begin(), avoid.end(), id) == avoid.end()) return id;
  return 4;
}


}  // namespace

void PlanImpl::build_direction(bool inverse) {
  Direction& d = dir_[inverse ? 1 : 0];
  d = Direction{};
  const std::size_t n = path_.steps.size();
  d.sched = oriented_steps(path_, inverse);
  d.group_at.assign(n, -1);
  if (tuning_.slices > 1) {
    // On a GPU a slice along an axis that breaks an FFT's single batch stride turns one cuFFT
    // launch into one per outer member, in every slice (the pencil x-step of 1024^3 on 2 x 2
    // GPUs sliced along z: 1 launch whole, 512 per slice): such axes are not sliced along.
    SliceCheck slices_well;
    if (dev_->on_device())
      slices_well = [&](const OrientedStep& o, int axis) {
        const int k = tuning_.slices;
        const FftDesc whole = fft_desc(path_.steps[o.path_index], inverse);
        std::size_t sliced = 0;
        for (int i = 0; i < k; ++i) {
          FftDesc v = whole;
          v.in = slice_view(whole.in, axis, k, i, taper_);
          v.out = slice_view(whole.out, axis, k, i, taper_);
          sliced += dev_->fft_launches(v);
        }
        return sliced <= std::max(dev_->fft_launches(whole), static_cast<std::size_t>(k));
      };
    for (const GroupPlan& p : plan_groups(d.sched, comm_, slices_well)) {
      d.group_at[p.first] = static_cast<int>(d.groups.size());
      collectively(comm_, "FFT planning", [&] { build_group(d, p, inverse); });
    }
  }
  // Buffers: a group's FFTs and exchange run at the same time, so the exchange's source stays
  // live while the FFT after it writes (and the FFT before it still reads its input while
  // the exchange writes): a third buffer where needed.
  d.out_buf.assign(n, 0);
  int cur = 0;
  for (std::size_t j = 0; j < n;) {
    if (d.group_at[j] >= 0) {
      const GroupPlan& p = d.groups[static_cast<std::size_t>(d.group_at[j])].plan;
      const int p0 = cur, p1 = p.has_pre ? pick({p0}) : p0, p2 = pick({p0, p1});
      const int p3 = !p.has_post ? p2 : p.last() + 1 == n ? 1 : pick({p1, p2});
      if (p.has_pre) d.out_buf[j] = p1;
      d.out_buf[p.x()] = p2;
      if (p.has_post) d.out_buf[p.x() + 1] = p3;
      cur = p3;
      j = p.last() + 1;
    } else if (d.sched[j].identity && cur != 0 && j + 1 < n) {
      d.out_buf[j] = cur;  // skipped: the next step reads where the previous one wrote
      ++j;
    } else {
      d.out_buf[j] = j + 1 == n ? 1 : pick({cur});
      cur = d.out_buf[j];
      ++j;
    }
  }
  // The exchange before a last FFT that has an in-place plan writes the output array directly,
  // where neither runs in a group (a group spans its steps from p.first to p.last(); group_at
  // marks only the first): a grouped exchange writing the output would have the FFT slices
  // after it transform that array in place through out-of-place plans.
  std::vector<bool> grouped(n, false);
  for (const GroupExec& g : d.groups)
    for (std::size_t i = g.plan.first; i <= g.plan.last(); ++i) grouped[i] = true;
  if (n >= 3 && !grouped[n - 1] && !grouped[n - 2] && !d.sched[n - 2].fft &&
      !d.sched[n - 2].identity && d.sched[n - 1].fft) {
    const StepExec& e = exec_[d.sched[n - 1].path_index];
    if (inverse ? e.inv_fft_in_place : e.fwd_fft_in_place) d.out_buf[n - 2] = 1;
  }
  if (std::find(d.out_buf.begin(), d.out_buf.end(), 4) != d.out_buf.end() && !c_.get())
    c_ = Buffer(*dev_, work_bytes_);
}

void PlanImpl::build_group(Direction& d, const GroupPlan& p, bool inverse) {
  GroupExec g;
  g.plan = p;
  const int k = tuning_.slices;
  const OrientedStep& xo = d.sched[p.x()];
  const Step& xs = path_.steps[xo.path_index];
  const ExchangeSpec base = exchange_spec(xs, inverse);
  const bool cut_src = p.mode != GroupPlan::Mode::post, cut_dst = p.mode != GroupPlan::Mode::pre;
  const int me = base.me;
  auto sliced_fft = [&](const FftDesc& full, int i, std::unique_ptr<LocalFft>& f, std::int64_t& off_in,
                        std::int64_t& off_out, bool& empty) {
    FftDesc v = full;
    v.in = slice_view(full.in, p.axis, k, i, taper_);
    v.out = slice_view(full.out, p.axis, k, i, taper_);
    off_in = view_offset(full.in, v.in, elem_in(full));
    off_out = view_offset(full.out, v.out, elem_out(full));
    empty = v.in.box.empty() || v.out.box.empty();
    // Planned on the scratch buffers at the same offsets (FFTW: same alignment as at run time).
    if (!empty)
      f = dev_->make_fft(v, static_cast<char*>(a_.get()) + off_in, static_cast<char*>(b_.get()) + off_out);
  };
  for (int i = 0; i < k; ++i) {
    GroupExec::Slice s;
    ExchangeSpec xsub = base;
    for (std::size_t m = 0; m < base.src.size(); ++m) {
      if (cut_src) xsub.src[m] = slice_view(base.src[m], p.axis, k, i, taper_);
      if (cut_dst) xsub.dst[m] = slice_view(base.dst[m], p.axis, k, i, taper_);
    }
    s.x_src = cut_src ? view_offset(base.src[me], xsub.src[me], base.elem) : 0;
    s.x_dst = cut_dst ? view_offset(base.dst[me], xsub.dst[me], base.elem) : 0;
    s.x = make_x(xs, step_method_[xo.path_index], xsub);
    if (p.has_pre)
      sliced_fft(fft_desc(path_.steps[d.sched[p.first].path_index], inverse), i, s.f, s.f_in,
                 s.f_out, s.f_empty);
    if (p.has_post)
      sliced_fft(fft_desc(path_.steps[d.sched[p.x() + 1].path_index], inverse), i, s.g, s.g_in,
                 s.g_out, s.g_empty);
    g.slices.push_back(std::move(s));
  }
  // A last FFT applies the normalisation in every slice or in none (the caller then scales the
  // whole output): slices that planned differently are planned again without it.
  if (p.has_post) {
    const auto scaling = std::count_if(g.slices.begin(), g.slices.end(),
                                       [](const GroupExec::Slice& s) { return s.g && s.g->scales(); });
    const auto planned = std::count_if(g.slices.begin(), g.slices.end(),
                                       [](const GroupExec::Slice& s) { return s.g != nullptr; });
    if (scaling > 0 && scaling < planned) {
      FftDesc plain = fft_desc(path_.steps[d.sched[p.x() + 1].path_index], inverse);
      plain.scale = 1;
      for (int i = 0; i < k; ++i) {
        GroupExec::Slice& s = g.slices[static_cast<std::size_t>(i)];
        sliced_fft(plain, i, s.g, s.g_in, s.g_out, s.g_empty);
      }
    }
  }
  g.device_ordered = queue_ == 1 &&
                     std::all_of(g.slices.begin(), g.slices.end(),
                                 [](const GroupExec::Slice& s) { return s.x->can_enqueue(); });
  g.marks = dev_->make_marks(1 + 6 * k);
  d.groups.push_back(std::move(g));
}

bool PlanImpl::uses_chunks() const {
  return std::any_of(step_method_.begin(), step_method_.end(),
                     method_uses_chunks);
}

bool PlanImpl::uses_in_flight() const {
  return std::find(step_method_.begin(), step_method_.end(), Method::p2p_pipelined) !=
         step_method_.end();
}

void PlanImpl::apply(const Tuning& t) {
  if (t == tuning_) return;
  const bool transports = t.chunks != tuning_.chunks || t.in_flight != tuning_.in_flight;
  tuning_ = t;
  dir_[0] = Direction{};
  dir_[1] = Direction{};
  if (transports) build_transports();
  build_directions();
}

void PlanImpl::build_directions() {
  for (bool inverse : {false, true})
    if (runs(inverse)) build_direction(inverse);
}

// Online tuning: one untimed warm-up call, then per stage each candidate for kCalls calls
// (forward or inverse, whichever the caller makes), scored by the sum of its calls' times,
// max over ranks (so every rank takes the same decisions at the same call). Stages vary one
// knob around the best so far: overlap slices, then chunks, then steps in flight.
namespace {
constexpr int kCalls = 2;
}

void PlanImpl::adapt_before() {
  if (!adapting() || !adapt_.warmed) return;
  if (adapt_.cand.empty()) {
    const Tuning b = tuning_;
    auto& c = adapt_.cand;
    if (adapt_.stage == 0)
      for (int v : {1, 2, 4, 8}) c.push_back({v, b.chunks, b.in_flight});
    if (adapt_.stage == 1)
      for (int v : {1, 2, 4, 8, 16}) c.push_back({b.slices, v, b.in_flight});
    if (adapt_.stage == 2)
      for (int v : {1, 2, 4}) c.push_back({b.slices, b.chunks, v});
    adapt_.score.assign(c.size(), 0.0);
    adapt_.cur = 0;
    adapt_.calls = 0;
  }
  apply(adapt_.cand[adapt_.cur]);
}

void PlanImpl::adapt_after(double seconds) {
  if (!adapting()) return;
  if (!adapt_.warmed) {
    adapt_.warmed = true;
    return;
  }
  double worst = 0;
  DFFT_MPI(MPI_Allreduce(&seconds, &worst, 1, MPI_DOUBLE, MPI_MAX, comm_));
  adapt_.score[adapt_.cur] += worst;
  if (++adapt_.calls < kCalls) return;
  adapt_.calls = 0;
  if (++adapt_.cur < adapt_.cand.size()) return;
  const auto best = static_cast<std::size_t>(
      std::min_element(adapt_.score.begin(), adapt_.score.end()) - adapt_.score.begin());
  apply(adapt_.cand[best]);
  adapt_.cand.clear();
  ++adapt_.stage;
  if (adapt_.stage == 1 && !uses_chunks()) ++adapt_.stage;
  if (adapt_.stage == 2 && !uses_in_flight()) ++adapt_.stage;
}

}  // namespace dfft
