// SPDX-License-Identifier: MIT
// Options::axes (a subset of the axes transformed, in a chosen order; r2c halves the last
// listed) and Options::padding (forward truncates the padded grid's spectrum, inverse zero-pads)
// against direct sums written here, on odd and even sizes, every decomposition, r2c and c2c,
// both precisions, on the backend under test.
#include <numbers>
#include <sstream>

#include "features/feature_util.hpp"

namespace dfft_test {
namespace {
namespace axes {  // names of its own in a unity build

using dfft::Decomposition;
using dfft::Transform;

constexpr double kPi = std::numbers::pi;

/// Direct DFT of every line along `axis` (sign -1 forward, +1 inverse), unscaled.
std::vector<cd> dft_axis(const Shape& shape, const std::vector<cd>& x, int axis, int sign) {
  std::int64_t stride = 1;
  for (std::size_t b = static_cast<std::size_t>(axis) + 1; b < shape.size(); ++b) stride *= shape[b];
  const std::int64_t n = shape[axis];
  std::vector<cd> y(x.size());
  for (std::size_t base = 0; base < x.size(); ++base) {
    if ((static_cast<std::int64_t>(base) / stride) % n != 0) continue;  // line starts only
    for (std::int64_t k = 0; k < n; ++k) {
      cd s = 0;
      for (std::int64_t j = 0; j < n; ++j)
        s += x[base + j * stride] * std::polar(1.0, sign * 2 * kPi * static_cast<double>(j * k % n) / static_cast<double>(n));
      y[base + k * stride] = s;
    }
  }
  return y;
}

/// Where spectral index k of an n-point axis sits in the m-point spectrum: numpy's frequencies
/// of an n-point FFT (0 .. (n+1)/2-1, then the negative ones at the end).
std::int64_t padded_index(std::int64_t k, std::int64_t n, std::int64_t m) { return k < (n + 1) / 2 ? k : k + m - n; }

struct Case {
  Decomposition dec;
  Transform tr;
  Shape shape;            // the spectral grid n
  std::vector<int> axes;  // transformed, in order
  bool pad;               // 3/2 rule on every transformed axis but the first listed
  bool dbl;
};

std::string name_of(const ::testing::TestParamInfo<Case>& i) {
  const auto& c = i.param;
  std::ostringstream o;
  o << to_string(c.dec) << "_" << to_string(c.tr) << "_" << c.shape[0] << "_axes";
  for (int a : c.axes) o << a;
  o << (c.pad ? "_padded" : "") << (c.dbl ? "_double" : "_float");
  std::string s = o.str();
  for (auto& ch : s)
    if (ch == '-') ch = '_';
  return s;
}

void PrintTo(const Case& c, std::ostream* os) { *os << name_of(::testing::TestParamInfo<Case>(c, 0)); }

/// The serial reference of one case: shapes and both directions on whole arrays.
struct Reference {
  Shape n, m, spec;  // spectral grid, physical (padded) grid, spectral shape (halved axis)
  std::vector<int> axes;
  int halved = -1;

  explicit Reference(const Case& c) : n(c.shape), m(c.shape), spec(c.shape), axes(c.axes) {
    if (c.pad)
      for (std::size_t i = 1; i < axes.size(); ++i) m[axes[i]] = m[axes[i]] * 3 / 2;
    if (c.tr == Transform::r2c) {
      halved = axes.back();
      spec[halved] = n[halved] / 2 + 1;
    }
  }
  double size() const {
    double s = 1;
    for (int a : axes) s *= static_cast<double>(m[a]);
    return s;
  }
  /// numpy: fftn(x, axes) of the padded grid (rfftn: halved axis cut to n/2+1), truncated.
  std::vector<cd> forward(const std::vector<cd>& x) const {
    auto full = x;
    for (int a : axes) full = dft_axis(m, full, a, -1);
    std::vector<cd> out(static_cast<std::size_t>(product(spec)));
    for_box(dfft::Box{Shape(n.size(), 0), spec}, [&](const Shape& k) {
      Shape src = k;
      for (int a : axes)
        if (a != halved) src[a] = padded_index(k[a], n[a], m[a]);
      out[static_cast<std::size_t>(linear(k, spec))] = full[static_cast<std::size_t>(linear(src, m))];
    });
    return out;
  }
  /// Zero-pad the n-point spectrum (Hermitian-extended along the halved axis for r2c), an even
  /// n's Nyquist mode split in halves between +n/2 and -n/2, then the inverse DFT scaled by
  /// 1/size(); r2c keeps the real part.
  std::vector<cd> inverse(const std::vector<cd>& s) const {
    std::vector<cd> full(static_cast<std::size_t>(product(m)));
    for_box(dfft::Box{Shape(n.size(), 0), n}, [&](const Shape& k) {
      cd v;
      if (halved >= 0 && k[halved] >= spec[halved]) {  // conjugate of the mirrored mode
        Shape mk = k;
        for (int a : axes) mk[a] = (n[a] - k[a]) % n[a];
        v = std::conj(s[static_cast<std::size_t>(linear(mk, spec))]);
      } else {
        v = s[static_cast<std::size_t>(linear(k, spec))];
      }
      std::vector<std::pair<Shape, double>> dst{{k, 1.0}};
      for (int a : axes) {
        std::vector<std::pair<Shape, double>> next;
        for (auto [idx, w] : dst) {
          if (n[a] % 2 == 0 && k[a] == n[a] / 2 && m[a] != n[a]) {
            idx[a] = n[a] / 2;
            next.push_back({idx, w / 2});
            idx[a] = m[a] - n[a] / 2;
            next.push_back({idx, w / 2});
          } else {
            idx[a] = padded_index(k[a], n[a], m[a]);
            next.push_back({idx, w});
          }
        }
        dst = next;
      }
      for (const auto& [idx, w] : dst) full[static_cast<std::size_t>(linear(idx, m))] += w * v;
    });
    for (int a : axes) full = dft_axis(m, full, a, +1);
    for (auto& e : full) e = (halved >= 0 ? cd(e.real(), 0) : e) / size();
    return full;
  }
};

template <class T>
double tol() {
  return std::is_same_v<T, double> ? 1e-11 : 5e-5;
}

template <class T, class R>
void run(const Case& c) {
  using C = std::complex<T>;
  const Reference ref(c);
  dfft::Options o = backend_options();
  o.decomposition = c.dec;
  o.transform = c.tr;
  o.axes = c.axes;
  o.effort = dfft::Effort::estimate;
  if (c.pad) {
    o.padding.assign(c.shape.size(), 1.0);
    for (std::size_t i = 1; i < c.axes.size(); ++i) o.padding[c.axes[i]] = 1.5;
  }
  auto plan = make_plan<T>(c.shape, o);
  if (!plan) return;
  ASSERT_EQ(plan->physical_shape(), ref.m);
  ASSERT_EQ(plan->spectral_shape(), ref.spec);
  const Layout il = plan->input_layout(), ol = plan->output_layout();

  const DevArray<R> x(make_local<R>(il, ref.m, 3));
  const DevArray<C> y(static_cast<std::size_t>(plan->output_count()));
  plan->forward(x.get(), y.get());
  const auto want = ref.forward(gather(il, ref.m, x.host().data()));
  EXPECT_LE(max_over_ranks(rel_max(gather(ol, ref.spec, y.host().data()), want)), tol<T>()) << plan->describe();

  // Inverse of a spectrum that is the transform of a field on the n grid (Hermitian for r2c).
  Reference unpadded(c);
  unpadded.m = c.shape;
  const auto s = unpadded.forward(global_signal(c.shape, 5, c.tr == Transform::r2c));
  std::vector<C> sl(y.size());
  for_box(ol.box, [&](const Shape& k) {
    sl[static_cast<std::size_t>(local_offset(ol, k))] = C(s[static_cast<std::size_t>(linear(k, ref.spec))]);
  });
  const DevArray<C> ds(sl);
  const DevArray<R> z(static_cast<std::size_t>(plan->input_count()));
  plan->inverse(ds.get(), z.get());
  EXPECT_LE(max_over_ranks(rel_max(gather(il, ref.m, z.host().data()), ref.inverse(s))), tol<T>())
      << plan->describe();
}

class Axes : public ::testing::TestWithParam<Case> {};

TEST_P(Axes, MatchesDirectSums) {
  const auto& c = GetParam();
  if (c.tr == Transform::r2c) {
    if (c.dbl) run<double, double>(c);
    else run<float, float>(c);
  } else {
    if (c.dbl) run<double, std::complex<double>>(c);
    else run<float, std::complex<float>>(c);
  }
}

std::vector<Case> cases() {
  std::vector<Case> v;
  const std::vector<std::vector<int>> axes_sets{{1, 2}, {0}, {2, 0}, {0, 1}, {0, 2, 1}};
  for (const Shape& shape : {Shape{17, 12, 10}, Shape{16, 12, 10}})
    for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil})
      for (auto tr : {Transform::r2c, Transform::c2c})
        for (std::size_t k = 0; k < axes_sets.size(); ++k)
          for (bool pad : {false, true}) {
            if (pad && axes_sets[k].size() < 2) continue;
            // float on one axes set per shape and decomposition keeps the run short
            v.push_back({dec, tr, shape, axes_sets[k], pad, true});
            if (k == 0 || k == 3) v.push_back({dec, tr, shape, axes_sets[k], pad, false});
          }
  return v;
}

INSTANTIATE_TEST_SUITE_P(Features, Axes, ::testing::ValuesIn(cases()), name_of);

// The untransformed axis stays distributed: 2-D FFTs of each plane of a slab exchange nothing.
TEST(AxesMore, PlanesOfASlabExchangeNothing) {
  dfft::Options o = backend_options();
  o.axes = {1, 2};
  o.effort = dfft::Effort::estimate;
  // A slab of x planes, named: left automatic, a calibration whose 2-D FFTs are slow can make a
  // pencil that exchanges the planes' lines the predicted fastest.
  o.decomposition = dfft::Decomposition::slab_2d1d;
  auto plan = make_plan<double>(Shape{17, 12, 10}, o);
  if (!plan) return;
  EXPECT_TRUE(plan->exchange_bytes().empty() || plan->exchange_bytes() == std::vector<std::int64_t>{0})
      << plan->describe();
  EXPECT_EQ(plan->output_box().lo[0], plan->input_box().lo[0]);
  EXPECT_EQ(plan->output_box().hi[0], plan->input_box().hi[0]);
  EXPECT_EQ(plan->input_box().lo[0], part(17, world_size(), world_rank()).lo);
}

TEST(AxesMore, BadAxesAndPaddingRefused) {
  const Shape shape{9, 8, 7};
  auto plan_with = [&](dfft::Options o) {
    o.effort = dfft::Effort::estimate;
    return [shape, o] { dfft::Plan<double> p(MPI_COMM_WORLD, shape, o); };
  };
  dfft::Options o = backend_options();
  o.axes = {0, 0};
  expect_error_everywhere(plan_with(o), "listed twice");
  o.axes = {3};
  expect_error_everywhere(plan_with(o), "out of range");
  o.axes = {-4};
  expect_error_everywhere(plan_with(o), "out of range");
  o.axes = {1, 2};
  o.padding = {1.5, 1, 1};
  expect_error_everywhere(plan_with(o), "not transformed");
  o.padding = {1, 0.5, 1};
  expect_error_everywhere(plan_with(o), "1 (no padding) or more");
  o.padding = {1, 1.5};
  expect_error_everywhere(plan_with(o), "one factor per axis");
  o.padding = {1, 1.5, 1};
  o.user_workspace = true;
  expect_error_everywhere(plan_with(o), "padding with user_workspace");
}

}  // namespace axes
}  // namespace
}  // namespace dfft_test
