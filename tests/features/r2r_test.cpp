// SPDX-License-Identifier: MIT
// r2r: DCT and DST of types I-IV along chosen axes, alone (Transform::r2r, real data), mixed
// with periodic axes (Transform::c2c, complex data) and with a periodic last axis that is the
// real-to-complex one (Transform::r2c), against separable direct sums of the definitions
// written here; odd sizes, every decomposition, both precisions, every norm.
#include <numbers>
#include <sstream>

#include "dfft/reshape.hpp"
#include "features/feature_util.hpp"

namespace dfft_test {
namespace {

using dfft::Decomposition;
using dfft::R2R;
using dfft::Transform;
using dfft::Variant;

constexpr double kPi = std::numbers::pi;

/// The kind that undoes `k` (up to scale), from the definitions: I and IV self-inverse, II/III.
R2R inverse_of(R2R k) {
  switch (k) {
    case R2R::dct2: return R2R::dct3;
    case R2R::dct3: return R2R::dct2;
    case R2R::dst2: return R2R::dst3;
    case R2R::dst3: return R2R::dst2;
    default: return k;
  }
}

/// Forward-then-inverse factor of one axis of n points (FFTW's logical size).
double logical(R2R k, std::int64_t n) {
  const double N = static_cast<double>(n);
  if (k == R2R::none) return N;
  if (k == R2R::dct1) return 2 * (N - 1);
  if (k == R2R::dst1) return 2 * (N + 1);
  return 2 * N;
}

/// Weight of input j in output k of the 1-D DCT/DST `kind` of length n (scipy.fft's and FFTW's
/// unnormalised definitions).
double trig_weight(R2R kind, std::int64_t n, std::int64_t j, std::int64_t k) {
  const double N = static_cast<double>(n), jj = static_cast<double>(j), kk = static_cast<double>(k);
  const double sign = k % 2 ? -1.0 : 1.0;
  switch (kind) {
    case R2R::dct1:
      if (j == 0) return 1;
      if (j == n - 1) return sign;
      return 2 * std::cos(kPi * jj * kk / (N - 1));
    case R2R::dct2: return 2 * std::cos(kPi * (jj + 0.5) * kk / N);
    case R2R::dct3: return j == 0 ? 1 : 2 * std::cos(kPi * jj * (kk + 0.5) / N);
    case R2R::dct4: return 2 * std::cos(kPi * (jj + 0.5) * (kk + 0.5) / N);
    case R2R::dst1: return 2 * std::sin(kPi * (jj + 1) * (kk + 1) / (N + 1));
    case R2R::dst2: return 2 * std::sin(kPi * (jj + 0.5) * (kk + 1) / N);
    case R2R::dst3: return j == n - 1 ? sign : 2 * std::sin(kPi * (jj + 1) * (kk + 0.5) / N);
    case R2R::dst4: return 2 * std::sin(kPi * (jj + 0.5) * (kk + 0.5) / N);
    case R2R::none: break;
  }
  return 0;
}

/// One output element of the 1-D transform of `v` along an axis, by its defining sum. `kind`
/// none: the periodic DFT (forward: exp(-2 pi i jk/n)).
cd direct_1d(const std::vector<cd>& v, std::int64_t k, R2R kind, bool forward) {
  const auto n = static_cast<std::int64_t>(v.size());
  cd s = 0;
  for (std::int64_t j = 0; j < n; ++j) {
    if (kind == R2R::none)
      s += v[j] * std::polar(1.0, (forward ? -2 : 2) * kPi * static_cast<double>(j * k) /
                                      static_cast<double>(n));
    else
      s += trig_weight(kind, n, j, k) * v[j];
  }
  return s;
}

/// Separable transform of the whole array by direct sums, one axis after another: the kinds as
/// given (forward), or their inverses with the backward DFT.
std::vector<cd> direct(const Shape& shape, std::vector<cd> x, const std::vector<R2R>& kinds,
                       bool forward) {
  const int d = static_cast<int>(shape.size());
  for (int a = 0; a < d; ++a) {
    const R2R k = forward ? kinds[a] : inverse_of(kinds[a]);
    std::int64_t stride = 1;
    for (int b = a + 1; b < d; ++b) stride *= shape[b];
    const std::int64_t n = shape[a];
    std::vector<cd> y(x.size());
    for (std::size_t base = 0; base < x.size(); ++base) {
      if ((static_cast<std::int64_t>(base) / stride) % n != 0) continue;  // line starts only
      std::vector<cd> line(static_cast<std::size_t>(n));
      for (std::int64_t j = 0; j < n; ++j) line[j] = x[base + j * stride];
      for (std::int64_t q = 0; q < n; ++q) y[base + q * stride] = direct_1d(line, q, k, forward);
    }
    x = std::move(y);
  }
  return x;
}

/// The first n/2+1 entries of the last axis (what an r2c transform keeps).
std::vector<cd> halve(const Shape& shape, const std::vector<cd>& full) {
  Shape spec = shape;
  spec.back() = shape.back() / 2 + 1;
  std::vector<cd> h;
  for (std::size_t i = 0; i < full.size(); ++i)
    if (static_cast<std::int64_t>(i) % shape.back() < spec.back()) h.push_back(full[i]);
  return h;
}

struct Case {
  Decomposition dec;
  Variant var;
  Transform tr;
  std::vector<R2R> kinds;
  bool dbl;
};

std::string name_of(const ::testing::TestParamInfo<Case>& i) {
  const auto& c = i.param;
  std::ostringstream o;
  o << to_string(c.dec) << "_" << to_string(c.var) << "_" << to_string(c.tr);
  for (R2R k : c.kinds) o << "_" << (k == R2R::none ? std::string("periodic") : to_string(k));
  o << (c.dbl ? "_double" : "_float");
  std::string s = o.str();
  for (auto& ch : s)
    if (ch == '-') ch = '_';
  return s;
}

// gtest prints the parameter with its test name instead of a byte dump.
void PrintTo(const Case& c, std::ostream* os) {
  *os << name_of(::testing::TestParamInfo<Case>(c, 0));
}

template <class T>
double tol() {
  return std::is_same_v<T, double> ? 1e-11 : 2e-5;
}

/// A local array of layout `l` holding the global array `g` (of shape `shape`).
template <class V>
std::vector<V> scatter(const Layout& l, const Shape& shape, const std::vector<cd>& g) {
  std::vector<V> v(static_cast<std::size_t>(alloc_elems(l)));
  for_box(l.box, [&](const Shape& idx) {
    const cd e = g[static_cast<std::size_t>(linear(idx, shape))];
    if constexpr (std::is_floating_point_v<V>) v[padded_offset(l, idx)] = static_cast<V>(e.real());
    else v[padded_offset(l, idx)] = V(e);
  });
  return v;
}

std::vector<cd> scaled(std::vector<cd> v, double f) {
  for (auto& e : v) e *= f;
  return v;
}

/// VI, VO: the plan's input and output elements (real or complex).
template <class T, class VI, class VO>
void run(const Case& c) {
  const Shape shape{9, 7, 7};  // odd; r2c's halved last axis (4) still splits over 4 ranks
  const bool r2c = c.tr == Transform::r2c;
  Shape spec = shape;
  if (r2c) spec.back() = shape.back() / 2 + 1;
  dfft::Options o;
  o.decomposition = c.dec;
  o.variant = c.var;
  o.transform = c.tr;
  o.r2r = c.kinds;
  dfft::Plan<T> plan(MPI_COMM_WORLD, shape, o);
  EXPECT_EQ(plan.spectral_shape(), spec);
  const Layout il = plan.input_layout(), ol = plan.output_layout();
  const auto x = make_local<VI>(il, shape, 2);
  const auto gx = gather_padded(il, shape, x.data());
  auto forward_ref = [&](const std::vector<cd>& v) {
    auto f = direct(shape, v, c.kinds, true);
    return r2c ? halve(shape, f) : f;
  };
  const auto want = forward_ref(gx);
  std::vector<VO> y(static_cast<std::size_t>(plan.output_count()));
  plan.forward(x.data(), y.data());
  EXPECT_LE(max_over_ranks(rel_max(gather_padded(ol, spec, y.data()), want)), tol<T>())
      << plan.describe();

  // Inverse alone, scaled by 1/N (the default norm), N the product of the logical sizes. An
  // r2c plan's inverse needs a Hermitian half spectrum: the reference spectrum of real data.
  double n = 1;
  for (std::size_t a = 0; a < shape.size(); ++a) n *= logical(c.kinds[a], shape[a]);
  const auto gs = r2c ? want : gather_padded(ol, spec, make_local<VO>(ol, spec, 4).data());
  auto s = scatter<VO>(ol, spec, gs);
  std::vector<VI> z(static_cast<std::size_t>(plan.input_count()));
  plan.inverse(s.data(), z.data());
  const auto inv_want = r2c ? gx : scaled(direct(shape, gs, c.kinds, false), 1 / n);
  EXPECT_LE(max_over_ranks(rel_max(gather_padded(il, shape, z.data()), inv_want)), tol<T>())
      << plan.describe();

  // Norm ortho scales the forward by 1/sqrt(N), norm forward by 1/N; both round trips are the
  // identity.
  for (auto [norm, f] : {std::pair{dfft::Norm::ortho, 1 / std::sqrt(n)}, std::pair{dfft::Norm::forward, 1 / n}}) {
    o.norm = norm;
    dfft::Plan<T> p(MPI_COMM_WORLD, shape, o);
    std::vector<VI> back(x.size());
    p.forward(x.data(), y.data());
    EXPECT_LE(max_over_ranks(rel_max(gather_padded(ol, spec, y.data()), scaled(want, f))), tol<T>())
        << to_string(norm);
    p.inverse(y.data(), back.data());
    EXPECT_LE(max_over_ranks(rel_max(gather_padded(il, shape, back.data()), gx)), tol<T>())
        << to_string(norm);
  }
}

class R2r : public ::testing::TestWithParam<Case> {};

TEST_P(R2r, MatchesDirectSums) {
  const auto& c = GetParam();
  using cf = std::complex<float>;
  switch (c.tr) {
    case Transform::r2r:
      return c.dbl ? run<double, double, double>(c) : run<float, float, float>(c);
    case Transform::c2c:
      return c.dbl ? run<double, cd, cd>(c) : run<float, cf, cf>(c);
    case Transform::r2c:
      return c.dbl ? run<double, double, cd>(c) : run<float, float, cf>(c);
  }
}

std::vector<Case> cases() {
  std::vector<Case> v;
  const std::vector<std::pair<Transform, std::vector<R2R>>> configs{
      {Transform::r2r, {R2R::dct1, R2R::dst1, R2R::dct4}},
      {Transform::r2r, {R2R::dst3, R2R::dct3, R2R::dst4}},
      {Transform::r2r, {R2R::dct2, R2R::dst2, R2R::dst2}},
      {Transform::c2c, {R2R::none, R2R::dct1, R2R::none}},
      {Transform::c2c, {R2R::dst4, R2R::none, R2R::dct3}},
      {Transform::r2c, {R2R::none, R2R::dct1, R2R::none}},
      {Transform::r2c, {R2R::dst1, R2R::dct2, R2R::none}}};
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil})
    for (auto var : {Variant::Default, Variant::Realigned})
      for (const auto& [tr, kinds] : configs)
        for (bool dbl : {true, false}) v.push_back({dec, var, tr, kinds, dbl});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Features, R2r, ::testing::ValuesIn(cases()), name_of);

// r2r with user boxes (reshapes move reals) and batched.
TEST(R2rMore, BoxesAndBatch) {
  const Shape shape{7, 5, 6};
  const std::vector<R2R> kinds{R2R::dct1, R2R::dct4, R2R::dst3};
  std::mt19937 g(9);
  const auto uin = random_layouts(shape, g, true);
  const auto uout = random_layouts(shape, g, true);
  const int r = world_rank();
  dfft::Options o;
  o.transform = Transform::r2r;
  o.r2r = kinds;
  o.decomposition = Decomposition::pencil;
  o.batches = {2};
  dfft::Plan<double> plan(MPI_COMM_WORLD, shape, uin[r], uout[r], o);
  const auto x = make_local<double>(uin[r], shape, 1, 0.0);
  std::vector<double> y(static_cast<std::size_t>(plan.output_count()));
  plan.forward(x.data(), y.data());
  const auto want = direct(shape, gather_padded(uin[r], shape, x.data()), kinds, true);
  EXPECT_LE(max_over_ranks(rel_max(gather_padded(uout[r], shape, y.data()), want)), 1e-11);

  std::vector<double> xb(2 * x.size()), yb(2 * y.size());
  std::copy(x.begin(), x.end(), xb.begin());
  for (std::size_t i = 0; i < x.size(); ++i) xb[x.size() + i] = -2 * x[i];
  plan.forward(2, xb.data(), yb.data());
  double err = 0;
  for_box(uout[r].box, [&](const Shape& idx) {
    const auto k = static_cast<std::size_t>(padded_offset(uout[r], idx));
    err = std::max({err, std::abs(yb[k] - y[k]), std::abs(yb[y.size() + k] + 2 * y[k])});
  });
  EXPECT_LE(max_over_ranks(err), 1e-10);
}

// r2c with DCT/DST axes in place: FFTW's padded real layout, one buffer for both sides.
TEST(R2rMore, R2cInPlace) {
  const Shape shape{7, 6, 9}, spec{7, 6, 5};
  dfft::Options o;
  o.decomposition = Decomposition::pencil;
  o.transform = Transform::r2c;
  o.r2r = {R2R::dst4, R2R::dct1, R2R::none};
  o.in_place = true;
  dfft::Plan<double> p(MPI_COMM_WORLD, shape, o);
  const Layout il = p.input_layout(), ol = p.output_layout();
  const auto x = make_local<double>(il, shape, 5);
  std::vector<cd> buf(std::max(static_cast<std::size_t>(p.output_count()), x.size() / 2 + 1));
  auto* real = reinterpret_cast<double*>(buf.data());
  std::copy(x.begin(), x.end(), real);
  p.forward(real, buf.data());
  const auto gx = gather_padded(il, shape, x.data());
  EXPECT_LE(max_over_ranks(rel_max(gather_padded(ol, spec, buf.data()),
                                   halve(shape, direct(shape, gx, o.r2r, true)))), 1e-11);
  p.inverse(buf.data(), real);
  EXPECT_LE(max_over_ranks(rel_max(gather_padded(il, shape, real), gx)), 1e-11);
}

TEST(R2rMore, BadCombinationsAreRejected) {
  const Shape shape{6, 5, 4};
  dfft::Options o;
  o.r2r = {R2R::dct2, R2R::none, R2R::dct4};
  o.transform = Transform::r2c;
  expect_error_everywhere([&] { dfft::Plan<double> p(MPI_COMM_WORLD, shape, o); },
                          "must be periodic");
  o.transform = Transform::r2r;
  expect_error_everywhere([&] { dfft::Plan<double> p(MPI_COMM_WORLD, shape, o); }, "every axis");
  o.transform = Transform::c2c;
  o.r2r = {R2R::dct2, R2R::dct2};
  expect_error_everywhere([&] { dfft::Plan<double> p(MPI_COMM_WORLD, shape, o); },
                          "one kind per axis");
  o.transform = Transform::r2r;
  o.r2r = {R2R::dct2, R2R::dct2, R2R::dst2};
  o.codec = dfft::Codec::fp16;
  expect_error_everywhere([&] { dfft::Plan<double> p(MPI_COMM_WORLD, shape, o); }, "compressed");
  // DCT-I of one point: its logical size 2(n-1) is 0.
  dfft::Options one;
  one.decomposition = Decomposition::slab_1d2d;  // never splits the length-1 axis
  one.transform = Transform::c2c;
  one.r2r = {R2R::none, R2R::dct1, R2R::none};
  expect_error_everywhere([&] { dfft::Plan<double> p(MPI_COMM_WORLD, {4, 1, 4}, one); },
                          "dct1 needs at least 2");
  one.r2r = {R2R::none, R2R::dst1, R2R::none};  // DST-I of one point is fine (2(n+1) = 4)
  EXPECT_NO_THROW(dfft::Plan<double>(MPI_COMM_WORLD, {4, 1, 4}, one));
  // Calling the complex overloads of an r2r plan is an error too.
  dfft::Options ok;
  ok.transform = Transform::r2r;
  ok.r2r = {R2R::dct2, R2R::dct2, R2R::dct2};
  dfft::Plan<double> p(MPI_COMM_WORLD, shape, ok);
  std::vector<cd> a(static_cast<std::size_t>(p.input_count()) + 1), b(a.size());
  expect_error_everywhere([&] { p.forward(a.data(), b.data()); }, "r2r");
  EXPECT_EQ(dfft::parse_r2r("dst2"), R2R::dst2);
  EXPECT_EQ(dfft::to_string(R2R::dct2), "dct2");
  for (const char* k : {"dct1", "dct2", "dct3", "dct4", "dst1", "dst2", "dst3", "dst4"})
    EXPECT_EQ(dfft::to_string(dfft::parse_r2r(k)), k);
  for (R2R k : {R2R::dct1, R2R::dct2, R2R::dct3, R2R::dct4, R2R::dst1, R2R::dst2, R2R::dst3,
                R2R::dst4}) {
    EXPECT_EQ(dfft::r2r_inverse(k), inverse_of(k));
    EXPECT_EQ(dfft::r2r_logical_size(k, 7), logical(k, 7));
  }
  EXPECT_EQ(dfft::parse_transform("r2r"), Transform::r2r);
}

}  // namespace
}  // namespace dfft_test
