// SPDX-License-Identifier: MIT
// Batched transforms (each array of the batch against serial FFTW of its global array, the
// inverse against the input, with no more exchange steps than one transform: the batch rides in
// the same messages) and in-place transforms (r2c with the padded layout, c2c; against serial
// FFTW and back to the input; c2c over two of three axes with overlap slices against serial FFTW
// over those axes). Every backend; on cuda the arrays live in GPU memory.
#include <cstring>
#include <sstream>

#include "features/feature_util.hpp"

namespace dfft_test {
namespace {

using dfft::Decomposition;
using dfft::Transform;
using dfft::Variant;

struct Case {
  Decomposition dec;
  Variant var;
  Transform tr;
  bool dbl;
};

std::string name_of(const ::testing::TestParamInfo<Case>& i) {
  std::ostringstream o;
  o << to_string(i.param.dec) << "_" << to_string(i.param.var) << "_" << to_string(i.param.tr)
    << (i.param.dbl ? "_double" : "_float");
  std::string s = o.str();
  for (auto& ch : s)
    if (ch == '-') ch = '_';
  return s;
}

// gtest prints the parameter with its test name instead of a byte dump.
void PrintTo(const Case& c, std::ostream* os) {
  *os << name_of(::testing::TestParamInfo<Case>(c, 0));
}

std::vector<Case> cases() {
  std::vector<Case> v;
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil})
    for (auto var : {Variant::Default, Variant::Realigned})
      for (auto tr : {Transform::r2c, Transform::c2c})
        for (bool dbl : {true, false}) v.push_back({dec, var, tr, dbl});
  return v;
}

dfft::Options options_of(const Case& c) {
  auto o = backend_options();
  o.decomposition = c.dec;
  o.variant = c.var;
  o.transform = c.tr;
  return o;
}

template <class T>
double round_tol() {  // batched and in-place FFT plans round differently, cuFFT more
  if (!std::is_same_v<T, double>) return 1e-5;
  return on_cuda() ? 1e-12 : 1e-13;
}

/// The global spectrum of `shape` an r2c plan (last axis halved) or a c2c plan writes.
Shape spectrum_of(const Shape& shape, bool r2c) {
  Shape spec = shape;
  if (r2c) spec.back() = spec.back() / 2 + 1;
  return spec;
}

// Runs f<T, In>(c) with the element types of c: T the precision, In the input's element (real
// for r2c, complex for c2c).
template <class F>
void with_types(const Case& c, F f) {
  if (c.dbl) {
    if (c.tr == Transform::r2c)
      f.template operator()<double, double>(c);
    else
      f.template operator()<double, std::complex<double>>(c);
  } else {
    if (c.tr == Transform::r2c)
      f.template operator()<float, float>(c);
    else
      f.template operator()<float, std::complex<float>>(c);
  }
}

// `overlap` > 1: the FFTs beside an exchange run in slices; the batch axis is one that no FFT
// transforms, so the group takes the FFTs on both sides of the exchange.
template <class T, class In>
void batch_case(const Case& c, int overlap = 1) {
  using C = std::complex<T>;
  // With slices, axes long enough that an FFTW plan made out of place and run in place gives
  // wrong values (at 9x7x6 it happens to give right ones).
  const Shape shape = overlap > 1 ? Shape{256, 8, 6} : Shape{9, 7, 6};
  const bool r2c = c.tr == Transform::r2c;
  const int nb = 5;
  auto o = options_of(c);
  o.overlap = overlap;
  auto plan = make_plan<T>(shape, o);
  if (!plan) return;
  const auto ni = static_cast<std::size_t>(plan->input_count());
  const auto no = static_cast<std::size_t>(plan->output_count());
  // Array b of the batch holds the global signal of seed b.
  std::vector<In> in_h(nb * ni);
  for (int b = 0; b < nb; ++b) {
    const auto one = make_local<In>(plan->input_layout(), shape, b);
    ASSERT_EQ(one.size(), ni);
    std::copy(one.begin(), one.end(), in_h.begin() + b * static_cast<std::ptrdiff_t>(ni));
  }
  DevArray<In> in(in_h);
  DevArray<C> single(no), batched(nb * no);
  plan->forward(in.get(), single.get());
  const auto steps = plan->timings().size();
  EXPECT_THROW(plan->forward(nb, in.get(), batched.get()), dfft::InvalidArgument) << "batch not prepared";
  plan->prepare_batch(nb);
  plan->forward(nb, in.get(), batched.get());
  EXPECT_EQ(plan->timings().size(), steps) << "the batch should not add exchanges";
  const auto got = batched.host();
  const Shape spec = spectrum_of(shape, r2c);
  for (int b = 0; b < nb; ++b) {
    const auto global = gather_padded(plan->output_layout(), spec, got.data() + b * no);
    EXPECT_LE(rel_max(global, serial_forward(shape, global_signal(shape, b, r2c), r2c)), ref_tol<T>())
        << "array " << b << " of the batch\n" << plan->describe();
  }
  // The inverse (the default norm scales it by 1/N) gives the inputs back.
  DevArray<In> back(nb * ni);
  plan->inverse(nb, batched.get(), back.get());
  EXPECT_LE(local_rel(back.host(), in_h), 10 * round_tol<T>());
}

class Batch : public ::testing::TestWithParam<Case> {};

TEST_P(Batch, FiveEqualFiveSinglesWithOverlapSlices) {
  with_types(GetParam(), [&]<class T, class In>(const Case& c) { batch_case<T, In>(c, 4); });
}

TEST_P(Batch, FiveEqualFiveSingles) {
  with_types(GetParam(), [&]<class T, class In>(const Case& c) { batch_case<T, In>(c); });
}

// `overlap` > 1: the FFTs beside an exchange run in slices; executed in place, the first FFT
// transforms the caller's array where it lies only where no sliced FFT writes that array while
// the exchange after it still reads it.
template <class T, class In>
void inplace_case(const Case& c, int overlap = 1) {
  using C = std::complex<T>;
  const Shape shape{9, 7, 6};
  const bool r2c = c.tr == Transform::r2c;
  auto o = options_of(c);
  o.in_place = true;
  o.overlap = overlap;
  auto ip = make_plan<T>(shape, o);
  if (!ip) return;
  const Layout il = ip->input_layout();
  if (r2c) {  // FFTW's padded real layout: last axis allocated 2*(n/2+1)
    ASSERT_EQ(il.padded.size(), shape.size());
    EXPECT_EQ(il.padded.back(), 2 * (shape.back() / 2 + 1));
  }
  // One buffer large enough for both sides, the padded input at its start.
  const std::size_t bytes = std::max(ip->input_count() * sizeof(In), ip->output_count() * sizeof(C));
  const auto local = make_local<In>(il, shape, 3);  // NaN padding: must never be read
  std::vector<C> buf_h(bytes / sizeof(C) + 1, C(0));
  std::memcpy(static_cast<void*>(buf_h.data()), local.data(), local.size() * sizeof(In));
  DevArray<C> buf(buf_h);
  auto* real_view = reinterpret_cast<In*>(buf.get());
  ip->forward(real_view, buf.get());
  auto got = buf.host();
  got.resize(static_cast<std::size_t>(ip->output_count()));
  const auto global = gather_padded(ip->output_layout(), spectrum_of(shape, r2c), got.data());
  EXPECT_LE(rel_max(global, serial_forward(shape, global_signal(shape, 3, r2c), r2c)), ref_tol<T>())
      << ip->describe();
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

class InPlace : public ::testing::TestWithParam<Case> {};

TEST_P(InPlace, EqualsOutOfPlace) {
  with_types(GetParam(), [&]<class T, class In>(const Case& c) { inplace_case<T, In>(c); });
}

TEST_P(InPlace, EqualsOutOfPlaceWithOverlapSlices) {
  with_types(GetParam(), [&]<class T, class In>(const Case& c) { inplace_case<T, In>(c, 4); });
}

// c2c over axes {0, 1} of a 3-D array with 4 overlap slices: axis 2 is transformed by no FFT, so
// a group takes the FFTs on both sides of an exchange. Out of place it must give serial FFTW over
// those two axes and the input back, and executed in place what it gives out of place, both
// directions.
template <class T>
void axes_subset_in_place(const Case& c) {
  using C = std::complex<T>;
  // Long enough axes that an FFTW plan made out of place and run in place gives wrong values
  // (at 9x7x6 it happens to give right ones).
  const Shape shape{256, 24, 6};
  const std::vector<int> axes{0, 1};
  auto o = options_of(c);
  o.axes = axes;
  o.overlap = 4;
  auto plan = make_plan<T>(shape, o);
  if (!plan) return;
  const auto ni = static_cast<std::size_t>(plan->input_count()), no = static_cast<std::size_t>(plan->output_count());
  const auto local = make_local<C>(plan->input_layout(), shape, 4);
  DevArray<C> in(local), out(no);
  plan->forward(in.get(), out.get());
  const auto out_h = out.host();
  const auto want = serial_c2c_axes(shape, global_signal(shape, 4, false), axes, FFTW_FORWARD);
  EXPECT_LE(rel_max(gather_padded(plan->output_layout(), shape, out_h.data()), want), ref_tol<T>())
      << "out of place against serial FFTW\n" << plan->describe();
  std::vector<C> buf_h(std::max(ni, no), C(0));
  std::copy(local.begin(), local.end(), buf_h.begin());
  DevArray<C> buf(buf_h);
  plan->forward(buf.get(), buf.get());
  auto got = buf.host();
  got.resize(no);
  EXPECT_LE(max_over_ranks(local_rel(got, out_h)), 10 * round_tol<T>()) << "forward\n" << plan->describe();
  // The inverse (the default norm scales it by 1/N) gives the input back, out of place and in place.
  DevArray<C> back(ni);
  plan->inverse(out.get(), back.get());
  const auto back_h = back.host();
  EXPECT_LE(local_rel(back_h, local), 10 * round_tol<T>()) << "inverse against the input\n" << plan->describe();
  plan->inverse(buf.get(), buf.get());
  got = buf.host();
  got.resize(ni);
  EXPECT_LE(max_over_ranks(local_rel(got, back_h)), 10 * round_tol<T>()) << "inverse\n" << plan->describe();
}

class InPlaceAxes : public ::testing::TestWithParam<Case> {};

TEST_P(InPlaceAxes, SubsetWithOverlapSlicesEqualsOutOfPlace) {
  const auto& c = GetParam();
  if (c.dbl)
    axes_subset_in_place<double>(c);
  else
    axes_subset_in_place<float>(c);
}

INSTANTIATE_TEST_SUITE_P(Features, Batch, ::testing::ValuesIn(cases()), name_of);
INSTANTIATE_TEST_SUITE_P(Features, InPlace, ::testing::ValuesIn(cases()), name_of);

std::vector<Case> c2c_cases() {
  std::vector<Case> v;
  for (const Case& c : cases())
    if (c.tr == Transform::c2c) v.push_back(c);
  return v;
}
INSTANTIATE_TEST_SUITE_P(Features, InPlaceAxes, ::testing::ValuesIn(c2c_cases()), name_of);

// The batch folds into a box-API plan too (reshapes included).
TEST(BatchBoxes, BatchWithUserBoxes) {
  const Shape shape{7, 6, 5};
  std::mt19937 g(5);
  const auto uin = random_layouts(shape, g, true);
  Shape spec = shape;
  spec.back() = spec.back() / 2 + 1;
  const auto uout = random_layouts(spec, g, true);
  const int r = world_rank();
  auto o = backend_options();
  o.batches = {3};  // the batched plan made by the constructor
  auto plan = make_plan<double>(shape, uin[r], uout[r], o);
  if (!plan) return;
  const auto ni = static_cast<std::size_t>(plan->input_count());
  const auto no = static_cast<std::size_t>(plan->output_count());
  std::vector<double> in_h(3 * ni);
  for (int b = 0; b < 3; ++b) {
    auto one = make_local<double>(uin[r], shape, b, 0.0);
    std::copy(one.begin(), one.end(), in_h.begin() + b * ni);
  }
  DevArray<double> in(in_h);
  DevArray<cd> batched(3 * no);
  plan->forward(3, in.get(), batched.get());
  const auto batched_h = batched.host();
  // Each array against serial FFTW (the gather reads the box only: padding is not written).
  for (int b = 0; b < 3; ++b)
    EXPECT_LE(rel_max(gather_padded(uout[r], spec, batched_h.data() + b * no),
                      serial_forward(shape, global_signal(shape, b, true), true)),
              ref_tol<double>())
        << "array " << b << " of the batch";
}

}  // namespace
}  // namespace dfft_test
