// SPDX-License-Identifier: MIT
// FFT/exchange overlap (docs/overlap.md). An exchange and the FFT steps next to it form a
// group; the group runs in K slices along an axis the exchange's pieces do not depend on, so
// that slice i is exchanged (on a communication thread, and on GPUs on a second stream) while
// slice i+1 is transformed. Slices are strided views of the same arrays (Layout::padded keeps
// the parent's extents), so every transport and local FFT works on them unchanged.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "backend/device.hpp"
#include "plan/path.hpp"
#include "transport/transport.hpp"

namespace dfft::detail {

/// One step of a path as executed in one direction (the inverse runs the steps backwards
/// with FFT input/output and exchange source/destination swapped).
struct OrientedStep {
  std::size_t path_index = 0;
  bool fft = false;
  std::vector<int> axes;  // fft: transformed axes
  Layout in, out;         // fft
  std::vector<Layout> src, dst;  // exchange, per member of the sub-communicator
  int me = 0, grid_dim = 0;
  // exchange: one member whose source and destination layouts are the same (a pencil grid
  // dimension of 1): nothing moves, the executor skips it.
  bool identity = false;
};

/// How an exchange is sliced: `common` slices the same global range on every member (then the
/// FFTs on both sides can be sliced); `pre` slices each member's source range (the FFT before
/// the exchange overlaps it); `post` each member's destination range (the FFT after it).
struct GroupPlan {
  enum class Mode { common, pre, post } mode = Mode::common;
  std::size_t first = 0;  // schedule index of the group's first step
  bool has_pre = false, has_post = false;
  int axis = 0;
  std::size_t x() const { return first + (has_pre ? 1 : 0); }
  std::size_t last() const { return x() + (has_post ? 1 : 0); }
};

/// A path's steps in the order one direction executes them.
std::vector<OrientedStep> oriented_steps(const Path& p, bool inverse);

/// Groups for a direction's schedule: each grid exchange with the FFT before and/or after it
/// (an FFT belongs to at most one group). Collective over `comm`, the plan's communicator: every
/// rank forms the same groups (MPI_COMM_NULL: decided from this process's geometry alone).
/// `slices_well` (where set): whether slicing an FFT step along an axis is acceptable; the
/// groups slice only along such axes (GPUs: where the slices together take no more cuFFT
/// launches than the whole step, or one each). Its answers are agreed over `comm`.
using SliceCheck = std::function<bool(const OrientedStep& fft, int axis)>;
std::vector<GroupPlan> plan_groups(const std::vector<OrientedStep>& sched, MPI_Comm comm,
                                   const SliceCheck& slices_well = {});

/// `l` restricted along `axis` to part i of K of its own range: a view of the same memory.
/// Balanced parts, or with `taper` (K >= 3) a first and a last part of half the others' share.
Layout slice_view(const Layout& l, int axis, int parts, int i, bool taper = false);
/// Byte offset of a view's first element inside its parent array (0 for an empty view).
std::int64_t view_offset(const Layout& parent, const Layout& view, std::size_t elem);

/// The sliced executors of one group in one direction, and the marks that order them.
struct GroupExec {
  GroupPlan plan;
  struct Slice {
    std::unique_ptr<LocalFft> f, g;
    std::unique_ptr<Transport> x;
    std::int64_t f_in = 0, f_out = 0, x_src = 0, x_dst = 0, g_in = 0, g_out = 0;  // bytes
    bool f_empty = false, g_empty = false;
  };
  std::vector<Slice> slices;
  std::unique_ptr<Marks> marks;
  // Every slice's exchange can be queued on the device (Transport::can_enqueue): the
  // communication thread then orders them after the FFT slices with stream waits and never
  // waits for the GPU itself.
  bool device_ordered = false;
};

/// What run_group measured: busy time per engine, summed over slices, and the wall time.
struct GroupTiming {
  double f_busy = 0, g_busy = 0, x_busy = 0, wall = 0;
  StageTiming x;
};

/// Run a group: p0 -> F -> p1 -> X -> p2 -> G -> p3 (absent steps: p1 = p0 or p3 = p2).
/// `post_unscaled`: the FFT slices after the exchange skip the normalisation they would apply
/// (LocalFft::execute_unscaled): the caller applied it already.
void run_group(GroupExec& g, Device& dev, void* p0, void* p1, void* p2, void* p3, GroupTiming& t,
               bool post_unscaled = false);

}  // namespace dfft::detail
