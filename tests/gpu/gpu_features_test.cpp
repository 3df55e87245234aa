// SPDX-License-Identifier: MIT
// The feature tests on the CUDA backend (the CPU versions are tests/features/*): random
// input/output box sets (empty boxes, shuffled memory orders, padding) against serial FFTW;
// dfft::Reshape on device memory, A -> B -> A bitwise; a batch of 5 equals 5 single transforms;
// in place equals out of place; DCT/DST (real and mixed with periodic axes) against FFTW's
// serial r2r on odd sizes. Every array lives in GPU memory; the checks run on host copies.
// Suites are named GpuFeatures* (filter: --gtest_filter='*GpuFeatures*').
#include <cuda_runtime.h>

#include <cstring>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "dfft/reshape.hpp"
#include "features/feature_util.hpp"
#include "gpu_util.hpp"

namespace dfft_gpu {
namespace {

// The feature tests' helpers (tilings, local arrays, gathers); world_rank & co. stay this
// suite's (found first, in dfft_gpu).
using namespace dfft_test;
using dfft::Decomposition;
using dfft::Method;
using dfft::R2R;
using dfft::Transform;
using dfft::Variant;

/// The GPU of this rank: node-local rank modulo visible devices (the plans' default too).
int my_gpu() {
  static const int dev = [] {
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int local = 0, count = 1;
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) count = 1;
    return local % count;
  }();
  return dev;
}

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

/// A device copy of a host vector (at least one element allocated, so empty boxes get a valid
/// pointer too).
template <class V>
class DevArray {
 public:
  explicit DevArray(const std::vector<V>& host) : n_(host.size()) {
    check_cuda(cudaSetDevice(my_gpu()), "cudaSetDevice");
    check_cuda(cudaMalloc(&p_, std::max<std::size_t>(n_, 1) * sizeof(V)), "cudaMalloc");
    if (n_) check_cuda(cudaMemcpy(p_, host.data(), n_ * sizeof(V), cudaMemcpyHostToDevice), "upload");
  }
  ~DevArray() { cudaFree(p_); }
  DevArray(const DevArray&) = delete;
  DevArray& operator=(const DevArray&) = delete;
  V* get() const { return static_cast<V*>(p_); }
  std::vector<V> host() const {
    std::vector<V> h(n_);
    if (n_) check_cuda(cudaMemcpy(h.data(), p_, n_ * sizeof(V), cudaMemcpyDeviceToHost), "download");
    return h;
  }

 private:
  std::size_t n_;
  void* p_ = nullptr;
};

dfft::Options gpu_options(Decomposition dec, Transform tr) {
  dfft::Options o;
  o.decomposition = dec;
  o.transform = tr;
  o.backend = dfft::Backend::cuda;
  o.device = my_gpu();
  return o;
}

/// A plan made collectively; nullptr (and a failure on every rank) when some rank refused.
template <class T, class... Args>
std::unique_ptr<dfft::Plan<T>> make_plan(Args&&... args) {
  std::unique_ptr<dfft::Plan<T>> p;
  const Outcome o = run_collective([&] { p = std::make_unique<dfft::Plan<T>>(MPI_COMM_WORLD, args...); });
  EXPECT_EQ(o.ranks_with_error, 0) << o.what;
  if (o.ranks_with_error > 0) p.reset();
  return p;
}

template <class V>
bool same_bits(const V& a, const V& b) {
  return std::memcmp(&a, &b, sizeof(V)) == 0;
}

template <class V>
bool all_same_bits(const std::vector<V>& a, const std::vector<V>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!same_bits(a[i], b[i])) return false;
  return true;
}

template <class V>
V nan_value() {
  return V(std::numeric_limits<double>::quiet_NaN());
}

std::string clean(std::string s) {
  for (auto& ch : s)
    if (ch == '-') ch = '_';
  return s;
}

// ---- Random boxes ----------------------------------------------------------------------------

struct BoxCase {
  Decomposition dec;
  Transform tr;
  bool dbl;
  Shape shape;
  int seed;
  Method method;
};

std::string box_name(const ::testing::TestParamInfo<BoxCase>& i) {
  const auto& c = i.param;
  std::ostringstream o;
  o << to_string(c.dec) << "_" << to_string(c.tr) << (c.dbl ? "_double_" : "_float_");
  for (std::size_t a = 0; a < c.shape.size(); ++a) o << (a ? "x" : "") << c.shape[a];
  o << "_seed" << c.seed << "_" << to_string(c.method);
  return clean(o.str());
}
void PrintTo(const BoxCase& c, std::ostream* os) { *os << box_name({c, 0}); }

template <class T, class In>
void run_boxes(const BoxCase& c) {
  using C = std::complex<T>;
  const bool r2c = c.tr == Transform::r2c;
  Shape spec = c.shape;
  if (r2c) spec.back() = spec.back() / 2 + 1;
  std::mt19937 g(static_cast<unsigned>(1000 * c.seed + 17 * static_cast<int>(c.dec) + c.shape.size()));
  const auto uin = random_layouts(c.shape, g, true);
  const auto uout = random_layouts(spec, g, true);
  const int r = world_rank();
  auto o = gpu_options(c.dec, c.tr);
  o.methods = {c.method};
  auto plan = make_plan<T>(c.shape, uin[r], uout[r], o);
  if (!plan) return;
  EXPECT_TRUE(all_ranks(plan->input_box() == uin[r].box && plan->output_box() == uout[r].box &&
                        plan->input_layout().order == uin[r].order &&
                        plan->output_layout().order == uout[r].order));

  const auto in_h = make_local<In>(uin[r], c.shape, c.seed);  // NaN padding
  DevArray<In> in(in_h);
  DevArray<C> out(std::vector<C>(static_cast<std::size_t>(alloc_elems(uout[r])) + 1, nan_value<C>()));
  plan->forward(in.get(), out.get());
  const auto out_h = out.host();
  const auto x = global_signal(c.shape, c.seed, r2c);
  const double tol = 10 * ref_tol<T>();
  EXPECT_LE(max_over_ranks(rel_max(gather_padded(uout[r], spec, out_h.data()),
                                   serial_forward(c.shape, x, r2c))), tol)
      << plan->describe();
  EXPECT_TRUE(all_ranks(std::isnan(out_h.back().real()))) << "wrote past the output array";
  EXPECT_TRUE(all_ranks(all_same_bits(in.host(), in_h))) << "forward changed its input";

  DevArray<In> back(std::vector<In>(in_h.size() + 1, nan_value<In>()));
  plan->inverse(out.get(), back.get());
  const auto back_h = back.host();
  EXPECT_LE(max_over_ranks(rel_max(gather_padded(uin[r], c.shape, back_h.data()), x)), tol);
  EXPECT_TRUE(all_ranks(std::isnan(std::real(back_h.back())))) << "wrote past the input array";
}

class GpuFeaturesBoxes : public GpuTest, public ::testing::WithParamInterface<BoxCase> {};

TEST_P(GpuFeaturesBoxes, MatchSerialFftw) {
  const auto& c = GetParam();
  const bool r2c = c.tr == Transform::r2c;
  if (c.dbl) r2c ? run_boxes<double, double>(c) : run_boxes<double, std::complex<double>>(c);
  else r2c ? run_boxes<float, float>(c) : run_boxes<float, std::complex<float>>(c);
}

std::vector<BoxCase> box_cases() {
  std::vector<BoxCase> v;
  const Method methods[] = {Method::a2a_sync, Method::p2p_streams, Method::a2a_type};
  int k = 0;
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil})
    for (auto tr : {Transform::r2c, Transform::c2c})
      for (bool dbl : {true, false})
        for (int seed : {1, 2}) v.push_back({dec, tr, dbl, {9, 7, 6}, seed, methods[k++ % 3]});
  v.push_back({Decomposition::slab_2d1d, Transform::r2c, true, {11, 8}, 3, Method::p2p_sync});
  v.push_back({Decomposition::pencil, Transform::c2c, true, {5, 4, 6, 5}, 4, Method::p2p_type});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Features, GpuFeaturesBoxes, ::testing::ValuesIn(box_cases()), box_name);

// ---- Reshape ---------------------------------------------------------------------------------

template <class V>
void reshape_round_trip(const Shape& shape, Method m, std::int64_t max_bytes, unsigned seed) {
  SCOPED_TRACE(to_string(m) + (max_bytes < 1024 ? " (split messages)" : ""));
  std::mt19937 g(seed);
  const auto A = random_layouts(shape, g, true);
  const auto B = random_layouts(shape, g, true);
  const int r = world_rank();
  std::unique_ptr<dfft::Reshape<V>> ab, ba;
  const Outcome made = run_collective([&] {
    ab = std::make_unique<dfft::Reshape<V>>(MPI_COMM_WORLD, A[r], B[r], m, max_bytes,
                                            dfft::Backend::cuda, my_gpu());
    ba = std::make_unique<dfft::Reshape<V>>(MPI_COMM_WORLD, B[r], A[r], m, max_bytes,
                                            dfft::Backend::cuda, my_gpu());
  });
  ASSERT_EQ(made.ranks_with_error, 0) << made.what;
  const int s = static_cast<int>(seed % 5);
  const auto a_h = make_local<V>(A[r], shape, s, V(-1));  // padding holds -1
  DevArray<V> a(a_h);
  DevArray<V> b(std::vector<V>(static_cast<std::size_t>(alloc_elems(B[r])) + 1, V(-2)));
  ab->execute(a.get(), b.get());
  const auto b_h = b.host();
  bool ok_b = same_bits(b_h.back(), V(-2));
  for_box(B[r].box, [&](const Shape& idx) {
    ok_b &= same_bits(b_h[padded_offset(B[r], idx)], value_at<V>(linear(idx, shape), s));
  });
  EXPECT_TRUE(all_ranks(ok_b)) << "A -> B misplaced elements";

  DevArray<V> a2(std::vector<V>(a_h.size() + 1, V(-1)));
  ba->execute(b.get(), a2.get());
  const auto a2_h = a2.host();
  bool box_ok = same_bits(a2_h.back(), V(-1)), pad_ok = true;
  std::vector<bool> in_box(a_h.size(), false);
  for_box(A[r].box, [&](const Shape& idx) {
    const auto k = static_cast<std::size_t>(padded_offset(A[r], idx));
    in_box[k] = true;
    box_ok &= same_bits(a2_h[k], a_h[k]);
  });
  for (std::size_t k = 0; k < a_h.size(); ++k)
    if (!in_box[k]) pad_ok &= same_bits(a2_h[k], V(-1));
  EXPECT_TRUE(all_ranks(box_ok)) << "A -> B -> A is not bitwise the original";
  EXPECT_TRUE(all_ranks(pad_ok)) << "the transport wrote into the padding of the output layout";
}

template <class V>
class GpuFeaturesReshape : public GpuTest {};
using Elems = ::testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(GpuFeaturesReshape, Elems);

TYPED_TEST(GpuFeaturesReshape, RoundTripIsExact) {
  unsigned seed = 11;
  for (auto m : {Method::a2a_sync, Method::a2a_type, Method::p2p_sync, Method::p2p_type,
                 Method::p2p_streams})
    reshape_round_trip<TypeParam>({7, 6, 5}, m, std::int64_t{1} << 30, seed++);
  reshape_round_trip<TypeParam>({13, 4}, Method::a2a_sync, std::int64_t{1} << 30, seed++);
  reshape_round_trip<TypeParam>({3, 4, 3, 5}, Method::p2p_streams, std::int64_t{1} << 30, seed++);
  // 48-byte messages: every block travels in several pieces.
  for (auto m : {Method::a2a_sync, Method::p2p_sync})
    reshape_round_trip<TypeParam>({7, 6, 5}, m, 48, 101 + static_cast<unsigned>(m));
}

// ---- Batch and in-place ----------------------------------------------------------------------

struct PlanCase {
  Decomposition dec;
  Variant var;
  Transform tr;
  bool dbl;
};

std::string plan_name(const ::testing::TestParamInfo<PlanCase>& i) {
  std::ostringstream o;
  o << to_string(i.param.dec) << "_" << to_string(i.param.var) << "_" << to_string(i.param.tr)
    << (i.param.dbl ? "_double" : "_float");
  return clean(o.str());
}
void PrintTo(const PlanCase& c, std::ostream* os) { *os << plan_name({c, 0}); }

std::vector<PlanCase> plan_cases() {
  std::vector<PlanCase> v;
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil})
    for (auto var : {Variant::Default, Variant::Realigned})
      for (auto tr : {Transform::r2c, Transform::c2c})
        for (bool dbl : {true, false}) v.push_back({dec, var, tr, dbl});
  return v;
}

/// Largest |a - b| over the largest |b|, over all ranks (arrays of equal length).
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

template <class T>
double round_tol() {  // batched and in-place cuFFT plans may round differently
  return std::is_same_v<T, double> ? 1e-12 : 1e-5;
}

template <class T, class In>
void batch_case(const PlanCase& c) {
  using C = std::complex<T>;
  const Shape shape{9, 7, 6};
  const int nb = 5;
  auto o = gpu_options(c.dec, c.tr);
  o.variant = c.var;
  auto plan = make_plan<T>(shape, o);
  if (!plan) return;
  const auto ni = static_cast<std::size_t>(plan->input_count());
  const auto no = static_cast<std::size_t>(plan->output_count());
  std::vector<In> in_h(nb * ni);
  for (std::size_t i = 0; i < in_h.size(); ++i)
    in_h[i] = value_at<In>(static_cast<std::int64_t>(i), world_rank());
  DevArray<In> in(in_h);
  DevArray<C> single(std::vector<C>(nb * no)), batched(std::vector<C>(nb * no));
  for (int b = 0; b < nb; ++b) plan->forward(in.get() + b * ni, single.get() + b * no);
  const auto steps = plan->timings().size();
  plan->prepare_batch(nb);
  plan->forward(nb, in.get(), batched.get());
  EXPECT_EQ(plan->timings().size(), steps) << "the batch should not add exchanges";
  EXPECT_LE(local_rel(batched.host(), single.host()), round_tol<T>()) << plan->describe();

  DevArray<In> inv_single(std::vector<In>(nb * ni)), inv_batched(std::vector<In>(nb * ni));
  for (int b = 0; b < nb; ++b) plan->inverse(single.get() + b * no, inv_single.get() + b * ni);
  plan->inverse(nb, batched.get(), inv_batched.get());
  EXPECT_LE(local_rel(inv_batched.host(), inv_single.host()), round_tol<T>());
}

class GpuFeaturesBatch : public GpuTest, public ::testing::WithParamInterface<PlanCase> {};

TEST_P(GpuFeaturesBatch, FiveEqualFiveSingles) {
  const auto& c = GetParam();
  const bool r2c = c.tr == Transform::r2c;
  if (c.dbl) r2c ? batch_case<double, double>(c) : batch_case<double, std::complex<double>>(c);
  else r2c ? batch_case<float, float>(c) : batch_case<float, std::complex<float>>(c);
}

template <class T, class In>
void inplace_case(const PlanCase& c) {
  using C = std::complex<T>;
  const Shape shape{9, 7, 6};
  auto o = gpu_options(c.dec, c.tr);
  o.variant = c.var;
  auto ref = make_plan<T>(shape, o);
  o.in_place = true;
  auto ip = make_plan<T>(shape, o);
  if (!ref || !ip) return;
  const Layout il = ip->input_layout();
  if (c.tr == Transform::r2c) {  // FFTW's padded real layout: last axis allocated 2*(n/2+1)
    ASSERT_EQ(il.padded.size(), shape.size());
    EXPECT_EQ(il.padded.back(), 2 * (shape.back() / 2 + 1));
  }
  // Out of place.
  DevArray<In> in(make_local<In>(ref->input_layout(), shape, 3));
  DevArray<C> want(std::vector<C>(static_cast<std::size_t>(ref->output_count())));
  ref->forward(in.get(), want.get());
  // In place: one buffer large enough for both sides, the padded input at its start.
  const std::size_t bytes = std::max(ip->input_count() * sizeof(In), ip->output_count() * sizeof(C));
  const auto local = make_local<In>(il, shape, 3);  // NaN padding: must never be read
  std::vector<C> buf_h(bytes / sizeof(C) + 1, C(0));
  std::memcpy(static_cast<void*>(buf_h.data()), local.data(), local.size() * sizeof(In));
  DevArray<C> buf(buf_h);
  auto* real_view = reinterpret_cast<In*>(buf.get());
  ip->forward(real_view, buf.get());
  EXPECT_TRUE(all_ranks(ip->output_layout().box == ref->output_layout().box));
  auto got = buf.host();
  got.resize(static_cast<std::size_t>(ip->output_count()));
  EXPECT_LE(local_rel(got, want.host()), round_tol<T>()) << ip->describe();
  // Inverse in place back to the input (the default norm scales it by 1/N).
  ip->inverse(buf.get(), real_view);
  const auto back_c = buf.host();
  std::vector<In> back(local.size());
  std::memcpy(static_cast<void*>(back.data()), back_c.data(), back.size() * sizeof(In));
  double err = 0, mag = 0;
  for_box(il.box, [&](const Shape& idx) {
    const auto k = static_cast<std::size_t>(padded_offset(il, idx));
    const double d = static_cast<double>(std::abs(back[k] - local[k]));
    if (std::isnan(d) || d > err) err = d;
    mag = std::max(mag, static_cast<double>(std::abs(local[k])));
  });
  EXPECT_LE(max_over_ranks(err / (mag > 0 ? mag : 1)), 10 * round_tol<T>());
}

class GpuFeaturesInPlace : public GpuTest, public ::testing::WithParamInterface<PlanCase> {};

TEST_P(GpuFeaturesInPlace, EqualsOutOfPlace) {
  const auto& c = GetParam();
  const bool r2c = c.tr == Transform::r2c;
  if (c.dbl) r2c ? inplace_case<double, double>(c) : inplace_case<double, std::complex<double>>(c);
  else r2c ? inplace_case<float, float>(c) : inplace_case<float, std::complex<float>>(c);
}

INSTANTIATE_TEST_SUITE_P(Features, GpuFeaturesBatch, ::testing::ValuesIn(plan_cases()), plan_name);
INSTANTIATE_TEST_SUITE_P(Features, GpuFeaturesInPlace, ::testing::ValuesIn(plan_cases()), plan_name);

// ---- r2r ---------------------------------------------------------------------------------------

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
std::vector<cd> serial_r2r(const Shape& shape, std::vector<cd> x, const std::vector<R2R>& kinds,
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
      const fftw_r2r_kind k = fftw_kind(forward ? kinds[a] : dfft::r2r_inverse(kinds[a]));
      p = fftw_plan_guru64_r2r(1, &dim, 3, how, z, z, &k, FFTW_ESTIMATE);
    }
    if (!p) throw std::runtime_error("FFTW could not plan the serial reference");
    fftw_execute(p);
    fftw_destroy_plan(p);
  }
  return x;
}

struct R2rCase {
  Decomposition dec;
  Variant var;
  Transform tr;
  std::vector<R2R> kinds;
  bool dbl;
  Shape shape;
};

std::string r2r_name(const ::testing::TestParamInfo<R2rCase>& i) {
  const auto& c = i.param;
  std::ostringstream o;
  o << to_string(c.dec) << "_" << to_string(c.var) << "_" << to_string(c.tr);
  for (R2R k : c.kinds) o << "_" << (k == R2R::none ? std::string("periodic") : to_string(k));
  o << (c.dbl ? "_double_" : "_float_");
  for (std::size_t a = 0; a < c.shape.size(); ++a) o << (a ? "x" : "") << c.shape[a];
  return clean(o.str());
}
void PrintTo(const R2rCase& c, std::ostream* os) { *os << r2r_name({c, 0}); }

template <class T>
double r2r_tol() {
  return std::is_same_v<T, double> ? 1e-11 : 2e-5;
}

template <class T, class V>
void r2r_case(const R2rCase& c) {
  auto o = gpu_options(c.dec, c.tr);
  o.variant = c.var;
  o.r2r = c.kinds;
  auto plan = make_plan<T>(c.shape, o);
  if (!plan) return;
  EXPECT_EQ(plan->spectral_shape(), c.shape);
  const Layout il = plan->input_layout(), ol = plan->output_layout();
  const auto x = make_local<V>(il, c.shape, 2);
  const auto gx = gather_padded(il, c.shape, x.data());
  DevArray<V> dx(x);
  DevArray<V> dy(std::vector<V>(static_cast<std::size_t>(plan->output_count()) + 1, nan_value<V>()));
  plan->forward(dx.get(), dy.get());
  const auto y = dy.host();
  EXPECT_LE(max_over_ranks(rel_max(gather_padded(ol, c.shape, y.data()),
                                   serial_r2r(c.shape, gx, c.kinds, true))), r2r_tol<T>())
      << plan->describe();
  EXPECT_TRUE(all_ranks(std::isnan(std::real(y.back())))) << "wrote past the output array";
  EXPECT_TRUE(all_ranks(all_same_bits(dx.host(), x))) << "forward changed its input";

  // Inverse alone (the inverse kinds) on other data seen as spectral data, scaled by 1/N (the
  // default norm): the product of FFTW's logical sizes.
  double n = 1;
  for (std::size_t a = 0; a < c.shape.size(); ++a)
    n *= static_cast<double>(dfft::r2r_logical_size(c.kinds[a], c.shape[a]));
  const auto sp = make_local<V>(ol, c.shape, 4);
  DevArray<V> ds(sp), dz(std::vector<V>(x.size()));
  plan->inverse(ds.get(), dz.get());
  auto want = serial_r2r(c.shape, gather_padded(ol, c.shape, sp.data()), c.kinds, false);
  for (auto& v : want) v /= n;
  EXPECT_LE(max_over_ranks(rel_max(gather_padded(il, c.shape, dz.host().data()), want)), r2r_tol<T>());

  // Norm ortho: the round trip is the identity.
  o.norm = dfft::Norm::ortho;
  auto ortho = make_plan<T>(c.shape, o);
  if (!ortho) return;
  DevArray<V> back(std::vector<V>(x.size()));
  ortho->forward(dx.get(), dy.get());
  ortho->inverse(dy.get(), back.get());
  EXPECT_LE(max_over_ranks(rel_max(gather_padded(il, c.shape, back.host().data()), gx)),
            r2r_tol<T>());
}

class GpuFeaturesR2r : public GpuTest, public ::testing::WithParamInterface<R2rCase> {};

TEST_P(GpuFeaturesR2r, MatchesSerialFftw) {
  const auto& c = GetParam();
  if (c.tr == Transform::r2r) c.dbl ? r2r_case<double, double>(c) : r2r_case<float, float>(c);
  else c.dbl ? r2r_case<double, std::complex<double>>(c) : r2r_case<float, std::complex<float>>(c);
}

std::vector<R2rCase> r2r_cases() {
  std::vector<R2rCase> v;
  const std::vector<std::pair<Transform, std::vector<R2R>>> configs{
      {Transform::r2r, {R2R::dct2, R2R::dst2, R2R::dct2}},
      {Transform::r2r, {R2R::dst2, R2R::dst2, R2R::dst2}},
      {Transform::c2c, {R2R::none, R2R::dct2, R2R::none}},
      {Transform::c2c, {R2R::dst2, R2R::none, R2R::dct2}},
      {Transform::r2r, {R2R::dct1, R2R::dst4, R2R::dst1}},
      {Transform::r2r, {R2R::dct4, R2R::dct3, R2R::dst3}},
      {Transform::c2c, {R2R::dct4, R2R::none, R2R::dst1}}};
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil})
    for (auto var : {Variant::Default, Variant::Realigned})
      for (const auto& [tr, kinds] : configs)
        for (bool dbl : {true, false}) v.push_back({dec, var, tr, kinds, dbl, {9, 7, 5}});
  // A length-1 axis (no FFT on it) and even lengths; slab-2d1d never splits the last axis.
  v.push_back({Decomposition::slab_2d1d, Variant::Default, Transform::r2r,
               {R2R::dct2, R2R::dst2, R2R::dst2}, true, {6, 5, 1}});
  v.push_back({Decomposition::slab_2d1d, Variant::Realigned, Transform::c2c,
               {R2R::none, R2R::dct2, R2R::dst2}, false, {6, 5, 1}});
  v.push_back({Decomposition::pencil, Variant::Default, Transform::r2r,
               {R2R::dst2, R2R::dct2, R2R::dct2}, true, {8, 12, 10}});
  // Types I and IV on a length-1 axis (they run an FFT of length 4 / 2) and even lengths.
  v.push_back({Decomposition::slab_2d1d, Variant::Default, Transform::r2r,
               {R2R::dct1, R2R::dct4, R2R::dst1}, true, {6, 5, 1}});
  v.push_back({Decomposition::pencil, Variant::Realigned, Transform::r2r,
               {R2R::dst4, R2R::dct1, R2R::dct4}, false, {8, 12, 10}});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Features, GpuFeaturesR2r, ::testing::ValuesIn(r2r_cases()), r2r_name);

// r2r with user boxes (reshapes move reals, empty boxes) and a batch of 2.
class GpuFeaturesR2rMore : public GpuTest {};

TEST_F(GpuFeaturesR2rMore, BoxesAndBatch) {
  const Shape shape{7, 5, 6};
  const std::vector<R2R> kinds{R2R::dct1, R2R::dct4, R2R::dst2};
  std::mt19937 g(9);
  const auto uin = random_layouts(shape, g, true);
  const auto uout = random_layouts(shape, g, true);
  const int r = world_rank();
  auto o = gpu_options(Decomposition::pencil, Transform::r2r);
  o.r2r = kinds;
  auto plan = make_plan<double>(shape, uin[r], uout[r], o);
  if (!plan) return;
  const auto x = make_local<double>(uin[r], shape, 1, 0.0);
  DevArray<double> dx(x), dy(std::vector<double>(static_cast<std::size_t>(plan->output_count())));
  plan->forward(dx.get(), dy.get());
  const auto y = dy.host();
  const auto want = serial_r2r(shape, gather_padded(uin[r], shape, x.data()), kinds, true);
  EXPECT_LE(max_over_ranks(rel_max(gather_padded(uout[r], shape, y.data()), want)), 1e-11);

  // Batch of 2: the second array is -2 times the first.
  std::vector<double> xb(2 * x.size());
  std::copy(x.begin(), x.end(), xb.begin());
  for (std::size_t i = 0; i < x.size(); ++i) xb[x.size() + i] = -2 * x[i];
  DevArray<double> dxb(xb), dyb(std::vector<double>(2 * y.size()));
  plan->prepare_batch(2);
  plan->forward(2, dxb.get(), dyb.get());
  const auto yb = dyb.host();
  double err = 0;
  for_box(uout[r].box, [&](const Shape& idx) {
    const auto k = static_cast<std::size_t>(padded_offset(uout[r], idx));
    err = std::max({err, std::abs(yb[k] - y[k]), std::abs(yb[y.size() + k] + 2 * y[k])});
  });
  EXPECT_LE(max_over_ranks(err), 1e-10);
}

}  // namespace
}  // namespace dfft_gpu
