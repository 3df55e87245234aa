// SPDX-License-Identifier: MIT
// r2r: DCT-II/III and DST-II/III along chosen axes, alone (Transform::r2r, real data) against
// FFTW's serial r2r of the gathered array, and mixed with periodic axes (Transform::c2c with
// r2r kinds) against direct sums written here; odd sizes, every decomposition, both precisions,
// every backend (on cuda the arrays live in GPU memory).
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

/// Serial FFTW r2r of the whole real array: type II forward, type III inverse.
std::vector<cd> fftw_r2r(const Shape& shape, const std::vector<cd>& x, const std::vector<R2R>& k,
                         bool forward) {
  std::vector<int> n(shape.begin(), shape.end());
  std::vector<fftw_r2r_kind> kinds;
  for (R2R r : k)
    kinds.push_back(r == R2R::dct2 ? (forward ? FFTW_REDFT10 : FFTW_REDFT01)
                                   : (forward ? FFTW_RODFT10 : FFTW_RODFT01));
  std::vector<double> in(x.size()), out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) in[i] = x[i].real();
  fftw_plan p = fftw_plan_r2r(static_cast<int>(n.size()), n.data(), in.data(), out.data(),
                              kinds.data(), FFTW_ESTIMATE);
  fftw_execute(p);
  fftw_destroy_plan(p);
  return std::vector<cd>(out.begin(), out.end());
}

/// One output element of the 1-D transform of `v` along an axis, by its defining sum.
cd direct_1d(const std::vector<cd>& v, std::int64_t k, R2R kind, bool forward) {
  const auto n = static_cast<std::int64_t>(v.size());
  const double N = static_cast<double>(n);
  cd s = 0;
  for (std::int64_t j = 0; j < n; ++j) {
    const double jj = static_cast<double>(j), kk = static_cast<double>(k);
    if (kind == R2R::none)
      s += v[j] * std::polar(1.0, (forward ? -2 : 2) * kPi * jj * kk / N);
    else if (kind == R2R::dct2 && forward)
      s += 2.0 * v[j] * std::cos(kPi * (jj + 0.5) * kk / N);
    else if (kind == R2R::dst2 && forward)
      s += 2.0 * v[j] * std::sin(kPi * (jj + 0.5) * (kk + 1) / N);
    else if (kind == R2R::dct2)  // DCT-III (FFTW REDFT01)
      s += (j == 0 ? 1.0 : 2.0) * v[j] * std::cos(kPi * jj * (kk + 0.5) / N);
    else  // DST-III (FFTW RODFT01)
      s += (j == n - 1 ? (k % 2 ? -1.0 : 1.0) : 2.0 * std::sin(kPi * (jj + 1) * (kk + 0.5) / N)) *
           v[j];
  }
  return s;
}

/// Separable transform of the whole array by direct sums, one axis after another.
std::vector<cd> direct(const Shape& shape, std::vector<cd> x, const std::vector<R2R>& k,
                       bool forward) {
  const int d = static_cast<int>(shape.size());
  for (int a = 0; a < d; ++a) {
    std::int64_t stride = 1;
    for (int b = a + 1; b < d; ++b) stride *= shape[b];
    const std::int64_t n = shape[a];
    std::vector<cd> y(x.size());
    for (std::size_t base = 0; base < x.size(); ++base) {
      if ((static_cast<std::int64_t>(base) / stride) % n != 0) continue;  // line starts only
      std::vector<cd> line(static_cast<std::size_t>(n));
      for (std::int64_t j = 0; j < n; ++j) line[j] = x[base + j * stride];
      for (std::int64_t q = 0; q < n; ++q) y[base + q * stride] = direct_1d(line, q, k[a], forward);
    }
    x = std::move(y);
  }
  return x;
}

const Shape kShape{9, 7, 5};  // the usual size; other sizes are named in the case

struct Case {
  Decomposition dec;
  Variant var;
  Transform tr;
  std::vector<R2R> kinds;
  bool dbl;
  Shape shape = kShape;
};

std::string name_of(const ::testing::TestParamInfo<Case>& i) {
  const auto& c = i.param;
  std::ostringstream o;
  o << to_string(c.dec) << "_" << to_string(c.var) << "_" << to_string(c.tr);
  for (R2R k : c.kinds) o << "_" << (k == R2R::none ? std::string("periodic") : to_string(k));
  o << (c.dbl ? "_double" : "_float");
  if (c.shape != kShape)
    for (std::size_t a = 0; a < c.shape.size(); ++a) o << (a ? "x" : "_") << c.shape[a];
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

template <class T, class V>
void run(const Case& c) {
  const Shape& shape = c.shape;
  const bool real = c.tr == Transform::r2r;
  auto o = backend_options();
  o.decomposition = c.dec;
  o.variant = c.var;
  o.transform = c.tr;
  o.r2r = c.kinds;
  auto plan = make_plan<T>(shape, o);
  if (!plan) return;
  EXPECT_EQ(plan->spectral_shape(), shape);
  const Layout il = plan->input_layout(), ol = plan->output_layout();
  const auto x = make_local<V>(il, shape, 2);
  const auto gx = gather_padded(il, shape, x.data());
  auto reference = [&](const std::vector<cd>& v, bool fwd) {
    return real ? fftw_r2r(shape, v, c.kinds, fwd) : direct(shape, v, c.kinds, fwd);
  };

  DevArray<V> dx(x);
  DevArray<V> dy(std::vector<V>(static_cast<std::size_t>(plan->output_count()) + 1, V(std::nan(""))));
  plan->forward(dx.get(), dy.get());
  const auto y = dy.host();
  const double fwd = max_over_ranks(rel_max(gather_padded(ol, shape, y.data()), reference(gx, true)));
  EXPECT_LE(fwd, tol<T>()) << plan->describe();
  EXPECT_TRUE(all_ranks(std::isnan(std::real(y.back())))) << "wrote past the output array";
  EXPECT_TRUE(all_ranks(same_bits(dx.host(), x))) << "forward changed its input";

  // Inverse alone (type III) on other data seen as spectral data, scaled by 1/N (the default
  // norm): each DCT/DST axis contributes 2n, each periodic axis n.
  double n = 1;
  for (std::size_t a = 0; a < shape.size(); ++a)
    n *= static_cast<double>(shape[a]) * (c.kinds[a] == R2R::none ? 1 : 2);
  auto scaled = [](std::vector<cd> v, double f) {
    for (auto& e : v) e *= f;
    return v;
  };
  const auto s = make_local<V>(ol, shape, 4);
  DevArray<V> ds(s), dz(static_cast<std::size_t>(plan->input_count()));
  plan->inverse(ds.get(), dz.get());
  const double inv = max_over_ranks(rel_max(gather_padded(il, shape, dz.host().data()),
                                            scaled(reference(gather_padded(ol, shape, s.data()), false), 1 / n)));
  EXPECT_LE(inv, tol<T>()) << plan->describe();

  // Norm ortho: the forward scaled by 1/sqrt(N), and the round trip is the identity.
  o.norm = dfft::Norm::ortho;
  auto ortho = make_plan<T>(shape, o);
  if (!ortho) return;
  DevArray<V> back(x.size());
  ortho->forward(dx.get(), dy.get());
  EXPECT_LE(max_over_ranks(rel_max(gather_padded(ol, shape, dy.host().data()),
                                   scaled(reference(gx, true), 1 / std::sqrt(n)))),
            tol<T>());
  ortho->inverse(dy.get(), back.get());
  EXPECT_LE(max_over_ranks(rel_max(gather_padded(il, shape, back.host().data()), gx)), tol<T>());
}

class R2r : public ::testing::TestWithParam<Case> {};

TEST_P(R2r, MatchesSerialReference) {
  const auto& c = GetParam();
  if (c.tr == Transform::r2r) {
    if (c.dbl)
      run<double, double>(c);
    else
      run<float, float>(c);
  } else {
    if (c.dbl)
      run<double, std::complex<double>>(c);
    else
      run<float, std::complex<float>>(c);
  }
}

std::vector<Case> cases() {
  std::vector<Case> v;
  const std::vector<std::pair<Transform, std::vector<R2R>>> configs{
      {Transform::r2r, {R2R::dct2, R2R::dst2, R2R::dct2}},
      {Transform::r2r, {R2R::dst2, R2R::dst2, R2R::dst2}},
      {Transform::c2c, {R2R::none, R2R::dct2, R2R::none}},
      {Transform::c2c, {R2R::dst2, R2R::none, R2R::dct2}}};
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil})
    for (auto var : {Variant::Default, Variant::Realigned})
      for (const auto& [tr, kinds] : configs)
        for (bool dbl : {true, false}) v.push_back({dec, var, tr, kinds, dbl});
  // A length-1 axis (no FFT on it) and even lengths; slab-2d1d never splits the last axis.
  v.push_back({Decomposition::slab_2d1d, Variant::Default, Transform::r2r,
               {R2R::dct2, R2R::dst2, R2R::dst2}, true, {6, 5, 1}});
  v.push_back({Decomposition::slab_2d1d, Variant::Realigned, Transform::c2c,
               {R2R::none, R2R::dct2, R2R::dst2}, false, {6, 5, 1}});
  v.push_back({Decomposition::pencil, Variant::Default, Transform::r2r,
               {R2R::dst2, R2R::dct2, R2R::dct2}, true, {8, 12, 10}});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Features, R2r, ::testing::ValuesIn(cases()), name_of);

// r2r with user boxes (reshapes move reals) and batched.
TEST(R2rMore, BoxesAndBatch) {
  const Shape shape{7, 5, 6};
  const std::vector<R2R> kinds{R2R::dct2, R2R::dct2, R2R::dst2};
  std::mt19937 g(9);
  const auto uin = random_layouts(shape, g, true);
  const auto uout = random_layouts(shape, g, true);
  const int r = world_rank();
  auto o = backend_options();
  o.transform = Transform::r2r;
  o.r2r = kinds;
  o.decomposition = Decomposition::pencil;
  o.batches = {2};
  auto plan = make_plan<double>(shape, uin[r], uout[r], o);
  if (!plan) return;
  const auto x = make_local<double>(uin[r], shape, 1, 0.0);
  DevArray<double> dx(x), dy(static_cast<std::size_t>(plan->output_count()));
  plan->forward(dx.get(), dy.get());
  const auto y = dy.host();
  const auto want = fftw_r2r(shape, gather_padded(uin[r], shape, x.data()), kinds, true);
  EXPECT_LE(max_over_ranks(rel_max(gather_padded(uout[r], shape, y.data()), want)), 1e-11);

  // Batch of 2: the second array is -2 times the first.
  std::vector<double> xb(2 * x.size());
  std::copy(x.begin(), x.end(), xb.begin());
  for (std::size_t i = 0; i < x.size(); ++i) xb[x.size() + i] = -2 * x[i];
  DevArray<double> dxb(xb), dyb(2 * y.size());
  plan->forward(2, dxb.get(), dyb.get());
  const auto yb = dyb.host();
  double err = 0;
  for_box(uout[r].box, [&](const Shape& idx) {
    const auto k = static_cast<std::size_t>(padded_offset(uout[r], idx));
    err = std::max({err, std::abs(yb[k] - y[k]), std::abs(yb[y.size() + k] + 2 * y[k])});
  });
  EXPECT_LE(max_over_ranks(err), 1e-10);
}

TEST(R2rMore, BadCombinationsAreRejected) {
  const Shape shape{6, 5, 4};
  auto o = backend_options();
  o.r2r = {R2R::dct2, R2R::none, R2R::none};
  o.transform = Transform::r2c;
  expect_error_everywhere([&] { dfft::Plan<double> p(MPI_COMM_WORLD, shape, o); }, "r2c");
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
  // Calling the complex overloads of an r2r plan is an error too.
  auto ok = backend_options();
  ok.transform = Transform::r2r;
  ok.r2r = {R2R::dct2, R2R::dct2, R2R::dct2};
  dfft::Plan<double> p(MPI_COMM_WORLD, shape, ok);
  DevArray<cd> a(static_cast<std::size_t>(p.input_count()) + 1), b(a.size());
  expect_error_everywhere([&] { p.forward(a.get(), b.get()); }, "r2r");
  EXPECT_EQ(dfft::parse_r2r("dst2"), R2R::dst2);
  EXPECT_EQ(dfft::to_string(R2R::dct2), "dct2");
  EXPECT_EQ(dfft::parse_transform("r2r"), Transform::r2r);
}

}  // namespace
}  // namespace dfft_test
