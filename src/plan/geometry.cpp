// SPDX-License-Identifier: MIT
#include "plan/geometry.hpp"

#include <cstdlib>
#include <algorithm>
#include <cmath>

#include "util/check.hpp"

namespace dfft {

std::int64_t Box::count() const {
  std::int64_t c = 1;
  for (int a = 0; a < dims(); ++a) c *= std::max<std::int64_t>(0, hi[a] - lo[a]);
  return c;
}

bool Box::empty() const { return count() == 0; }

Box intersect(const Box& a, const Box& b) {
  Box r{a.lo, a.hi};
  for (int i = 0; i < a.dims(); ++i) {
    r.lo[i] = std::max(a.lo[i], b.lo[i]);
    r.hi[i] = std::max(r.lo[i], std::min(a.hi[i], b.hi[i]));
  }
  return r;
}

std::vector<std::int64_t> Layout::strides() const {
  std::vector<std::int64_t> s(order.size());
  std::int64_t st = 1;
  for (int k = static_cast<int>(order.size()) - 1; k >= 0; --k) {
    s[order[k]] = st;
    st *= alloc_extent(order[k]);
  }
  return s;
}

std::int64_t Layout::alloc_count() const {
  if (box.empty()) return 0;
  std::int64_t c = 1;
  for (int a = 0; a < box.dims(); ++a) c *= alloc_extent(a);
  return c;
}

std::int64_t Layout::offset_of(const std::vector<std::int64_t>& idx) const {
  auto s = strides();
  std::int64_t off = 0;
  for (std::size_t a = 0; a < s.size(); ++a) off += (idx[a] - box.lo[a] + offset_on(static_cast<int>(a))) * s[a];
  return off;
}

namespace detail {

Layout from_box_start(const Layout& l) {
  if (l.offset.empty()) return l;
  Layout r{l.box, l.order, {}, {}};
  for (int a = 0; a < l.box.dims(); ++a) r.padded.push_back(l.alloc_extent(a));
  return r;
}

std::int64_t box_start(const Layout& l) { return l.box.empty() ? 0 : l.offset_of(l.box.lo); }

bool has_offset(const Layout& l) {
  for (auto o : l.offset)
    if (o != 0) return true;
  return false;
}

}  // namespace detail

Layout with_halo(const Layout& l, const HaloWidths& w) {
  const int d = l.box.dims();
  const auto& hi = w.hi.empty() ? w.lo : w.hi;
  if (static_cast<int>(w.lo.size()) != d || static_cast<int>(hi.size()) != d)
    detail::fail("halo widths: give ", d, " entries in lo (and in hi, if given), one per axis; got ",
                 w.lo.size(), " and ", w.hi.size());
  Layout r{l.box, l.order, {}, w.lo};
  for (int a = 0; a < d; ++a) {
    if (w.lo[a] < 0 || hi[a] < 0)
      detail::fail("halo widths: axis ", a, " has a negative width (lo ", w.lo[a], ", hi ", hi[a], ")");
    r.padded.push_back(w.lo[a] + l.box.extent(a) + hi[a]);
  }
  return r;
}

namespace detail {

Range decompose(std::int64_t n, int parts, int p) {
  std::int64_t base = n / parts, rem = n % parts;
  std::int64_t lo = p * base + std::min<std::int64_t>(p, rem);
  return {lo, lo + base + (p < rem ? 1 : 0)};
}

Range split_range(std::int64_t n, int parts, int p, bool taper) {
  if (parts < 3 || !taper) return decompose(n, parts, p);
  // Cumulative weight before part j: 0, 1, 3, ..., 2 parts - 3, and 2 parts - 2 at the end.
  const std::int64_t w = 2 * parts - 2;
  auto cum = [parts, w](int j) -> std::int64_t { return j == 0 ? 0 : j == parts ? w : 2 * j - 1; };
  return {n * cum(p) / w, n * cum(p + 1) / w};
}

int env_switch(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return 0;
  if ((v[0] == '0' || v[0] == '1') && !v[1]) return v[0] - '0';
  return -1;
}

std::vector<int> factor_grid(int p, int dims) {
  std::vector<int> g(dims, 1);
  int rest = p;
  for (int d = 0; d < dims - 1; ++d) {
    // Largest divisor of `rest` not above the (dims-d)-th root, so the factors stay balanced.
    int target = static_cast<int>(std::floor(std::pow(rest, 1.0 / (dims - d)) + 1e-9));
    int f = 1;
    for (int c = std::max(1, target); c >= 1; --c)
      if (rest % c == 0) {
        f = c;
        break;
      }
    g[d] = f;
    rest /= f;
  }
  g[dims - 1] = rest;
  std::sort(g.begin(), g.end(), std::greater<>());
  return g;
}

std::vector<int> grid_coords(const std::vector<int>& grid, int rank) {
  std::vector<int> c(grid.size());
  for (int d = static_cast<int>(grid.size()) - 1; d >= 0; --d) {
    c[d] = rank % grid[d];
    rank /= grid[d];
  }
  return c;
}

int grid_rank(const std::vector<int>& grid, const std::vector<int>& coords) {
  int r = 0;
  for (std::size_t d = 0; d < grid.size(); ++d) r = r * grid[d] + coords[d];
  return r;
}

std::vector<int> grid_line(const std::vector<int>& grid, int rank, int g) {
  auto c = grid_coords(grid, rank);
  std::vector<int> line;
  for (c[g] = 0; c[g] < grid[g]; ++c[g]) line.push_back(grid_rank(grid, c));
  return line;
}

Box box_of(const std::vector<std::int64_t>& shape, const Distribution& dist,
           const std::vector<int>& grid, const std::vector<int>& coords) {
  Box b{std::vector<std::int64_t>(shape.size(), 0), shape};
  for (std::size_t g = 0; g < dist.size(); ++g) {
    if (dist[g] < 0) continue;
    Range r = decompose(shape[dist[g]], grid[g], coords[g]);
    b.lo[dist[g]] = r.lo;
    b.hi[dist[g]] = r.hi;
  }
  return b;
}

std::vector<int> natural_order(int dims) {
  std::vector<int> o(dims);
  for (int i = 0; i < dims; ++i) o[i] = i;
  return o;
}

bool is_contiguous(const Box& sub, const Layout& layout) {
  if (sub.empty()) return true;
  int k = static_cast<int>(layout.order.size()) - 1;
  // Fastest axes that the block covers completely.
  while (k >= 0 && sub.extent(layout.order[k]) == layout.alloc_extent(layout.order[k])) --k;
  // One partial axis is allowed; every slower one must be a single index.
  for (--k; k >= 0; --k)
    if (sub.extent(layout.order[k]) != 1) return false;
  return true;
}

bool same_image(const Box& sub, const std::vector<int>& wire_order, const Layout& layout) {
  if (!is_contiguous(sub, layout)) return false;
  std::vector<int> a, b;
  for (int ax : wire_order)
    if (sub.extent(ax) > 1) a.push_back(ax);
  for (int ax : layout.order)
    if (sub.extent(ax) > 1) b.push_back(ax);
  return a == b;
}

std::vector<Box> split_box(const Box& box, std::int64_t max_elems) {
  max_elems = std::max<std::int64_t>(1, max_elems);
  if (box.count() <= max_elems) return {box};
  // Cut the longest axis into the fewest equal parts that fit, recursing if a slice is still
  // too large (only possible once the axis is cut to single indices).
  int ax = 0;
  for (int a = 1; a < box.dims(); ++a)
    if (box.extent(a) > box.extent(ax)) ax = a;
  std::int64_t slice = box.count() / box.extent(ax);
  std::int64_t parts = std::min(box.extent(ax), (box.count() + max_elems - 1) / max_elems);
  while (parts < box.extent(ax) && ((box.extent(ax) + parts - 1) / parts) * slice > max_elems)
    ++parts;
  std::vector<Box> out;
  for (std::int64_t p = 0; p < parts; ++p) {
    Range r = decompose(box.extent(ax), static_cast<int>(parts), static_cast<int>(p));
    Box piece = box;
    piece.lo[ax] = box.lo[ax] + r.lo;
    piece.hi[ax] = box.lo[ax] + r.hi;
    for (auto& q : split_box(piece, max_elems)) out.push_back(q);
  }
  return out;
}

}  // namespace detail
}  // namespace dfft
