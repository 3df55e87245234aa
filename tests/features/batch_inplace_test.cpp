// SPDX-License-Identifier: MIT
// Batched transforms equal the same number of single transforms (with the same exchange
// count: the batch rides in the same messages), and in-place transforms (r2c with the padded
// layout, c2c) equal out-of-place ones.
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
  dfft::Options o;
  o.decomposition = c.dec;
  o.variant = c.var;
  o.transform = c.tr;
  return o;
}


template <class T>
double round_tol() {  // different FFTW plans (batched, in-place) may round differently
  return std::is_same_v<T, double> ? 1e-13 : 1e-5;
}

template <class T, class In>
void batch_case(const Case& c) {
  using C = std::complex<T>;
  const Shape shape{9, 7, 6};
  const int nb = 5;
  dfft::Plan<T> plan(MPI_COMM_WORLD, shape, options_of(c));
  const auto ni = static_cast<std::size_t>(plan.input_count());
  const auto no = static_cast<std::size_t>(plan.output_count());
  std::vector<In> in(nb * ni);
  for (std::size_t i = 0; i < in.size(); ++i)
    in[i] = value_at<In>(static_cast<std::int64_t>(i), world_rank());
  std::vector<C> single(nb * no), batched(nb * no);
  for (int b = 0; b < nb; ++b) plan.forward(in.data() + b * ni, single.data() + b * no);
  const auto steps = plan.timings().size();
  EXPECT_THROW(plan.forward(nb, in.data(), batched.data()), dfft::InvalidArgument) << "batch not prepared";
  plan.prepare_batch(nb);
  plan.forward(nb, in.data(), batched.data());
  EXPECT_EQ(plan.timings().size(), steps) << "the batch should not add exchanges";
  EXPECT_LE(local_rel(batched, single), round_tol<T>()) << plan.describe();

  std::vector<In> inv_single(nb * ni), inv_batched(nb * ni);
  for (int b = 0; b < nb; ++b) plan.inverse(single.data() + b * no, inv_single.data() + b * ni);
  plan.inverse(nb, batched.data(), inv_batched.data());
  EXPECT_LE(local_rel(inv_batched, inv_single), round_tol<T>());
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
  dfft::Plan<T> ref(MPI_COMM_WORLD, shape, o);
  o.in_place = true;
  dfft::Plan<T> ip(MPI_COMM_WORLD, shape, o);
  const Layout il = ip.input_layout();
  if (c.tr == Transform::r2c) {  // FFTW's padded real layout: last axis allocated 2*(n/2+1)
    ASSERT_EQ(il.padded.size(), shape.size());
    EXPECT_EQ(il.padded.back(), 2 * (shape.back() / 2 + 1));
  }
  // Out of place.
  auto in = make_local<In>(ref.input_layout(), shape, 3);
  std::vector<C> want(static_cast<std::size_t>(ref.output_count()));
  ref.forward(in.data(), want.data());
  // In place: one buffer large enough for both sides.
  const std::size_t bytes = std::max(ip.input_count() * sizeof(In), ip.output_count() * sizeof(C));
  std::vector<C> buf(bytes / sizeof(C) + 1);
  auto* real_view = reinterpret_cast<In*>(buf.data());
  const auto local = make_local<In>(il, shape, 3);
  std::copy(local.begin(), local.end(), real_view);
  ip.forward(real_view, buf.data());
  EXPECT_TRUE(all_ranks(ip.output_layout().box == ref.output_layout().box));
  std::vector<C> got(buf.begin(), buf.begin() + ip.output_count());
  EXPECT_LE(local_rel(got, want), round_tol<T>()) << ip.describe();
  // Inverse in place back to the input (the default norm scales it by 1/N).
  ip.inverse(buf.data(), real_view);
  double err = 0, mag = 0;
  for_box(il.box, [&](const Shape& idx) {
    const auto k = static_cast<std::size_t>(padded_offset(il, idx));
    err = std::max(err, static_cast<double>(std::abs(real_view[k] - local[k])));
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
  dfft::Options o;
  o.batches = {3};  // the batched plan made by the constructor
  dfft::Plan<double> plan(MPI_COMM_WORLD, shape, uin[r], uout[r], o);
  const auto ni = static_cast<std::size_t>(plan.input_count());
  const auto no = static_cast<std::size_t>(plan.output_count());
  std::vector<double> in(3 * ni);
  for (int b = 0; b < 3; ++b) {
    auto one = make_local<double>(uin[r], shape, b, 0.0);
    std::copy(one.begin(), one.end(), in.begin() + b * ni);
  }
  std::vector<cd> single(3 * no), batched(3 * no);
  for (int b = 0; b < 3; ++b) plan.forward(in.data() + b * ni, single.data() + b * no);
  plan.forward(3, in.data(), batched.data());
  // Compare on the box only (padding is not written).
  double err = 0;
  for (int b = 0; b < 3; ++b)
    for_box(uout[r].box, [&](const Shape& idx) {
      const auto k = b * no + static_cast<std::size_t>(padded_offset(uout[r], idx));
      err = std::max(err, std::abs(batched[k] - single[k]));
    });
  EXPECT_LE(max_over_ranks(err), 1e-10);
}

}  // namespace
}  // namespace dfft_test
