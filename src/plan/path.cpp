// SPDX-License-Identifier: MIT
#include "plan/path.hpp"

#include <algorithm>
#include <sstream>

#include "plan/axes.hpp"
#include "util/check.hpp"

namespace dfft::detail {

namespace {

// A decomposition is a list of distributions and the axes transformed in each.
struct Recipe {
  std::vector<Distribution> dists;
  std::vector<std::vector<int>> axes;
};

std::vector<int> range(int lo, int hi) {
  std::vector<int> v;
  for (int i = lo; i < hi; ++i) v.push_back(i);
  return v;
}

Recipe recipe_for(Decomposition dec, int d, int g) {
  Recipe r;
  switch (dec) {
    case Decomposition::slab_2d1d:  // FFT(axes 1..d-1) -> exchange -> FFT(axis 0)
      r.dists = {{0}, {1}};
      r.axes = {range(1, d), {0}};
      break;
    case Decomposition::slab_1d2d:  // FFT(last axis) -> exchange -> FFT(axes 0..d-2)
      r.dists = {{0}, {d - 1}};
      r.axes = {{d - 1}, range(0, d - 1)};
      break;
    case Decomposition::pencil: {  // grid dim j splits axis j, then hands it on to axis j+1
      Distribution cur = range(0, g);
      r.dists.push_back(cur);
      r.axes.push_back(range(g, d));
      for (int j = g - 1; j >= 0; --j) {
        cur[j] = j + 1;
        r.dists.push_back(cur);
        r.axes.push_back({j});
      }
      break;
    }
    case Decomposition::automatic:
      fail("decomposition auto is settled when a plan is made; a path (and the model's prediction) "
           "needs slab-2d1d, slab-1d2d or pencil");
  }
  return r;
}

// The recipe is written for logical axes (all transformed, the last one halved); map it onto
// the array through ax.perm, drop the untransformed axes from the FFT stages and the stages
// left with nothing to transform (only trailing ones: untransformed axes come first in
// ax.perm, and every recipe transforms its first axes last).
void map_recipe(Recipe& r, const AxesPlan& ax) {
  for (auto& dist : r.dists)
    for (auto& a : dist) a = ax.perm[a];
  for (auto& stage : r.axes) {
    std::vector<int> kept;
    for (int l : stage)
      if (ax.transformed[ax.perm[l]]) kept.push_back(ax.perm[l]);
    stage = kept;
  }
  while (r.axes.size() > 1 && r.axes.back().empty()) {
    r.axes.pop_back();
    r.dists.pop_back();
  }
}

// Realigned: the FFT before an exchange writes the axis the exchange will split slowest, so
// every block it sends is one contiguous run (no packing).
std::vector<int> realigned_order(int dims, int split_axis) {
  std::vector<int> o{split_axis};
  for (int a = 0; a < dims; ++a)
    if (a != split_axis) o.push_back(a);
  return o;
}

// Options::transposed_out: the last stage's FFT axes moved next to the innermost axis (kept
// innermost when that stage does not transform it), the other axes slowest in their order. For a
// slab-2d1d or pencil's last 1-D stage over x this is (y, x, z): consecutive x are N/2+1 apart
// instead of (the rank's y share) x (N/2+1), which is what makes that stage as fast as the others
// (FFTW-MPI's FFTW_MPI_TRANSPOSED_OUT order).
std::vector<int> transposed_order(int dims, const std::vector<int>& fft_axes) {
  auto transformed = [&](int a) { return std::find(fft_axes.begin(), fft_axes.end(), a) != fft_axes.end(); };
  const int inner = dims - 1;
  std::vector<int> o;
  for (int a = 0; a < dims; ++a)
    if (!transformed(a) && a != inner) o.push_back(a);
  for (int a = 0; a < dims; ++a)
    if (transformed(a)) o.push_back(a);
  if (!transformed(inner)) o.push_back(inner);
  return o;
}

// r2r kinds are per axis; which combinations a plan can take is decided here, once.
void check_r2r(const Options& opt, const std::vector<std::int64_t>& shape, const AxesPlan& ax) {
  const int d = static_cast<int>(shape.size());
  if (!opt.r2r.empty() && static_cast<int>(opt.r2r.size()) != d)
    fail("r2r takes one kind per axis (", d, " for this array), got ", opt.r2r.size());
  bool any = false, all = !opt.r2r.empty();
  for (int a = 0; a < static_cast<int>(opt.r2r.size()); ++a) {
    const bool kind = opt.r2r[a] != R2R::none;
    if (kind && !ax.transformed[a])
      fail("r2r: axis ", a, " has a DCT/DST kind but is not transformed (axes); give it kind none");
    any |= kind;
    if (ax.transformed[a]) all &= kind;
  }
  if (opt.transform == Transform::r2r && !all)
    fail("transform r2r needs a real kind (dct1..dct4, dst1..dst4, r2hc, hc2r, dht) on every axis it transforms; "
         "for periodic axes mixed with DCT/DST axes use transform c2c (complex data) or r2c (real "
         "input, halved axis periodic) with r2r kinds on the DCT/DST axes");
  if (opt.transform == Transform::r2c && any && ax.halved >= 0 && opt.r2r[ax.halved] != R2R::none)
    fail("with transform r2c the halved real-to-complex axis (", ax.halved, ", the last transformed) "
         "must be periodic (r2r kind none), got ", to_string(opt.r2r[ax.halved]), "; put the DCT/DST "
         "axes elsewhere, or use c2c");
  for (int a = 0; a < static_cast<int>(opt.r2r.size()); ++a) {
    if (!r2r_is_fftw_only(opt.r2r[a])) continue;
    // Halfcomplex and Hartley data are no real or imaginary part of a complex array: these kinds
    // take real data on every axis, and only FFTW runs them.
    if (opt.transform != Transform::r2r)
      fail("r2r kind ", to_string(opt.r2r[a]), " (axis ", a, ") needs transform r2r (a real kind on every "
           "transformed axis), got transform ", to_string(opt.transform));
    if (opt.backend == Backend::cuda)
      unsupported("r2r kind ", to_string(opt.r2r[a]), " (axis ", a, ") has no implementation on the CUDA "
                  "backend (FFTW's r2r on the CPU backend runs it)");
  }
  for (int a = 0; a < static_cast<int>(opt.r2r.size()); ++a)
    // DCT-I's logical size 2(n-1) vanishes at n = 1 (FFTW's REDFT00 needs n >= 2).
    if (r2r_type(opt.r2r[a]) == 1 && !r2r_is_sine(opt.r2r[a]) && shape[a] < 2)
      fail("dct1 needs at least 2 points on its axis; axis ", a, " has ", shape[a],
           " (use dct2 or none on a length-1 axis)");
  // The codecs code complex elements; r2r exchanges move reals.
  if (opt.transform == Transform::r2r && (opt.codec != Codec::none || opt.tolerance > 0))
    unsupported("compressed exchanges (codec, tolerance) are not implemented for transform r2r");
}

template <class T>
std::string join(const std::vector<T>& v, char sep = ',') {
  std::ostringstream s;
  for (std::size_t i = 0; i < v.size(); ++i) s << (i ? std::string(1, sep) : "") << v[i];
  return s.str();
}

}  // namespace

std::vector<std::int64_t> spectral_shape(const std::vector<std::int64_t>& shape, Transform t) {
  auto s = shape;
  if (t == Transform::r2c) s.back() = s.back() / 2 + 1;
  return s;
}

std::vector<int> choose_grid(Decomposition dec, const std::vector<int>& requested, int ranks,
                             int dims) {
  if (requested.empty()) {
    if (dec != Decomposition::pencil || dims == 2) return {ranks};
    return factor_grid(ranks, 2);
  }
  std::int64_t prod = 1;
  for (int g : requested) {
    if (g < 1) fail("grid entries must be positive, got ", join(requested, 'x'));
    prod *= g;
  }
  if (prod != ranks)
    fail("grid ", join(requested, 'x'), " has ", prod, " ranks but the communicator has ",
         ranks, "; give a grid whose product is ", ranks, " (e.g. ",
         join(factor_grid(ranks, static_cast<int>(requested.size())), 'x'), ")");
  if (dec != Decomposition::pencil && requested.size() != 1)
    fail("a slab decomposition takes a 1-D grid (", ranks, "), got ", join(requested, 'x'));
  if (dec == Decomposition::pencil && static_cast<int>(requested.size()) > dims - 1)
    fail("a pencil grid of a ", dims, "-D array has at most ", dims - 1, " dimensions, got ",
         join(requested, 'x'));
  return requested;
}

namespace {

Layout with_batch(const Layout& l, std::int64_t b) {
  Layout r;
  r.box.lo = l.box.lo;
  r.box.hi = l.box.hi;
  r.box.lo.insert(r.box.lo.begin(), 0);
  r.box.hi.insert(r.box.hi.begin(), b);
  r.order.push_back(0);
  for (int a : l.order) r.order.push_back(a + 1);
  if (!l.padded.empty()) {
    r.padded = l.padded;
    r.padded.insert(r.padded.begin(), b);
  }
  if (!l.offset.empty()) {
    r.offset = l.offset;
    r.offset.insert(r.offset.begin(), 0);
  }
  return r;
}

// The layout without its batch axis (the first).
Layout without_batch(const Layout& l) {
  Layout r;
  r.box.lo.assign(l.box.lo.begin() + 1, l.box.lo.end());
  r.box.hi.assign(l.box.hi.begin() + 1, l.box.hi.end());
  for (int a : l.order)
    if (a > 0) r.order.push_back(a - 1);
  if (!l.padded.empty()) r.padded.assign(l.padded.begin() + 1, l.padded.end());
  return r;
}

bool same_layout(const Layout& a, const Layout& b) {
  if (a.box.empty() && b.box.empty()) return true;
  return a.box == b.box && a.order == b.order && a.strides() == b.strides();
}

// An exchange within a one-member communicator moves nothing: the FFTs on either side of it
// become one FFT over all their axes, one FFTW/cuFFT plan instead of several strided ones
// (cuFFT plans at most 3 axes at once). Axes sorted, but the halved r2c axis stays last.
void merge_local_stages(Path& p, std::size_t max_axes, bool keep_reorders) {
  // keep_reorders: an FFT that changes the order stays apart from the FFT before it.
  std::vector<Step> steps;
  std::vector<Distribution> dists;
  std::size_t fi = 0;  // FFT steps seen
  for (std::size_t k = 0; k < p.steps.size(); ++k) {
    const Step& st = p.steps[k];
    if (st.kind == Step::Kind::fft) {
      steps.push_back(st);
      dists.push_back(p.distributions[fi++]);
      continue;
    }
    const auto& e = st.exchange;
    FftStep& a = steps.back().fft;
    const FftStep& b = p.steps[k + 1].fft;
    if (e.src.size() == 1 && same_layout(e.src[0], e.dst[0]) && a.axes.size() + b.axes.size() <= max_axes &&
        !(keep_reorders && a.in.order != b.out.order)) {
      const int halved = a.axes.back();
      a.axes.insert(a.axes.end(), b.axes.begin(), b.axes.end());
      std::sort(a.axes.begin(), a.axes.end());
      if (a.r2c) {
        a.axes.erase(std::find(a.axes.begin(), a.axes.end(), halved));
        a.axes.push_back(halved);
      }
      a.out = b.out;
      ++k;
      ++fi;
      continue;
    }
    steps.push_back(st);
  }
  p.steps = std::move(steps);
  p.distributions = std::move(dists);
}

}  // namespace

void check_tiling(const std::vector<Layout>& ls, const std::vector<std::int64_t>& shape,
                  const char* what) {
  const int d = static_cast<int>(shape.size());
  double total = 1, sum = 0;
  for (auto n : shape) total *= static_cast<double>(n);
  for (std::size_t r = 0; r < ls.size(); ++r) {
    const Layout& l = ls[r];
    if (l.box.dims() != d || static_cast<int>(l.box.hi.size()) != d ||
        static_cast<int>(l.order.size()) != d)
      fail(what, " layout of rank ", r, " has the wrong number of dimensions (want ", d, ")");
    auto sorted = l.order;
    std::sort(sorted.begin(), sorted.end());
    if (sorted != natural_order(d))
      fail(what, " layout of rank ", r, ": order must be a permutation of 0..", d - 1);
    for (int a = 0; a < d; ++a) {
      if (l.box.lo[a] < 0 || l.box.hi[a] > shape[a] || l.box.lo[a] > l.box.hi[a])
        fail(what, " box of rank ", r, " leaves the global array on axis ", a, " ([", l.box.lo[a],
             ", ", l.box.hi[a], ") not inside [0, ", shape[a], "))");
      if (!l.offset.empty() && (static_cast<int>(l.offset.size()) != d || l.offset[a] < 0))
        fail(what, " layout of rank ", r, ": offset needs ", d, " entries >= 0 (axis ", a, ")");
      if (!l.padded.empty() && static_cast<int>(l.padded.size()) != d)
        fail(what, " layout of rank ", r, ": padded needs ", d, " entries");
      if (!l.padded.empty() && l.padded[a] < l.box.extent(a) + l.offset_on(a))
        fail(what, " layout of rank ", r, ": the allocated extent (padded) of axis ", a, " is ", l.padded[a],
             ", less than the offset ", l.offset_on(a), " plus the box extent ", l.box.extent(a));
    }
    sum += static_cast<double>(l.box.count());
    for (std::size_t q = 0; q < r; ++q)
      if (!intersect(l.box, ls[q].box).empty())
        fail(what, " boxes of ranks ", q, " and ", r, " overlap");
  }
  if (sum != total)
    fail(what, " boxes cover ", sum, " of the ", total, " elements of the global array");
}

namespace {

// Global shapes along the path: at[i + 1] is the shape after FFT stage i, at[0] the physical
// input. An axis has its spectral size from the stage that transforms it on.
std::vector<std::vector<std::int64_t>> stage_shapes(const Recipe& rec, const std::vector<std::int64_t>& phys,
                                                    const std::vector<std::int64_t>& spec) {
  std::vector<std::vector<std::int64_t>> at{phys};
  for (const auto& stage : rec.axes) {
    auto s = at.back();
    for (int a : stage) s[a] = spec[a];
    at.push_back(s);
  }
  return at;
}

// Padding: the FFT of a padded axis yields the whole padded spectrum (`wide`, of shape `full`
// on its axes); the executor truncates it to `out` (forward) or zero-pads `out` into it.
void add_wide(Path& p, const std::vector<std::int64_t>& full) {
  for (auto& st : p.steps) {
    if (st.kind != Step::Kind::fft) continue;
    Layout w = st.fft.out;
    bool differs = false;
    for (int a : st.fft.axes)
      if (full[a] != w.box.extent(a)) {
        w.box.lo[a] = 0;
        w.box.hi[a] = full[a];
        differs = true;
      }
    if (differs) st.fft.wide = w;
  }
}

void check_sizes(const std::vector<std::int64_t>& shape, const Options& opt) {
  const int d = static_cast<int>(shape.size());
  if (d < 2) fail("arrays need at least 2 dimensions, got ", d);
  for (auto n : shape)
    if (n < 1) fail("every size must be at least 1, got ", n);
  if (opt.batch < 1) fail("batch must be at least 1, got ", opt.batch);
  // element counts and byte offsets are int64: refuse arrays whose size in bytes overflows it
  std::int64_t bytes = 16 * static_cast<std::int64_t>(opt.batch);  // complex<double> elements
  for (auto n : shape)
    if (__builtin_mul_overflow(bytes, n, &bytes))
      fail("the global array ", join(shape, 'x'), " (batch ", opt.batch, ") is too large: its size in bytes overflows 64 bits");
}

// The FFT stages and exchanges of the decomposition for this rank (no user reshapes).
void add_stages(Path& p, const Recipe& rec, const std::vector<std::vector<std::int64_t>>& at,
                const std::vector<std::vector<int>>& out_order, const std::vector<std::vector<int>>& in_order,
                const Layout& input, const std::vector<R2R>& kinds, bool r2c, bool reals) {
  const auto& grid = p.grid;
  const std::size_t n = rec.dists.size();
  for (std::size_t i = 0; i < n; ++i) {
    Step f{Step::Kind::fft, {}, {}};
    f.fft.axes = rec.axes[i];
    f.fft.r2c = r2c && i == 0;
    f.fft.r2r = kinds;
    f.fft.in = i == 0 ? input : Layout{box_of(at[i], rec.dists[i], grid, p.coords), in_order[i], {}};
    f.fft.out = {box_of(at[i + 1], rec.dists[i], grid, p.coords), out_order[i], {}};
    p.steps.push_back(f);
    if (i + 1 == n) break;
    Step e{Step::Kind::exchange, {}, {}};
    int gd = 0;
    while (rec.dists[i][gd] == rec.dists[i + 1][gd]) ++gd;
    e.exchange.grid_dim = gd;
    e.exchange.real = reals;
    e.exchange.me = p.coords[gd];
    e.exchange.index = static_cast<int>(i);
    for (int k = 0; k < grid[gd]; ++k) {
      auto c = p.coords;
      c[gd] = k;
      e.exchange.src.push_back({box_of(at[i + 1], rec.dists[i], grid, c), out_order[i], {}});
      e.exchange.dst.push_back({box_of(at[i + 1], rec.dists[i + 1], grid, c), in_order[i + 1], {}});
    }
    p.steps.push_back(e);
  }
  p.exchanges = static_cast<int>(n) - 1;
}

// Reshapes from/to the user's boxes, over the whole communicator, only where they differ.
// `direct`: a user layout that differs from the decomposition's only in its halo, padding or
// memory order (every rank's box the same) is read by the first FFT, or written by the last, in
// place of a reshape: FFTW's guru plans take any strides, and an axis order is strides too (an
// FFT step's input and output orders may differ, as the realigned variant's do).
void add_user_reshapes(Path& p, const UserLayouts& user, const std::vector<Layout>& pin,
                       const std::vector<Layout>& pout, const std::vector<std::int64_t>& phys,
                       const std::vector<std::int64_t>& spec, int batch, int rank, bool real_in, bool reals,
                       bool direct) {
  const auto nranks = pin.size();
  auto reshape = [&](const std::vector<Layout>& from, const std::vector<Layout>& to, bool real_elems) {
    Step e{Step::Kind::exchange, {}, {}};
    e.exchange.grid_dim = -1;
    e.exchange.real = real_elems;
    e.exchange.me = rank;
    e.exchange.src = from;
    e.exchange.dst = to;
    return e;
  };
  auto differs = [](const std::vector<Layout>& a, const std::vector<Layout>& b) {
    for (std::size_t r = 0; r < a.size(); ++r)
      if (!same_layout(a[r], b[r])) return true;
    return false;
  };
  auto strides_differ_only = [](const std::vector<Layout>& a, const std::vector<Layout>& b) {
    for (std::size_t r = 0; r < a.size(); ++r)
      if (!(a[r].box.empty() && b[r].box.empty()) && !(a[r].box == b[r].box)) return false;
    return true;
  };
  if (user.in.size() != nranks || user.out.size() != nranks)
    fail("give an input and an output layout for every one of the ", nranks, " ranks");
  check_tiling(user.in, phys, "input");
  check_tiling(user.out, spec, "output");
  std::vector<Layout> uin, uout, sin, sout;
  for (std::size_t r = 0; r < nranks; ++r) {
    uin.push_back(batch > 1 ? with_batch(user.in[r], batch) : user.in[r]);
    uout.push_back(batch > 1 ? with_batch(user.out[r], batch) : user.out[r]);
    // The steps see the caller's arrays from the box's first element (PlanImpl moves the pointers).
    sin.push_back(from_box_start(uin.back()));
    sout.push_back(from_box_start(uout.back()));
  }
  // (A step that truncates or zero-pads the spectrum, Options::padding, reads and writes its
  // own buffer layouts: a reshape stays there.)
  FftStep& last = p.steps.back().fft;
  if (differs(pout, sout)) {
    if (direct && last.wide.box.dims() == 0 && strides_differ_only(pout, sout)) last.out = sout[static_cast<std::size_t>(rank)];
    else p.steps.push_back(reshape(pout, sout, reals));
  }
  FftStep& first = p.steps.front().fft;
  if (differs(sin, pin)) {
    if (direct && first.wide.box.dims() == 0 && strides_differ_only(sin, pin)) first.in = sin[static_cast<std::size_t>(rank)];
    else p.steps.insert(p.steps.begin(), reshape(sin, pin, real_in));
  }
  p.input = uin[static_cast<std::size_t>(rank)];
  p.output = uout[static_cast<std::size_t>(rank)];
}

}  // namespace

Path make_path(const std::vector<std::int64_t>& shape, const Options& opt,
               const std::vector<int>& grid, int rank, const UserLayouts& user) {
  check_sizes(shape, opt);
  const int d = static_cast<int>(shape.size());
  const AxesPlan ax = plan_axes(shape, opt);
  check_r2r(opt, shape, ax);
  Recipe rec = recipe_for(opt.decomposition, d, static_cast<int>(grid.size()));
  map_recipe(rec, ax);
  // A batch is one more axis in front: never split, never transformed, slowest in memory.
  const int o = opt.batch > 1 ? 1 : 0;
  for (auto& dist : rec.dists)
    for (auto& a : dist) a += o;
  for (auto& st : rec.axes)
    for (auto& a : st) a += o;
  auto phys = ax.physical;
  auto spec = spectral_shape(shape, opt);
  auto full = spectral_shape(phys, opt);  // spectrum of the padded grid
  if (o)
    for (auto* s : {&phys, &spec, &full}) s->insert(s->begin(), opt.batch);
  const auto at = stage_shapes(rec, phys, spec);
  const int D = d + o;
  const bool r2c = opt.transform == Transform::r2c;
  std::vector<R2R> kinds;  // per axis of the layouts (batch axis first, never transformed)
  for (R2R k : opt.r2r)
    if (k != R2R::none) kinds = opt.r2r;
  if (!kinds.empty() && o) kinds.insert(kinds.begin(), R2R::none);

  const std::size_t n = rec.dists.size();
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t g = 0; g < grid.size(); ++g) {
      const int a = rec.dists[i][g];
      if (at[i + 1][a] < grid[g])
        fail("axis ", a - o, " has ", at[i + 1][a], " elements",
             (i > 0 && r2c && a == ax.halved + o ? " (n/2+1)" : ""), " but ", to_string(opt.decomposition),
             " splits it over ", grid[g], " ranks; use fewer ranks on that grid dimension or another decomposition");
    }

  Path p;
  p.grid = grid;
  p.coords = grid_coords(grid, rank);
  p.distributions = rec.dists;
  std::vector<std::vector<int>> out_order(n, natural_order(D));
  if (opt.variant == Variant::Realigned)
    for (std::size_t i = 0; i + 1 < n; ++i)
      for (std::size_t g = 0; g < grid.size(); ++g)
        // (a grid dimension of 1 moves nothing: its exchange stays an identity, skipped)
        if (rec.dists[i][g] != rec.dists[i + 1][g] && grid[g] > 1)
          out_order[i] = realigned_order(D, rec.dists[i + 1][g]);
  // The stages' input orders after each exchange (the first stage reads the plan's input).
  std::vector<std::vector<int>> in_order(n, natural_order(D));
  // On the CPU, a last exchange over a grid dimension of one rank (it moves nothing) leaves the
  // reordering to the last FFT, which gathers its blocks from the order before (FFTW's plans
  // of the CPU backend copy block by block and transform each block in cache): the FFT before
  // writes its natural order, and the two stay apart. One FFTW plan of every axis with permuted
  // output strides took 2.9x (r2c) and 7.7x (c2c) as long to plan, and ran the forward 1.05-1.25x
  // as long, the inverse 0.93-0.99x (128^3, one rank, 2-core machine; docs/results/fftw-mpi.md).
  bool reorder_last = false;
  if (opt.transposed_out) {
    out_order[n - 1] = transposed_order(D, rec.axes[n - 1]);
    if (n > 1) in_order[n - 1] = out_order[n - 1];
    if (n > 1 && opt.backend == Backend::cpu && kinds.empty() && D >= 3 && out_order[n - 1] != natural_order(D)) {
      std::size_t g = 0;
      while (g < grid.size() && rec.dists[n - 2][g] == rec.dists[n - 1][g]) ++g;
      if (g < grid.size() && grid[g] == 1) {
        in_order[n - 1] = natural_order(D);
        reorder_last = true;
      }
    }
    // An exchange over a grid dimension of one rank moves nothing: the FFT before it writes the
    // order the next stage reads, so the two still merge into one FFT (merge_local_stages).
    for (std::size_t i = n - 1; i-- > 0;) {
      std::size_t g = 0;
      while (g < grid.size() && rec.dists[i][g] == rec.dists[i + 1][g]) ++g;
      if (g < grid.size() && grid[g] == 1) out_order[i] = in_order[i + 1];
    }
  }
  // This decomposition's input layout of any rank (padded for in-place r2c).
  auto input_of = [&](const std::vector<int>& c) {
    Layout l{box_of(at[0], rec.dists[0], grid, c), natural_order(D), {}};
    if (r2c && opt.in_place) {
      for (int a = 0; a < D; ++a) l.padded.push_back(l.box.extent(a));
      l.padded[D - 1] = 2 * (shape.back() / 2 + 1);
    }
    return l;
  };
  auto output_of = [&](const std::vector<int>& c) {
    return Layout{box_of(at[n], rec.dists[n - 1], grid, c), out_order[n - 1], {}};
  };
  add_stages(p, rec, at, out_order, in_order, input_of(p.coords), kinds, r2c, opt.transform == Transform::r2r);
  merge_local_stages(p, opt.backend == Backend::cuda ? 3 : static_cast<std::size_t>(D), reorder_last);
  add_wide(p, full);
  p.input = p.steps.front().fft.in;
  p.output = p.steps.back().fft.out;
  const bool halo = !opt.input_halo.empty() || !opt.output_halo.empty();
  if (halo && opt.in_place)
    fail("input_halo and output_halo are not with in_place (the halo'd input and output are two arrays)");
  if (halo && !user.in.empty())
    fail("input_halo and output_halo are for plans without user boxes: give the box constructor's layouts "
         "their offset and padded extents (dfft::with_halo)");
  bool offsets = false;
  for (const auto* side : {&user.in, &user.out})
    for (const Layout& l : *side) offsets |= has_offset(l);
  if ((halo || offsets) && opt.backend == Backend::cuda)
    unsupported(halo ? "input_halo and output_halo" : "layouts with an offset (a halo below the box)",
                " are CPU backend options: the CUDA backend reads and writes dense or padded arrays only");
  if (!user.in.empty() || !user.out.empty() || halo) {
    int nranks = 1;
    for (int g : grid) nranks *= g;
    std::vector<Layout> pin, pout;
    for (int r = 0; r < nranks; ++r) {
      pin.push_back(input_of(grid_coords(grid, r)));
      pout.push_back(output_of(grid_coords(grid, r)));
    }
    UserLayouts u = user;
    if (halo)
      for (int r = 0; r < nranks; ++r) {
        const Layout in = o ? without_batch(pin[r]) : pin[r], out = o ? without_batch(pout[r]) : pout[r];
        u.in.push_back(opt.input_halo.empty() ? in : with_halo(in, opt.input_halo));
        u.out.push_back(opt.output_halo.empty() ? out : with_halo(out, opt.output_halo));
      }
    add_user_reshapes(p, u, pin, pout, ax.physical, spectral_shape(shape, opt), opt.batch, rank,
                      r2c || opt.transform == Transform::r2r, opt.transform == Transform::r2r,
                      opt.backend == Backend::cpu && !opt.in_place);
  }
  return p;
}

std::string describe(const Path& p) {
  auto lay = [](const Layout& l) {
    std::ostringstream s;
    s << "[";
    for (int a = 0; a < l.box.dims(); ++a) s << (a ? "," : "") << l.box.lo[a] << ":" << l.box.hi[a];
    s << "] order(" << join(l.order) << ")";
    return s.str();
  };
  std::ostringstream s;
  for (const auto& st : p.steps) {
    if (st.kind == Step::Kind::fft) {
      s << (st.fft.r2c ? "r2c" : "fft") << " axes(" << join(st.fft.axes) << ")";
      for (int a : st.fft.axes)
        if (!st.fft.r2r.empty() && st.fft.r2r[a] != R2R::none)
          s << " " << to_string(st.fft.r2r[a]) << "(" << a << ")";
      s << " " << lay(st.fft.in)
        << " -> " << lay(st.fft.out) << "\n";
    } else {
      const auto& e = st.exchange;
      bool pack = false, unpack = false;
      for (std::size_t k = 0; k < e.src.size(); ++k) {
        if (static_cast<int>(k) == e.me) continue;
        Box sb = intersect(e.src[e.me].box, e.dst[k].box);
        Box rb = intersect(e.src[k].box, e.dst[e.me].box);
        pack |= !is_contiguous(sb, e.src[e.me]);
        unpack |= !same_image(rb, e.src[k].order, e.dst[e.me]);
      }
      s << (e.grid_dim < 0 ? std::string("reshape over all") : "exchange over grid dim " + std::to_string(e.grid_dim))
        << " (" << e.src.size() << " ranks) "
        << lay(e.src[e.me]) << " -> " << lay(e.dst[e.me]) << (pack ? " pack" : " no-pack")
        << (unpack ? " unpack" : " no-unpack") << "\n";
    }
  }
  return s.str();
}

}  // namespace dfft::detail
