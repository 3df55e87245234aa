// SPDX-License-Identifier: MIT
// Helpers of the feature tests (box API, Reshape, batch, in-place, r2r): random box sets that
// tile a global array, local arrays in any layout (memory order, padding) filled from a global
// signal, gathering, and serial references computed here (FFTW on the gathered array, or direct
// sums), so that nothing leans on the code under test. Arrays reach the plans through DevArray
// (support/backend.hpp): host memory on the cpu backend, GPU memory on cuda.
#pragma once

#include <fftw3.h>

#include <algorithm>
#include <complex>
#include <numeric>
#include <random>
#include <vector>

#include <cstring>

#include "support/backend.hpp"
#include "support/test_util.hpp"

namespace dfft_test {

using dfft::Box;
using dfft::Layout;

/// Offset of global index `idx` in a local array of layout `l`, padding included (own code).
inline std::int64_t padded_offset(const Layout& l, const Shape& idx) {
  std::int64_t off = 0;
  for (int ax : l.order) {
    const std::int64_t ext = l.padded.empty() ? l.box.hi[ax] - l.box.lo[ax] : l.padded[ax];
    off = off * ext + (idx[ax] - l.box.lo[ax]);
  }
  return off;
}

/// Elements of the local array, padding included.
inline std::int64_t alloc_elems(const Layout& l) {
  std::int64_t n = 1;
  for (int a = 0; a < l.box.dims(); ++a) {
    if (l.box.hi[a] <= l.box.lo[a]) return 0;
    n *= l.padded.empty() ? l.box.hi[a] - l.box.lo[a] : l.padded[a];
  }
  return n;
}

/// Box of `n` dimensions with nothing in it.
inline Box empty_box(int d) { return Box{Shape(d, 0), Shape(d, 0)}; }

/// Random tiling of `shape` into `parts` boxes by recursive bisection along random axes; with
/// `empties` > 0 that many of the boxes (at random places) are empty. Every rank calling this
/// with the same generator state gets the same tiling.
inline std::vector<Box> random_tiling(const Shape& shape, int parts, int empties, std::mt19937& g) {
  const int d = static_cast<int>(shape.size());
  std::vector<Box> boxes;
  std::function<void(Box, int)> split = [&](Box b, int k) {
    if (k == 1) {
      boxes.push_back(b);
      return;
    }
    std::vector<int> axes;  // axes that can give each half at least one layer
    for (int a = 0; a < d; ++a)
      if (b.hi[a] - b.lo[a] >= 2) axes.push_back(a);
    if (axes.empty()) {  // cannot split further: the rest get nothing
      boxes.push_back(b);
      for (int i = 1; i < k; ++i) boxes.push_back(empty_box(d));
      return;
    }
    const int a = axes[g() % axes.size()];
    const int k1 = k / 2;
    const std::int64_t ext = b.hi[a] - b.lo[a];
    // Cut roughly in proportion to the parts, jittered by one layer.
    std::int64_t cut = b.lo[a] + std::clamp<std::int64_t>(
                                     ext * k1 / k + static_cast<int>(g() % 3) - 1, 1, ext - 1);
    Box lo = b, hi = b;
    lo.hi[a] = cut;
    hi.lo[a] = cut;
    split(lo, k1);
    split(hi, k - k1);
  };
  split(Box{Shape(d, 0), shape}, parts - empties);
  for (int i = 0; i < empties; ++i)
    boxes.insert(boxes.begin() + static_cast<long>(g() % (boxes.size() + 1)), empty_box(d));
  return boxes;
}

/// A layout for `box`: natural or random memory order, with or without random padding.
inline Layout random_layout(const Box& box, bool shuffle_order, bool pad, std::mt19937& g) {
  const int d = box.dims();
  Layout l;
  l.box = box;
  l.order.resize(d);
  std::iota(l.order.begin(), l.order.end(), 0);
  if (shuffle_order) std::shuffle(l.order.begin(), l.order.end(), g);
  if (pad)
    for (int a = 0; a < d; ++a)
      l.padded.push_back(box.hi[a] - box.lo[a] + static_cast<int>(g() % 3));
  return l;
}

/// Random layouts for every rank; returns this rank's (the same generator on every rank).
inline std::vector<Layout> random_layouts(const Shape& shape, std::mt19937& g, bool allow_empty) {
  const int p = world_size();
  const int empties = allow_empty && p > 1 ? static_cast<int>(g() % 2) + (p > 3 ? 1 : 0) : 0;
  auto boxes = random_tiling(shape, p, std::min(empties, p - 1), g);
  std::vector<Layout> ls;
  for (const auto& b : boxes) ls.push_back(random_layout(b, g() % 2 == 0, g() % 3 == 0, g));
  return ls;
}

/// Deterministic value of global element i (real part; the imaginary part uses another seed).
template <class V>
V value_at(std::int64_t i, int seed) {
  if constexpr (std::is_floating_point_v<V>) {
    return static_cast<V>(signal(i, seed));
  } else {
    using R = typename V::value_type;
    return V(static_cast<R>(signal(i, seed)), static_cast<R>(signal(i, seed + 7)));
  }
}

/// Local array of layout `l` holding the global signal; padding holds `fill` (NaN by default,
/// so that reading it anywhere would show in the results).
template <class V>
std::vector<V> make_local(const Layout& l, const Shape& global, int seed,
                          V fill = V(std::numeric_limits<double>::quiet_NaN())) {
  std::vector<V> v(static_cast<std::size_t>(alloc_elems(l)), fill);
  for_box(l.box, [&](const Shape& idx) {
    v[static_cast<std::size_t>(padded_offset(l, idx))] = value_at<V>(linear(idx, global), seed);
  });
  return v;
}

/// Global array (complex doubles) from every rank's piece in layout `l` (padding honoured).
template <class V>
std::vector<cd> gather_padded(const Layout& l, const Shape& global, const V* local) {
  std::vector<double> flat(2 * static_cast<std::size_t>(product(global)), 0.0);
  for_box(l.box, [&](const Shape& idx) {
    const auto gi = static_cast<std::size_t>(linear(idx, global));
    const cd v(local[padded_offset(l, idx)]);
    flat[2 * gi] = v.real();
    flat[2 * gi + 1] = v.imag();
  });
  MPI_Allreduce(MPI_IN_PLACE, flat.data(), static_cast<int>(flat.size()), MPI_DOUBLE, MPI_SUM,
                MPI_COMM_WORLD);
  std::vector<cd> out(flat.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = {flat[2 * i], flat[2 * i + 1]};
  return out;
}

/// The global input signal as complex doubles (real signal: imaginary part 0).
inline std::vector<cd> global_signal(const Shape& shape, int seed, bool real) {
  std::vector<cd> g(static_cast<std::size_t>(product(shape)));
  for (std::size_t i = 0; i < g.size(); ++i)
    g[i] = real ? cd(signal(static_cast<std::int64_t>(i), seed), 0)
                : value_at<cd>(static_cast<std::int64_t>(i), seed);
  return g;
}

/// Serial FFTW forward transform of the whole array (double): r2c (last axis halved) or c2c.
inline std::vector<cd> serial_forward(const Shape& shape, const std::vector<cd>& x, bool r2c) {
  std::vector<int> n(shape.begin(), shape.end());
  const int d = static_cast<int>(n.size());
  Shape spec = shape;
  if (r2c) spec.back() = spec.back() / 2 + 1;
  std::vector<cd> out(static_cast<std::size_t>(product(spec)));
  auto* o = reinterpret_cast<fftw_complex*>(out.data());
  if (r2c) {
    std::vector<double> re(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) re[i] = x[i].real();
    fftw_plan p = fftw_plan_dft_r2c(d, n.data(), re.data(), o, FFTW_ESTIMATE);
    fftw_execute(p);
    fftw_destroy_plan(p);
  } else {
    std::vector<cd> in = x;
    fftw_plan p = fftw_plan_dft(d, n.data(), reinterpret_cast<fftw_complex*>(in.data()), o,
                                FFTW_FORWARD, FFTW_ESTIMATE);
    fftw_execute(p);
    fftw_destroy_plan(p);
  }
  return out;
}

/// Serial FFTW c2c transform (double, unscaled) of the whole array over `axes` only, the other
/// axes a batch of independent transforms (FFTW's guru interface); `sign` FFTW_FORWARD or
/// FFTW_BACKWARD.
inline std::vector<cd> serial_c2c_axes(const Shape& shape, const std::vector<cd>& x, const std::vector<int>& axes,
                                       int sign) {
  const int d = static_cast<int>(shape.size());
  std::vector<fftw_iodim> dims, loops;
  std::int64_t stride = 1;
  for (int a = d - 1; a >= 0; --a) {
    const fftw_iodim io{static_cast<int>(shape[a]), static_cast<int>(stride), static_cast<int>(stride)};
    (std::find(axes.begin(), axes.end(), a) != axes.end() ? dims : loops).push_back(io);
    stride *= shape[a];
  }
  std::vector<cd> in = x, out(x.size());
  fftw_plan p = fftw_plan_guru_dft(static_cast<int>(dims.size()), dims.data(), static_cast<int>(loops.size()),
                                   loops.data(), reinterpret_cast<fftw_complex*>(in.data()),
                                   reinterpret_cast<fftw_complex*>(out.data()), sign, FFTW_ESTIMATE);
  fftw_execute(p);
  fftw_destroy_plan(p);
  return out;
}

/// Largest |a - b| over the largest |b|, over all ranks, for local arrays of equal length; a NaN
/// difference counts (as NaN, which fails every bound).
template <class V>
double local_rel(const std::vector<V>& a, const std::vector<V>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = static_cast<double>(std::abs(a[i] - b[i]));
    if (std::isnan(d) || d > num) num = d;
    den = std::max(den, static_cast<double>(std::abs(b[i])));
  }
  return max_over_ranks(num / (den > 0 ? den : 1));
}

/// Bitwise equality of two host arrays (NaN padding included).
template <class V>
bool same_bits(const std::vector<V>& a, const std::vector<V>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(V)) == 0);
}

/// Largest |got - want| over the largest |want| (a relative max error, 0 when equal).
inline double rel_max(const std::vector<cd>& got, const std::vector<cd>& want) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    num = std::max(num, std::abs(got[i] - want[i]));
    den = std::max(den, std::abs(want[i]));
  }
  return num / (den > 0 ? den : 1);
}

}  // namespace dfft_test
