// SPDX-License-Identifier: MIT
// Batched transforms equal the same number of single transforms (with the same exchange
// count: the batch rides in the same messages), and in-place transforms (r2c with the padded
// layout, c2c) equal out-of-place ones. Every backend; on cuda the arrays live in GPU memory.
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
double round_tol() {  // different FFT plans (batched, in-place) may round differently, cuFFT more
  if (!std::is_same_v<T, double>) return 1e-5;
  return on_cuda() ? 1e-12 : 1e-13;
}

template <class T, class In>
void batch_case(const Case& c) {
  using C = std::complex<T>;
  const Shape shape{9, 7, 6};
  const int nb = 5;
  auto plan = make_plan<T>(shape, options_of(c));
  if (!plan) return;
  const auto ni = static_cast<std::size_t>(plan->input_count());
  const auto no = static_cast<std::size_t>(plan->output_count());
  std::vector<In> in_h(nb * ni);
  for (std::size_t i = 0; i < in_h.size(); ++i)
    in_h[i] = value_at<In>(static_cast<std::int64_t>(i), world_rank());
  DevArray<In> in(in_h);
  DevArray<C> single(nb * no), batched(nb * no);
  for (int b = 0; b < nb; ++b) plan->forward(in.get() + b * ni, single.get() + b * no);
  const auto steps = plan->timings().size();
  EXPECT_THROW(plan->forward(nb, in.get(), batched.get()), dfft::InvalidArgument) << "batch not prepared";
  plan->prepare_batch(nb);
  plan->forward(nb, in.get(), batched.get());
  EXPECT_EQ(plan->timings().size(), steps) << "the batch should not add exchanges";
  EXPECT_LE(local_rel(batched.host(), single.host()), round_tol<T>()) << plan->describe();

  DevArray<In> inv_single(nb * ni), inv_batched(nb * ni);
  for (int b = 0; b < nb; ++b) plan->inverse(single.get() + b * no, inv_single.get() + b * ni);
  plan->inverse(nb, batched.get(), inv_batched.get());
  EXPECT_LE(local_rel(inv_batched.host(), inv_single.host()), round_tol<T>());
}

class Batch : public ::testing::TestWithParam<Case> {};

TEST_P(Batch, FiveEqualFiveSingles) {
  const auto& c = GetParam();
  if (c.dbl) {
    if (c.tr == Transform::r2c)
      batch_case<double, double>(c);
    else
      batch_case<double, std::complex<double>>(c);
  } else {
    if (c.tr == Transform::r2c)
      batch_case<float, float>(c);
    else
      batch_case<float, std::complex<float>>(c);
  }
}

template <class T, class In>
void inplace_case(const Case& c) {
  using C = std::complex<T>;
  const Shape shape{9, 7, 6};
  auto o = options_of(c);
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
  DevArray<C> want(static_cast<std::size_t>(ref->output_count()));
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

class InPlace : public ::testing::TestWithParam<Case> {};

TEST_P(InPlace, EqualsOutOfPlace) {
  const auto& c = GetParam();
  if (c.dbl) {
    if (c.tr == Transform::r2c)
      inplace_case<double, double>(c);
    else
      inplace_case<double, std::complex<double>>(c);
  } else {
    if (c.tr == Transform::r2c)
      inplace_case<float, float>(c);
    else
      inplace_case<float, std::complex<float>>(c);
  }
}

INSTANTIATE_TEST_SUITE_P(Features, Batch, ::testing::ValuesIn(cases()), name_of);
INSTANTIATE_TEST_SUITE_P(Features, InPlace, ::testing::ValuesIn(cases()), name_of);

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
  DevArray<cd> single(3 * no), batched(3 * no);
  for (int b = 0; b < 3; ++b) plan->forward(in.get() + b * ni, single.get() + b * no);
  plan->forward(3, in.get(), batched.get());
  const auto single_h = single.host(), batched_h = batched.host();
  // Compare on the box only (padding is not written).
  double err = 0;
  for (int b = 0; b < 3; ++b)
    for_box(uout[r].box, [&](const Shape& idx) {
      const auto k = b * no + static_cast<std::size_t>(padded_offset(uout[r], idx));
      err = std::max(err, std::abs(batched_h[k] - single_h[k]));
    });
  EXPECT_LE(max_over_ranks(err), 1e-10);
}

}  // namespace
}  // namespace dfft_test
