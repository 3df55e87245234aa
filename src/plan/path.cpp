#include "plan/path.hpp"

#include <algorithm>
#include <sstream>

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
  }
  return r;
}

// Realigned: the FFT before an exchange writes the axis the exchange will split slowest, so
// every block it sends is one contiguous run (no packing).
std::vector<int> realigned_order(int dims, int split_axis) {
  std::vector<int> o{split_axis};
  for (int a = 0; a < dims; ++a)
    if (a != split_axis) o.push_back(a);
  return o;
}

std::string join(const std::vector<int>& v, char sep = ',') {
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

Path make_path(const std::vector<std::int64_t>& shape, const Options& opt,
               const std::vector<int>& grid, const std::vector<int>& coords) {
  const int d = static_cast<int>(shape.size());
  if (d < 2) fail("arrays need at least 2 dimensions, got ", d);
  for (auto n : shape)
    if (n < 1) fail("every size must be at least 1, got ", n);
  Recipe rec = recipe_for(opt.decomposition, d, static_cast<int>(grid.size()));
  const auto real = shape;
  const auto spec = spectral_shape(shape, opt.transform);
  const bool r2c = opt.transform == Transform::r2c;

  for (std::size_t i = 0; i < rec.dists.size(); ++i)
    for (std::size_t g = 0; g < grid.size(); ++g) {
      int ax = rec.dists[i][g];
      auto n = (i == 0 ? real : spec)[ax];
      if (n < grid[g])
        fail("axis ", ax, " has ", n, " elements", (i > 0 && r2c && ax == d - 1 ? " (n/2+1)" : ""),
             " but ", to_string(opt.decomposition), " splits it over ", grid[g],
             " ranks; use fewer ranks on that grid dimension or another decomposition");
    }

  Path p;
  p.grid = grid;
  p.coords = coords;
  p.distributions = rec.dists;
  const auto nat = natural_order(d);
  const std::size_t n = rec.dists.size();
  std::vector<std::vector<int>> out_order(n, nat);
  if (opt.variant == Variant::Realigned)
    for (std::size_t i = 0; i + 1 < n; ++i)
      for (std::size_t g = 0; g < grid.size(); ++g)
        if (rec.dists[i][g] != rec.dists[i + 1][g])
          out_order[i] = realigned_order(d, rec.dists[i + 1][g]);

  for (std::size_t i = 0; i < n; ++i) {
    Step f{Step::Kind::fft, {}, {}};
    f.fft.axes = rec.axes[i];
    f.fft.r2c = r2c && i == 0;
    f.fft.in = {box_of(f.fft.r2c ? real : spec, rec.dists[i], grid, coords), nat};
    f.fft.out = {box_of(spec, rec.dists[i], grid, coords), out_order[i]};
    p.max_elems = std::max({p.max_elems, f.fft.out.box.count(),
                            f.fft.r2c ? (f.fft.in.box.count() + 1) / 2 : f.fft.in.box.count()});
    p.steps.push_back(f);
    if (i + 1 == n) break;
    Step e{Step::Kind::exchange, {}, {}};
    int gd = 0;
    while (rec.dists[i][gd] == rec.dists[i + 1][gd]) ++gd;
    e.exchange.grid_dim = gd;
    e.exchange.me = coords[gd];
    for (int k = 0; k < grid[gd]; ++k) {
      auto c = coords;
      c[gd] = k;
      e.exchange.src.push_back({box_of(spec, rec.dists[i], grid, c), out_order[i]});
      e.exchange.dst.push_back({box_of(spec, rec.dists[i + 1], grid, c), nat});
    }
    p.steps.push_back(e);
  }
  p.input = p.steps.front().fft.in;
  p.output = p.steps.back().fft.out;
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
      s << (st.fft.r2c ? "r2c" : "fft") << " axes(" << join(st.fft.axes) << ") " << lay(st.fft.in)
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
      s << "exchange over grid dim " << e.grid_dim << " (" << e.src.size() << " ranks) "
        << lay(e.src[e.me]) << " -> " << lay(e.dst[e.me]) << (pack ? " pack" : " no-pack")
        << (unpack ? " unpack" : " no-unpack") << "\n";
    }
  }
  return s.str();
}

}  // namespace dfft::detail
