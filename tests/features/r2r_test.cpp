// SPDX-License-Identifier: MIT
// r2r: DCT and DST of types I-IV along chosen axes, alone (Transform::r2r, real data), mixed
// with periodic axes (Transform::c2c, complex data) and with a periodic last axis that is the
// real-to-complex one (Transform::r2c), against two serial references written here: separable
// direct sums of the definitions, and FFTW's serial r2r and DFT axis by axis. Odd sizes, every
// decomposition, both precisions, every norm, every backend (on cuda the arrays live in GPU
// memory). FFTW's r2hc, hc2r and dht (Transform::r2r, CPU) against direct sums of their
// definitions in FFTW's manual.
#include <numbers>
#include <sstream>

#include "dfft/reshape.hpp"
#include "features/feature_util.hpp"

namespace dfft_test {
namespace {
namespace r2r {  // names of its own in a unity build

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
    case R2R::r2hc: return R2R::hc2r;
    case R2R::hc2r: return R2R::r2hc;
    default: return k;
  }
}

/// Forward-then-inverse factor of one axis of n points (FFTW's logical size).
double logical(R2R k, std::int64_t n) {
  const double N = static_cast<double>(n);
  if (k == R2R::none || k == R2R::r2hc || k == R2R::hc2r || k == R2R::dht) return N;
  if (k == R2R::dct1) return 2 * (N - 1);
  if (k == R2R::dst1) return 2 * (N + 1);
  return 2 * N;
}

/// Weight of input j in output k of FFTW's r2hc, hc2r or dht of length n, from FFTW's manual
/// ("1-d Real-odd DFTs" and "The Halfcomplex-format DFT", "1-d Discrete Hartley Transforms").
/// r2hc: the forward DFT X_k = r_k + i i_k of real data, stored r_0..r_{n/2} then
/// i_{(n+1)/2-1}..i_1 (position p > n/2 holds i_{n-p}). hc2r: its unnormalised inverse,
/// y_j = r_0 + 2 sum_{0<k<n/2} (r_k cos(2 pi jk/n) - i_k sin(2 pi jk/n)) + r_{n/2} (-1)^j (even n).
/// dht: Y_k = sum_j x_j (cos(2 pi jk/n) + sin(2 pi jk/n)).
double fftw_only_weight(R2R kind, std::int64_t n, std::int64_t j, std::int64_t k) {
  const auto w = [n](std::int64_t a, std::int64_t b) {
    return 2 * kPi * static_cast<double>(a * b % n) / static_cast<double>(n);
  };
  switch (kind) {
    case R2R::r2hc:  // output position k: r_k = Re X_k, or i_{n-k} = Im X_{n-k}
      return 2 * k <= n ? std::cos(w(j, k)) : -std::sin(w(j, n - k));
    case R2R::hc2r: {  // input position j holds r_j or i_{n-j}
      if (j == 0) return 1;
      if (2 * j == n) return k % 2 ? -1.0 : 1.0;
      if (2 * j < n) return 2 * std::cos(w(j, k));
      return -2 * std::sin(w(n - j, k));
    }
    case R2R::dht: return std::cos(w(j, k)) + std::sin(w(j, k));
    default: return 0;
  }
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
    case R2R::r2hc:
    case R2R::hc2r:
    case R2R::dht: return fftw_only_weight(kind, n, j, k);
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

/// FFTW's kind for a DCT/DST kind.
fftw_r2r_kind fftw_kind(R2R k) {
  switch (k) {
    case R2R::dct1: return FFTW_REDFT00;
    case R2R::dct2: return FFTW_REDFT10;
    case R2R::dct3: return FFTW_REDFT01;
    case R2R::dct4: return FFTW_REDFT11;
    case R2R::dst1: return FFTW_RODFT00;
    case R2R::dst2: return FFTW_RODFT10;
    case R2R::dst3: return FFTW_RODFT01;
    default: return FFTW_RODFT11;
  }
}

/// Serial reference with FFTW, axis by axis on the whole array: a DFT on periodic axes, FFTW's
/// r2r (the kind, or its inverse) on the others, applied to the real and imaginary parts.
std::vector<cd> fftw_serial(const Shape& shape, std::vector<cd> x, const std::vector<R2R>& kinds,
                            bool forward) {
  const int d = static_cast<int>(shape.size());
  for (int a = 0; a < d; ++a) {
    std::int64_t inner = 1, outer = 1;
    for (int b = a + 1; b < d; ++b) inner *= shape[b];
    for (int b = 0; b < a; ++b) outer *= shape[b];
    const std::int64_t n = shape[a];
    fftw_plan p;
    if (kinds[a] == R2R::none) {
      fftw_iodim64 dim{n, inner, inner};
      fftw_iodim64 how[2] = {{outer, n * inner, n * inner}, {inner, 1, 1}};
      auto* z = reinterpret_cast<fftw_complex*>(x.data());
      p = fftw_plan_guru64_dft(1, &dim, 2, how, z, z, forward ? FFTW_FORWARD : FFTW_BACKWARD,
                               FFTW_ESTIMATE);
    } else {
      fftw_iodim64 dim{n, 2 * inner, 2 * inner};
      fftw_iodim64 how[3] = {{outer, 2 * n * inner, 2 * n * inner}, {inner, 2, 2}, {2, 1, 1}};
      auto* z = reinterpret_cast<double*>(x.data());
      const fftw_r2r_kind k = fftw_kind(forward ? kinds[a] : inverse_of(kinds[a]));
      p = fftw_plan_guru64_r2r(1, &dim, 3, how, z, z, &k, FFTW_ESTIMATE);
    }
    if (!p) throw std::runtime_error("FFTW could not plan the serial reference");
    fftw_execute(p);
    fftw_destroy_plan(p);
  }
  return x;
}

/// Which serial reference a case is checked against.
enum class Ref { direct, fftw };

std::vector<cd> serial(Ref ref, const Shape& shape, const std::vector<cd>& x,
                       const std::vector<R2R>& kinds, bool forward) {
  return ref == Ref::fftw ? fftw_serial(shape, x, kinds, forward)
                          : direct(shape, x, kinds, forward);
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

/// A local array of layout `l` holding the global array `g` (of shape `shape`).
template <class V>
std::vector<V> scatter(const Layout& l, const Shape& shape, const std::vector<cd>& g) {
  std::vector<V> v(static_cast<std::size_t>(alloc_elems(l)));
  for_box(l.box, [&](const Shape& idx) {
    const cd e = g[static_cast<std::size_t>(linear(idx, shape))];
    if constexpr (std::is_floating_point_v<V>)
      v[padded_offset(l, idx)] = static_cast<V>(e.real());
    else
      v[padded_offset(l, idx)] = V(e);
  });
  return v;
}

std::vector<cd> scaled(std::vector<cd> v, double f) {
  for (auto& e : v) e *= f;
  return v;
}

// Odd; r2c's halved last axis (4) still splits over 4 ranks. Other sizes are named in the case.
const Shape kShape{9, 7, 7};

struct Case {
  Decomposition dec;
  Variant var;
  Transform tr;
  std::vector<R2R> kinds;
  bool dbl;
  Shape shape = kShape;
  Ref ref = Ref::direct;
};

std::string name_of(const ::testing::TestParamInfo<Case>& i) {
  const auto& c = i.param;
  std::ostringstream o;
  o << to_string(c.dec) << "_" << to_string(c.var) << "_" << to_string(c.tr);
  for (R2R k : c.kinds) o << "_" << (k == R2R::none ? std::string("periodic") : to_string(k));
  o << (c.dbl ? "_double" : "_float");
  if (c.shape != kShape)
    for (std::size_t a = 0; a < c.shape.size(); ++a) o << (a ? "x" : "_") << c.shape[a];
  if (c.ref == Ref::fftw) o << "_fftw";
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

/// Norm ortho scales the forward by 1/sqrt(N), norm forward by 1/N (N the product of the
/// logical sizes); both round trips are the identity. Norm none scales neither: the forward is
/// the unscaled reference and the round trip multiplies by N. `want`: the unscaled forward
/// reference.
template <class T, class VI, class VO>
void check_norms(const Case& c, dfft::Options o, const std::vector<VI>& x,
                 const std::vector<cd>& gx, const std::vector<cd>& want, double n) {
  for (auto [norm, f, round] : {std::tuple{dfft::Norm::ortho, 1 / std::sqrt(n), 1.0},
                                std::tuple{dfft::Norm::forward, 1 / n, 1.0}, std::tuple{dfft::Norm::none, 1.0, n}}) {
    o.norm = norm;
    auto p = make_plan<T>(c.shape, o);
    if (!p) return;
    const Layout il = p->input_layout(), ol = p->output_layout();
    DevArray<VI> dx(x), back(x.size());
    DevArray<VO> dy(static_cast<std::size_t>(p->output_count()));
    p->forward(dx.get(), dy.get());
    EXPECT_LE(max_over_ranks(rel_max(gather_padded(ol, p->spectral_shape(), dy.host().data()),
                                     scaled(want, f))),
              tol<T>())
        << to_string(norm);
    p->inverse(dy.get(), back.get());
    EXPECT_LE(max_over_ranks(rel_max(gather_padded(il, c.shape, back.host().data()), scaled(gx, round))), tol<T>())
        << to_string(norm);
  }
}

/// VI, VO: the plan's input and output elements (real or complex).
template <class T, class VI, class VO>
void run(const Case& c) {
  const Shape& shape = c.shape;
  const bool r2c = c.tr == Transform::r2c;
  Shape spec = shape;
  if (r2c) spec.back() = shape.back() / 2 + 1;
  auto o = backend_options();
  o.decomposition = c.dec;
  o.variant = c.var;
  o.transform = c.tr;
  o.r2r = c.kinds;
  auto plan = make_plan<T>(shape, o);
  if (!plan) return;
  EXPECT_EQ(plan->spectral_shape(), spec);
  const Layout il = plan->input_layout(), ol = plan->output_layout();
  const auto x = make_local<VI>(il, shape, 2);
  const auto gx = gather_padded(il, shape, x.data());
  const auto full = serial(c.ref, shape, gx, c.kinds, true);
  const auto want = r2c ? halve(shape, full) : full;
  DevArray<VI> dx(x);
  DevArray<VO> dy(
      std::vector<VO>(static_cast<std::size_t>(plan->output_count()) + 1, VO(std::nan(""))));
  plan->forward(dx.get(), dy.get());
  const auto y = dy.host();
  EXPECT_LE(max_over_ranks(rel_max(gather_padded(ol, spec, y.data()), want)), tol<T>())
      << plan->describe();
  EXPECT_TRUE(all_ranks(std::isnan(std::real(y.back())))) << "wrote past the output array";
  EXPECT_TRUE(all_ranks(same_bits(dx.host(), x))) << "forward changed its input";

  // Inverse alone, scaled by 1/N (the default norm), N the product of the logical sizes, on
  // other data seen as spectral data. An r2c plan's inverse needs a Hermitian half spectrum:
  // the reference spectrum of real data.
  double n = 1;
  for (std::size_t a = 0; a < shape.size(); ++a) n *= logical(c.kinds[a], shape[a]);
  const auto s = r2c ? scatter<VO>(ol, spec, want) : make_local<VO>(ol, spec, 4);
  const auto gs = gather_padded(ol, spec, s.data());
  DevArray<VO> ds(s);
  DevArray<VI> dz(static_cast<std::size_t>(plan->input_count()));
  plan->inverse(ds.get(), dz.get());
  const auto inv_want = r2c ? gx : scaled(serial(c.ref, shape, gs, c.kinds, false), 1 / n);
  EXPECT_LE(max_over_ranks(rel_max(gather_padded(il, shape, dz.host().data()), inv_want)), tol<T>())
      << plan->describe();

  check_norms<T, VI, VO>(c, o, x, gx, want, n);
}

class R2r : public ::testing::TestWithParam<Case> {};

bool has_fftw_only_kind(const std::vector<R2R>& kinds) {
  return std::any_of(kinds.begin(), kinds.end(), [](R2R k) { return dfft::r2r_is_fftw_only(k); });
}

TEST_P(R2r, MatchesSerialReference) {
  const auto& c = GetParam();
  if (on_cuda() && has_fftw_only_kind(c.kinds))
    GTEST_SKIP() << "r2hc, hc2r and dht run on the CPU backend only (R2rMore.FftwOnlyKindsRefused)";
  using cf = std::complex<float>;
  switch (c.tr) {
    case Transform::r2r:
      return c.dbl ? run<double, double, double>(c) : run<float, float, float>(c);
    case Transform::c2c: return c.dbl ? run<double, cd, cd>(c) : run<float, cf, cf>(c);
    case Transform::r2c: return c.dbl ? run<double, double, cd>(c) : run<float, float, cf>(c);
  }
}

using Config = std::pair<Transform, std::vector<R2R>>;

// Every decomposition, variant and precision for each configuration.
void add_sweep(std::vector<Case>& v, const std::vector<Config>& configs, const Shape& shape,
               Ref ref) {
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil})
    for (auto var : {Variant::Default, Variant::Realigned})
      for (const auto& [tr, kinds] : configs)
        for (bool dbl : {true, false}) v.push_back({dec, var, tr, kinds, dbl, shape, ref});
}

std::vector<Case> cases() {
  std::vector<Case> v;
  // Against the direct sums: all eight kinds, mixed with c2c axes and with an r2c last axis.
  add_sweep(v,
            {{Transform::r2r, {R2R::dct1, R2R::dst1, R2R::dct4}},
             {Transform::r2r, {R2R::dst3, R2R::dct3, R2R::dst4}},
             {Transform::r2r, {R2R::dct2, R2R::dst2, R2R::dst2}},
             {Transform::c2c, {R2R::none, R2R::dct1, R2R::none}},
             {Transform::c2c, {R2R::dst4, R2R::none, R2R::dct3}},
             {Transform::r2c, {R2R::none, R2R::dct1, R2R::none}},
             {Transform::r2c, {R2R::dst1, R2R::dct2, R2R::none}}},
            kShape, Ref::direct);
  // Against FFTW's serial r2r, on another odd size.
  add_sweep(v,
            {{Transform::r2r, {R2R::dct2, R2R::dst2, R2R::dct2}},
             {Transform::r2r, {R2R::dst2, R2R::dst2, R2R::dst2}},
             {Transform::c2c, {R2R::none, R2R::dct2, R2R::none}},
             {Transform::c2c, {R2R::dst2, R2R::none, R2R::dct2}},
             {Transform::r2r, {R2R::dct1, R2R::dst4, R2R::dst1}},
             {Transform::r2r, {R2R::dct4, R2R::dct3, R2R::dst3}},
             {Transform::c2c, {R2R::dct4, R2R::none, R2R::dst1}}},
            {9, 7, 5}, Ref::fftw);
  // FFTW's halfcomplex and Hartley kinds, alone and beside DCT/DST axes, against the direct sums
  // of their definitions: odd and even lengths (an even one has r_{n/2}, an odd one none).
  add_sweep(v,
            {{Transform::r2r, {R2R::dht, R2R::hc2r, R2R::dct2}},
             {Transform::r2r, {R2R::r2hc, R2R::dht, R2R::r2hc}},
             {Transform::r2r, {R2R::hc2r, R2R::r2hc, R2R::dst3}}},
            {17, 12, 10}, Ref::direct);
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d})
    for (auto var : {Variant::Default, Variant::Realigned})
      for (bool dbl : {true, false})
        for (const auto& kinds : {std::vector{R2R::r2hc, R2R::dht}, std::vector{R2R::hc2r, R2R::r2hc}})
          v.push_back({dec, var, Transform::r2r, kinds, dbl, {7, 5}, Ref::direct});
  // A length-1 axis (no FFT on it for types II/III; types I and IV run one of length 4 / 2) and
  // even lengths; slab-2d1d never splits the last axis.
  const auto add = [&](Decomposition dec, Variant var, Transform tr, std::vector<R2R> kinds,
                       bool dbl, Shape shape) {
    v.push_back({dec, var, tr, kinds, dbl, shape, Ref::fftw});
  };
  add(Decomposition::slab_2d1d, Variant::Default, Transform::r2r, {R2R::dct2, R2R::dst2, R2R::dst2},
      true, {6, 5, 1});
  add(Decomposition::slab_2d1d, Variant::Realigned, Transform::c2c,
      {R2R::none, R2R::dct2, R2R::dst2}, false, {6, 5, 1});
  add(Decomposition::pencil, Variant::Default, Transform::r2r, {R2R::dst2, R2R::dct2, R2R::dct2},
      true, {8, 12, 10});
  add(Decomposition::slab_2d1d, Variant::Default, Transform::r2r, {R2R::dct1, R2R::dct4, R2R::dst1},
      true, {6, 5, 1});
  add(Decomposition::pencil, Variant::Realigned, Transform::r2r, {R2R::dst4, R2R::dct1, R2R::dct4},
      false, {8, 12, 10});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Features, R2r, ::testing::ValuesIn(cases()), name_of);

// r2r with user boxes (reshapes move reals, empty boxes) and a batch of 2, for kinds of every
// type, against both references.
void boxes_and_batch(const std::vector<R2R>& kinds, Ref ref) {
  const Shape shape{7, 5, 6};
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
  const auto want = serial(ref, shape, gather_padded(uin[r], shape, x.data()), kinds, true);
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

TEST(R2rMore, BoxesAndBatch) {
  for (const auto& [kinds, ref] :
       {std::pair{std::vector{R2R::dct2, R2R::dct2, R2R::dst2}, Ref::fftw},
        std::pair{std::vector{R2R::dct1, R2R::dct4, R2R::dst3}, Ref::direct},
        std::pair{std::vector{R2R::dct1, R2R::dct4, R2R::dst2}, Ref::fftw}}) {
    SCOPED_TRACE(to_string(kinds[0]) + "_" + to_string(kinds[1]) + "_" + to_string(kinds[2]));
    boxes_and_batch(kinds, ref);
  }
}

// r2c with DCT/DST axes in place: FFTW's padded real layout, one buffer for both sides.
TEST(R2rMore, R2cInPlace) {
  const Shape shape{7, 6, 9}, spec{7, 6, 5};
  auto o = backend_options();
  o.decomposition = Decomposition::pencil;
  o.transform = Transform::r2c;
  o.r2r = {R2R::dst4, R2R::dct1, R2R::none};
  o.in_place = true;
  auto p = make_plan<double>(shape, o);
  if (!p) return;
  const Layout il = p->input_layout(), ol = p->output_layout();
  const auto x = make_local<double>(il, shape, 5);
  std::vector<cd> host(std::max(static_cast<std::size_t>(p->output_count()), x.size() / 2 + 1));
  std::copy(x.begin(), x.end(), reinterpret_cast<double*>(host.data()));
  DevArray<cd> buf(host);
  auto* real = reinterpret_cast<double*>(buf.get());
  p->forward(real, buf.get());
  const auto gx = gather_padded(il, shape, x.data());
  EXPECT_LE(max_over_ranks(rel_max(gather_padded(ol, spec, buf.host().data()),
                                   halve(shape, direct(shape, gx, o.r2r, true)))),
            1e-11);
  p->inverse(buf.get(), real);
  const auto back = buf.host();
  EXPECT_LE(max_over_ranks(rel_max(
                gather_padded(il, shape, reinterpret_cast<const double*>(back.data())), gx)),
            1e-11);
}

// FFTW's threaded r2r plans beside a threaded periodic axis (Options::threads, CPU only).
TEST(R2rMore, ThreadsMatchSerialFftw) {
  if (on_cuda()) GTEST_SKIP() << "threads are the CPU backend's";
  const Shape shape{17, 12, 10};
  const std::vector<R2R> kinds{R2R::dct2, R2R::none, R2R::dst2};
  dfft::Options o;
  o.decomposition = Decomposition::pencil;
  o.transform = Transform::c2c;
  o.r2r = kinds;
  o.threads = 3;
  dfft::Plan<double> plan(MPI_COMM_WORLD, shape, o);
  const auto x = make_local<cd>(plan.input_layout(), shape, 5);
  std::vector<cd> y(static_cast<std::size_t>(plan.output_count()));
  plan.forward(x.data(), y.data());
  const auto want = fftw_serial(shape, gather_padded(plan.input_layout(), shape, x.data()), kinds, true);
  EXPECT_LE(max_over_ranks(rel_max(gather_padded(plan.output_layout(), shape, y.data()), want)), tol<double>());
}

TEST(R2rMore, BadCombinationsAreRejected) {
  const Shape shape{6, 5, 4};
  auto o = backend_options();
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
  auto one = backend_options();
  one.decomposition = Decomposition::slab_1d2d;  // never splits the length-1 axis
  one.transform = Transform::c2c;
  one.r2r = {R2R::none, R2R::dct1, R2R::none};
  expect_error_everywhere(
      [&] {
        dfft::Plan<double> p(MPI_COMM_WORLD, {4, 1, 4}, one);
      },
      "dct1 needs at least 2");
  one.r2r = {R2R::none, R2R::dst1, R2R::none};  // DST-I of one point is fine (2(n+1) = 4)
  EXPECT_NO_THROW(dfft::Plan<double>(MPI_COMM_WORLD, {4, 1, 4}, one));
  // Calling the complex overloads of an r2r plan is an error too.
  auto ok = backend_options();
  ok.transform = Transform::r2r;
  ok.r2r = {R2R::dct2, R2R::dct2, R2R::dct2};
  dfft::Plan<double> p(MPI_COMM_WORLD, shape, ok);
  DevArray<cd> a(static_cast<std::size_t>(p.input_count()) + 1), b(a.size());
  expect_error_everywhere([&] { p.forward(a.get(), b.get()); }, "r2r");
  EXPECT_EQ(dfft::parse_r2r("dst2"), R2R::dst2);
  EXPECT_EQ(dfft::to_string(R2R::dct2), "dct2");
  for (const char* k : {"dct1", "dct2", "dct3", "dct4", "dst1", "dst2", "dst3", "dst4"})
    EXPECT_EQ(dfft::to_string(dfft::parse_r2r(k)), k);
  for (R2R k :
       {R2R::dct1, R2R::dct2, R2R::dct3, R2R::dct4, R2R::dst1, R2R::dst2, R2R::dst3, R2R::dst4}) {
    EXPECT_EQ(dfft::r2r_inverse(k), inverse_of(k));
    EXPECT_EQ(dfft::r2r_logical_size(k, 7), logical(k, 7));
  }
  EXPECT_EQ(dfft::parse_transform("r2r"), Transform::r2r);
}

// FFTW's r2hc, hc2r and dht: only with a real kind on every axis (halfcomplex data are no real
// or imaginary part of a complex array), and only where FFTW runs them (not on the CUDA backend).
TEST(R2rMore, FftwOnlyKindsRefused) {
  const Shape shape{6, 5, 4};
  auto o = backend_options();
  o.transform = Transform::c2c;
  o.r2r = {R2R::dht, R2R::none, R2R::dct2};
  expect_error_everywhere([&] { dfft::Plan<double> p(MPI_COMM_WORLD, shape, o); }, "dht (axis 0) needs transform r2r");
  EXPECT_THROW(dfft::Plan<double>(MPI_COMM_WORLD, shape, o), dfft::InvalidArgument);
  o.transform = Transform::r2c;
  o.r2r = {R2R::none, R2R::r2hc, R2R::none};
  expect_error_everywhere([&] { dfft::Plan<double> p(MPI_COMM_WORLD, shape, o); }, "r2hc (axis 1) needs transform r2r");
  o.transform = Transform::r2r;
  o.r2r = {R2R::dct2, R2R::hc2r, R2R::dht};
  if (on_cuda()) {
    expect_error_everywhere([&] { dfft::Plan<double> p(MPI_COMM_WORLD, shape, o); },
                            "hc2r (axis 1) has no implementation on the CUDA backend");
    EXPECT_THROW(dfft::Plan<double>(MPI_COMM_WORLD, shape, o), dfft::Unsupported);
  } else {
    EXPECT_NO_THROW(dfft::Plan<double>(MPI_COMM_WORLD, shape, o));
  }
  for (const char* k : {"r2hc", "hc2r", "dht"}) {
    EXPECT_EQ(dfft::to_string(dfft::parse_r2r(k)), k);
    EXPECT_TRUE(dfft::r2r_is_fftw_only(dfft::parse_r2r(k)));
    EXPECT_EQ(dfft::r2r_type(dfft::parse_r2r(k)), 0) << "not a DCT/DST type";
  }
  for (R2R k : {R2R::r2hc, R2R::hc2r, R2R::dht}) {
    EXPECT_EQ(dfft::r2r_inverse(k), inverse_of(k));
    EXPECT_EQ(dfft::r2r_logical_size(k, 7), logical(k, 7));
  }
  EXPECT_FALSE(dfft::r2r_is_fftw_only(R2R::dct2));
  EXPECT_FALSE(dfft::r2r_is_fftw_only(R2R::none));
}

}  // namespace r2r
}  // namespace
}  // namespace dfft_test
