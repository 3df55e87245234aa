// SPDX-License-Identifier: MIT
#include "exec/overlap.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "plan/geometry.hpp"
#include "util/check.hpp"

namespace dfft::detail {

namespace {

bool contains(const std::vector<int>& v, int a) { return std::find(v.begin(), v.end(), a) != v.end(); }

bool same_range(const Layout& a, const Layout& b, int c) {
  return a.box.lo[c] == b.box.lo[c] && a.box.hi[c] == b.box.hi[c];
}

// Agreed over the plan's communicator (MPI_COMM_NULL: this process alone): v[i] := max over
// ranks of v[i].
void agree_max(MPI_Comm comm, std::vector<std::int64_t>& v) {
  if (comm == MPI_COMM_NULL) return;
  DFFT_MPI(MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_INT64_T, MPI_MAX, comm));
}

// An axis neither FFT transforms whose range is the same in every member's source and
// destination: slice i is then one global range, the same piece of every array. Decided over
// every rank of the plan, not only this exchange's members: a pencil's exchange communicators
// hold different rows of the grid, whose local extents differ (3 points over 2 ranks: 2 and 1),
// and a choice made per row would let the other grid dimension's exchange, whose members come
// from several rows, slice differently on different members (mismatched messages).
int common_axis(const OrientedStep& x, const OrientedStep* f, const OrientedStep* g, MPI_Comm comm) {
  const auto& order = x.src[0].order;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const int c = order[k];
    bool ok = !((f && contains(f->axes, c)) || (g && contains(g->axes, c)));
    std::int64_t ext = 0;
    for (std::size_t m = 0; m < x.src.size() && ok; ++m) {
      ok = same_range(x.src[m], x.src[0], c) && same_range(x.dst[m], x.src[0], c);
      ext = std::max(ext, x.src[m].box.extent(c));
    }
    // {not ok anywhere, the axis (the same everywhere?), its largest extent}
    std::vector<std::int64_t> v{ok ? 0 : 1, c, -c, ext};
    agree_max(comm, v);
    if (v[0] == 0 && v[1] == -v[2] && v[3] >= 2) return c;
  }
  return -1;
}

// The slowest axis of `order` the FFT does not transform (contiguous slices where possible).
int free_axis(const std::vector<int>& order, const std::vector<int>& fft_axes) {
  for (int c : order)
    if (!contains(fft_axes, c)) return c;
  return -1;
}

// slices_well's answer, agreed over comm (true where it is not set).
bool agreed(const SliceCheck& slices_well, const OrientedStep& f, int axis, MPI_Comm comm) {
  if (!slices_well) return true;
  std::vector<std::int64_t> bad{slices_well(f, axis) ? 0 : 1};
  agree_max(comm, bad);
  return bad[0] == 0;
}

}  // namespace

std::vector<OrientedStep> oriented_steps(const Path& path, bool inverse) {
  std::vector<OrientedStep> sched;
  const std::size_t n = path.steps.size();
  for (std::size_t j = 0; j < n; ++j) {
    const std::size_t k = inverse ? n - 1 - j : j;
    const Step& st = path.steps[k];
    OrientedStep o;
    o.path_index = k;
    o.fft = st.kind == Step::Kind::fft;
    if (o.fft) {
      o.axes = st.fft.axes;
      o.in = inverse ? st.fft.out : st.fft.in;
      o.out = inverse ? st.fft.in : st.fft.out;
    } else {
      o.src = inverse ? st.exchange.dst : st.exchange.src;
      o.dst = inverse ? st.exchange.src : st.exchange.dst;
      o.me = st.exchange.me;
      o.grid_dim = st.exchange.grid_dim;
      const Layout &a = o.src.front(), &b = o.dst.front();
      o.identity = o.src.size() == 1 && a.box == b.box && a.order == b.order &&
                   a.strides() == b.strides();
    }
    sched.push_back(std::move(o));
  }
  return sched;
}

std::vector<GroupPlan> plan_groups(const std::vector<OrientedStep>& s, MPI_Comm comm, const SliceCheck& slices_well) {
  std::vector<GroupPlan> groups;
  std::vector<bool> taken(s.size(), false);
  for (std::size_t j = 1; j + 1 < s.size(); ++j) {
    const OrientedStep& x = s[j];
    // Reshapes to user boxes stay whole; so does an exchange writing the user's output.
    // A one-member exchange is a local copy: slicing it only adds synchronisation.
    if (x.fft || x.grid_dim < 0 || x.src.size() < 2) continue;
    const OrientedStep* f = s[j - 1].fft && !taken[j - 1] ? &s[j - 1] : nullptr;
    const OrientedStep* g = s[j + 1].fft ? &s[j + 1] : nullptr;
    if (!f && !g) continue;
    GroupPlan p;
    int c = common_axis(x, f, g, comm);
    if (c >= 0 && !((!f || agreed(slices_well, *f, c, comm)) && (!g || agreed(slices_well, *g, c, comm)))) c = -1;
    if (c >= 0) {
      p.mode = GroupPlan::Mode::common;
      p.has_pre = f != nullptr;
      p.has_post = g != nullptr;
    } else {
      // One side only: the one with more transformed axes (more FFT work to hide), else (with
      // slices_well) the other where that one's slices are not acceptable.
      const bool first = f && (!g || f->axes.size() >= g->axes.size());
      bool pre = first;
      c = -1;
      for (bool side : {first, !first}) {
        const OrientedStep* h = side ? f : g;
        const int a = !h ? -1 : side ? free_axis(x.src[0].order, f->axes) : free_axis(x.dst[0].order, g->axes);
        if (a >= 0 && agreed(slices_well, *h, a, comm)) {
          c = a;
          pre = side;
          break;
        }
        if (!slices_well) break;
      }
      if (c < 0) continue;
      p.mode = pre ? GroupPlan::Mode::pre : GroupPlan::Mode::post;
      p.has_pre = pre;
      p.has_post = !pre;
    }
    p.axis = c;
    p.first = p.has_pre ? j - 1 : j;
    for (std::size_t i = p.first; i <= p.last(); ++i) taken[i] = true;
    groups.push_back(p);
  }
  return groups;
}

Layout slice_view(const Layout& l, int axis, int parts, int i, bool taper) {
  Layout v = l;
  v.padded.resize(static_cast<std::size_t>(l.box.dims()));
  for (int a = 0; a < l.box.dims(); ++a) v.padded[a] = l.alloc_extent(a);
  // Boundaries fall on even offsets from the box's start. A real array (r2c input, c2r output)
  // sliced along an axis of odd stride would otherwise start a slice at an odd element, and
  // cuFFT refuses real pointers not aligned to the complex element (CUFFT_INVALID_VALUE, seen on
  // a 2x2 pencil of 12x10x9 floats). Every layout of a group is cut by the same rule, so the
  // slices still match; a slice may come out empty, which every step handles.
  const std::int64_t n = l.box.extent(axis);
  const Range r = split_range(n, parts, i, taper);
  auto even = [n](std::int64_t b) { return b == n ? b : b - b % 2; };
  v.box.lo[axis] = l.box.lo[axis] + even(r.lo);
  v.box.hi[axis] = l.box.lo[axis] + even(r.hi);
  return v;
}

std::int64_t view_offset(const Layout& parent, const Layout& view, std::size_t elem) {
  if (view.box.empty()) return 0;
  return parent.offset_of(view.box.lo) * static_cast<std::int64_t>(elem);
}

namespace {

// Slots of GroupExec::marks for K slices.
struct Slots {
  int k;
  int begin() const { return 0; }
  int f_start(int i) const { return 1 + i; }
  int f_end(int i) const { return 1 + k + i; }
  int x_end(int i) const { return 1 + 2 * k + i; }
  int g_start(int i) const { return 1 + 3 * k + i; }
  int g_end(int i) const { return 1 + 4 * k + i; }
  int x_start(int i) const { return 1 + 5 * k + i; }
};

char* at(void* p, std::int64_t off) { return static_cast<char*>(p) + off; }

// Progress shared by the main (FFT) thread and the communication thread.
struct Progress {
  std::mutex m;
  std::condition_variable cv;
  int f_done = 0, x_done = 0;
  bool abort = false;
  std::exception_ptr error;
  void set(int& counter, int v) {
    {
      std::lock_guard<std::mutex> l(m);
      counter = v;
    }
    cv.notify_all();
  }
  // False when the other side failed.
  bool wait(const int& counter, int need) {
    std::unique_lock<std::mutex> l(m);
    cv.wait(l, [&] { return counter >= need || abort; });
    return !abort;
  }
  void fail(std::exception_ptr e) {
    {
      std::lock_guard<std::mutex> l(m);
      if (!error) error = e;
      abort = true;
    }
    cv.notify_all();
  }
};

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

void run_group(GroupExec& g, Device& dev, void* p0, void* p1, void* p2, void* p3, GroupTiming& t,
               bool post_unscaled) {
  const int k = static_cast<int>(g.slices.size());
  const Slots sl{k};
  Marks& mk = *g.marks;
  Progress pr;
  const double t0 = now();
  t = GroupTiming{};
  mk.record(sl.begin());  // everything queued before the group, on the main stream
  double& x_busy = t.x_busy;
  const bool queued = g.device_ordered;
  std::thread comm([&] {
    try {
      auto lane = dev.comm_lane();
      if (queued) {
        // Device-ordered: the communication stream waits for the work before the group and
        // for each FFT slice; every exchange is queued behind them at once. Busy time and
        // phases come from events once the group is synchronised (below).
        mk.stream_wait(sl.begin());
        for (int i = 0; i < k; ++i) {
          if (!pr.wait(pr.f_done, i + 1)) return;
          if (g.plan.has_pre) mk.stream_wait(sl.f_end(i));
          auto& s = g.slices[static_cast<std::size_t>(i)];
          mk.record(sl.x_start(i));
          s.x->enqueue(at(p1, s.x_src), at(p2, s.x_dst));
          mk.record(sl.x_end(i));
          pr.set(pr.x_done, i + 1);
        }
        return;
      }
      mk.host_wait(sl.begin());
      for (int i = 0; i < k; ++i) {
        if (!pr.wait(pr.f_done, i + 1)) return;
        if (g.plan.has_pre) mk.host_wait(sl.f_end(i));
        auto& s = g.slices[static_cast<std::size_t>(i)];
        const double c0 = now();
        s.x->execute(at(p1, s.x_src), at(p2, s.x_dst), t.x);
        mk.record(sl.x_end(i));
        x_busy += now() - c0;
        pr.set(pr.x_done, i + 1);
      }
    } catch (...) {
      pr.fail(std::current_exception());
    }
  });
  try {
    for (int i = 0; i < k; ++i) {
      auto& s = g.slices[static_cast<std::size_t>(i)];
      if (g.plan.has_pre) {
        mk.record(sl.f_start(i));
        if (!s.f_empty) s.f->execute(at(p0, s.f_in), at(p1, s.f_out));
        mk.record(sl.f_end(i));
      }
      pr.set(pr.f_done, i + 1);
    }
    for (int i = 0; i < k && g.plan.has_post; ++i) {
      if (!pr.wait(pr.x_done, i + 1)) break;
      auto& s = g.slices[static_cast<std::size_t>(i)];
      mk.stream_wait(sl.x_end(i));
      mk.record(sl.g_start(i));
      if (!s.g_empty) {
        if (post_unscaled)
          s.g->execute_unscaled(at(p2, s.g_in), at(p3, s.g_out));
        else
          s.g->execute(at(p2, s.g_in), at(p3, s.g_out));
      }
      mk.record(sl.g_end(i));
    }
  } catch (...) {
    pr.fail(std::current_exception());
  }
  comm.join();
  if (pr.error) std::rethrow_exception(pr.error);
  if (!g.plan.has_post) mk.stream_wait(sl.x_end(k - 1));
  dev.synchronize();
  for (int i = 0; i < k; ++i) {
    if (g.plan.has_pre) t.f_busy += mk.seconds(sl.f_start(i), sl.f_end(i));
    if (g.plan.has_post) t.g_busy += mk.seconds(sl.g_start(i), sl.g_end(i));
  }
  if (queued) {
    // Exchange busy time: from each slice's start mark (after its FFT slice) to its end mark,
    // waits for peers included, as the host-timed path counts them. The phases the transport
    // measured with its own events; "comm" gets the rest of the busy time.
    for (int i = 0; i < k; ++i) {
      const double busy = mk.seconds(sl.x_start(i), sl.x_end(i));
      StageTiming part;
      g.slices[static_cast<std::size_t>(i)].x->collect(part);
      t.x.pack += part.pack;
      t.x.unpack += part.unpack;
      t.x.comm += std::max(part.comm, busy - part.pack - part.unpack);
      t.x_busy += busy;
    }
  }
  t.wall = now() - t0;
}

}  // namespace dfft::detail
