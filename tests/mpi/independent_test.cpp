// SPDX-License-Identifier: MIT
// Checks that share no code with dfft::validate: a naive O(N^2) DFT written here (no FFTW at
// all) on a tiny odd size, and a serial FFTW transform of the gathered arrays. Negative
// controls show that these comparisons do fail when the data is wrong.
#include <fftw3.h>

#include <numbers>

#include "support/test_util.hpp"

namespace dfft_test {
namespace {

using dfft::Decomposition;
using dfft::Transform;
using dfft::Variant;

/// Naive d-dimensional DFT of a global natural-order array, evaluated at the spectral index
/// `k`: sum_n x[n] exp(sign * 2 pi i sum_a k_a n_a / N_a).
cd naive_dft_at(const std::vector<cd>& x, const Shape& shape, const Shape& k, int sign) {
  const int d = static_cast<int>(shape.size());
  cd sum = 0;
  Shape n(d, 0);
  for (std::size_t i = 0; i < x.size(); ++i) {
    double phase = 0;
    for (int a = 0; a < d; ++a)
      phase += static_cast<double>((k[a] * n[a]) % shape[a]) / static_cast<double>(shape[a]);
    const double ang = sign * 2 * std::numbers::pi * phase;
    sum += x[i] * cd(std::cos(ang), std::sin(ang));
    for (int a = d - 1; a >= 0; --a) {
      if (++n[a] < shape[a]) break;
      n[a] = 0;
    }
  }
  return sum;
}

dfft::Options options(Decomposition dec, Variant var, Transform tr) {
  dfft::Options o;
  o.decomposition = dec;
  o.variant = var;
  o.transform = tr;
  o.methods = {dfft::Method::p2p_sync};
  return o;
}

/// Fill the plan's local input from the global test signal.
template <class T, class V>
void fill_input(const dfft::Plan<T>& plan, std::vector<V>& in, bool complex_input) {
  in.assign(static_cast<std::size_t>(plan.input_count()), V{});
  for_box(plan.input_box(), [&](const Shape& idx) {
    const auto g = linear(idx, plan.shape());
    if constexpr (std::is_same_v<V, T>) {
      in[local_offset(plan.input_layout(), idx)] = static_cast<T>(signal(g, 1));
    } else {
      in[local_offset(plan.input_layout(), idx)] =
          V(static_cast<T>(signal(g, 1)), static_cast<T>(complex_input ? signal(g, 2) : 0.0));
    }
  });
}

/// Forward transform of the test signal; returns the max over ranks of the max-norm error
/// of this rank's output against the naive DFT, relative to the largest coefficient.
template <class T>
double naive_forward_error(Decomposition dec, Variant var, Transform tr, const Shape& shape) {
  dfft::Plan<T> plan(MPI_COMM_WORLD, shape, options(dec, var, tr));
  using C = std::complex<T>;
  std::vector<C> out(static_cast<std::size_t>(plan.output_count()));
  std::vector<cd> global(static_cast<std::size_t>(product(shape)));
  for (std::size_t i = 0; i < global.size(); ++i)
    global[i] = cd(static_cast<T>(signal(static_cast<std::int64_t>(i), 1)),
                   tr == Transform::c2c ? static_cast<T>(signal(static_cast<std::int64_t>(i), 2)) : 0);
  if (tr == Transform::r2c) {
    std::vector<T> in;
    fill_input(plan, in, false);
    plan.forward(in.data(), out.data());
  } else {
    std::vector<C> in;
    fill_input(plan, in, true);
    plan.forward(in.data(), out.data());
  }
  double err = 0, scale = 0;
  for_box(plan.output_box(), [&](const Shape& k) {
    const cd want = naive_dft_at(global, shape, k, -1);
    const cd got(out[local_offset(plan.output_layout(), k)]);
    err = std::max(err, std::abs(got - want));
    scale = std::max(scale, std::abs(want));
  });
  return max_over_ranks(err) / std::max(max_over_ranks(scale), 1e-300);
}

class NaiveDft : public ::testing::TestWithParam<std::tuple<Decomposition, Variant, Transform>> {};

TEST_P(NaiveDft, ForwardMatchesDefinitionDouble) {
  auto [dec, var, tr] = GetParam();
  EXPECT_LE(naive_forward_error<double>(dec, var, tr, {5, 6, 7}), 1e-12);
}
TEST_P(NaiveDft, ForwardMatchesDefinitionFloat) {
  auto [dec, var, tr] = GetParam();
  EXPECT_LE(naive_forward_error<float>(dec, var, tr, {5, 6, 7}), 1e-5);
}

// The inverse against the definition: inverse(naive forward of x) must be x (norm backward).
TEST_P(NaiveDft, InverseMatchesDefinition) {
  auto [dec, var, tr] = GetParam();
  const Shape shape{5, 6, 7};
  dfft::Plan<double> plan(MPI_COMM_WORLD, shape, options(dec, var, tr));
  const bool r2c = tr == Transform::r2c;
  std::vector<cd> global(static_cast<std::size_t>(product(shape)));
  for (std::size_t i = 0; i < global.size(); ++i)
    global[i] = {signal(static_cast<std::int64_t>(i), 3), r2c ? 0.0 : signal(static_cast<std::int64_t>(i), 4)};
  std::vector<cd> spec(static_cast<std::size_t>(plan.output_count()));
  for_box(plan.output_box(), [&](const Shape& k) {
    spec[local_offset(plan.output_layout(), k)] = naive_dft_at(global, shape, k, -1);
  });
  double err = 0;
  if (r2c) {
    std::vector<double> back(static_cast<std::size_t>(plan.input_count()));
    plan.inverse(spec.data(), back.data());
    for_box(plan.input_box(), [&](const Shape& i) {
      err = std::max(err, std::abs(back[local_offset(plan.input_layout(), i)] -
                                   global[linear(i, shape)].real()));
    });
  } else {
    std::vector<cd> back(static_cast<std::size_t>(plan.input_count()));
    plan.inverse(spec.data(), back.data());
    for_box(plan.input_box(), [&](const Shape& i) {
      err = std::max(err, std::abs(back[local_offset(plan.input_layout(), i)] - global[linear(i, shape)]));
    });
  }
  EXPECT_LE(max_over_ranks(err), 1e-12);
}

INSTANTIATE_TEST_SUITE_P(
    Tiny, NaiveDft,
    ::testing::Combine(::testing::Values(Decomposition::slab_2d1d, Decomposition::slab_1d2d,
                                         Decomposition::pencil),
                       ::testing::Values(Variant::Default, Variant::Realigned),
                       ::testing::Values(Transform::r2c, Transform::c2c)),
    [](const auto& pi) {
      std::string s = to_string(std::get<0>(pi.param)) + "_" + to_string(std::get<1>(pi.param)) +
                      "_" + to_string(std::get<2>(pi.param));
      for (auto& ch : s)
        if (ch == '-') ch = '_';
      return s;
    });

// The naive DFT itself must be able to tell a wrong answer: the conjugate-sign transform of
// non-symmetric data differs from the forward one.
TEST(NaiveDftControl, DetectsWrongSign) {
  const Shape shape{5, 6, 7};
  std::vector<cd> x(static_cast<std::size_t>(product(shape)));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = {signal(static_cast<std::int64_t>(i), 1), 0};
  double diff = 0, mag = 0;
  for (const Shape& k : {Shape{1, 2, 3}, Shape{0, 1, 1}, Shape{4, 5, 6}}) {
    diff = std::max(diff, std::abs(naive_dft_at(x, shape, k, -1) - naive_dft_at(x, shape, k, +1)));
    mag = std::max(mag, std::abs(naive_dft_at(x, shape, k, -1)));
  }
  EXPECT_GT(diff, 1e-3 * mag);
}

/// Serial FFTW transform (double, basic interface) of a gathered natural-order array.
std::vector<cd> serial_fftw(const std::vector<cd>& in, const Shape& shape, Transform tr, int sign) {
  std::vector<int> n(shape.begin(), shape.end());
  Shape spec = shape;
  if (tr == Transform::r2c) spec.back() = spec.back() / 2 + 1;
  std::vector<cd> out(static_cast<std::size_t>(product(spec)));
  auto* o = reinterpret_cast<fftw_complex*>(out.data());
  fftw_plan p;
  std::vector<double> rin;
  std::vector<cd> cin = in;
  if (tr == Transform::r2c) {
    for (auto v : in) rin.push_back(v.real());
    p = fftw_plan_dft_r2c(static_cast<int>(n.size()), n.data(), rin.data(), o, FFTW_ESTIMATE);
  } else {
    p = fftw_plan_dft(static_cast<int>(n.size()), n.data(), reinterpret_cast<fftw_complex*>(cin.data()), o,
                      sign, FFTW_ESTIMATE);
  }
  EXPECT_NE(p, nullptr);
  fftw_execute(p);
  fftw_destroy_plan(p);
  return out;
}

class GatheredReference : public ::testing::TestWithParam<std::tuple<Decomposition, Transform>> {};

// Gather input and output of a distributed forward transform, compare with serial FFTW, then
// corrupt a single output element on one rank and show the same comparison fails.
TEST_P(GatheredReference, MatchesAndDetectsCorruption) {
  auto [dec, tr] = GetParam();
  const Shape shape{17, 12, 10};
  dfft::Plan<double> plan(MPI_COMM_WORLD, shape, options(dec, Variant::Realigned, tr));
  // Every element of both distributions is owned by exactly one rank.
  for (int c : coverage(plan.input_box(), plan.shape())) ASSERT_EQ(c, 1);
  for (int c : coverage(plan.output_box(), plan.spectral_shape())) ASSERT_EQ(c, 1);

  std::vector<cd> out(static_cast<std::size_t>(plan.output_count()));
  std::vector<cd> gin;
  if (tr == Transform::r2c) {
    std::vector<double> in;
    fill_input(plan, in, false);
    gin = gather(plan.input_layout(), plan.shape(), in.data());
    plan.forward(in.data(), out.data());
  } else {
    std::vector<cd> in;
    fill_input(plan, in, true);
    gin = gather(plan.input_layout(), plan.shape(), in.data());
    plan.forward(in.data(), out.data());
  }
  const auto want = serial_fftw(gin, shape, tr, FFTW_FORWARD);
  const double good = rel_l2(gather(plan.output_layout(), plan.spectral_shape(), out.data()), want);
  EXPECT_LE(good, 1e-12);

  // Negative control 1: one wrong element (on the last rank that holds any output).
  int holder = plan.output_count() > 0 ? world_rank() : -1;
  MPI_Allreduce(MPI_IN_PLACE, &holder, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (world_rank() == holder) out[out.size() / 2] += cd(50.0, -50.0);
  const double bad = rel_l2(gather(plan.output_layout(), plan.spectral_shape(), out.data()), want);
  EXPECT_GT(bad, 1e-3) << "a corrupted element went unnoticed";

  // Negative control 2: the opposite-sign transform is not what dfft computes.
  if (tr == Transform::c2c) {
    const auto wrong = serial_fftw(gin, shape, tr, FFTW_BACKWARD);
    EXPECT_GT(rel_l2(wrong, want), 1e-2);
  }
}

INSTANTIATE_TEST_SUITE_P(All, GatheredReference,
                         ::testing::Combine(::testing::Values(Decomposition::slab_2d1d,
                                                              Decomposition::slab_1d2d,
                                                              Decomposition::pencil),
                                            ::testing::Values(Transform::r2c, Transform::c2c)),
                         dfft_test::decomp_transform_name);

// numpy's norms against serial FFTW (unnormalised both ways): the forward output is the serial
// spectrum times 1, 1/sqrt(N) or 1/N, and the inverse of the serial spectrum is the input times
// 1, sqrt(N) or N (backward, ortho, forward). Norm none scales neither: the forward is the serial
// spectrum and the inverse of it N times the input (forward then inverse: N x).
class Norms : public ::testing::TestWithParam<std::tuple<dfft::Norm, Transform>> {};

TEST_P(Norms, MatchSerialFftw) {
  auto [norm, tr] = GetParam();
  const Shape shape{17, 12, 10};
  const double n = static_cast<double>(product(shape));
  const double fwd = norm == dfft::Norm::backward || norm == dfft::Norm::none ? 1
                     : norm == dfft::Norm::ortho                             ? 1 / std::sqrt(n)
                                                                             : 1 / n;
  const double round = norm == dfft::Norm::none ? n : 1;  // forward then inverse
  auto o = options(Decomposition::pencil, Variant::Default, tr);
  o.norm = norm;
  o.effort = dfft::Effort::estimate;
  dfft::Plan<double> plan(MPI_COMM_WORLD, shape, o);
  const bool r2c = tr == Transform::r2c;
  std::vector<double> rin, rback(r2c ? static_cast<std::size_t>(plan.input_count()) : 0);
  std::vector<cd> cin, cback(r2c ? 0 : static_cast<std::size_t>(plan.input_count()));
  std::vector<cd> out(static_cast<std::size_t>(plan.output_count())), gin;
  if (r2c) {
    fill_input(plan, rin, false);
    gin = gather(plan.input_layout(), plan.shape(), rin.data());
    plan.forward(rin.data(), out.data());
  } else {
    fill_input(plan, cin, true);
    gin = gather(plan.input_layout(), plan.shape(), cin.data());
    plan.forward(cin.data(), out.data());
  }
  const auto spec = serial_fftw(gin, shape, tr, FFTW_FORWARD);
  auto want = spec;
  for (auto& v : want) v *= fwd;
  EXPECT_LE(rel_l2(gather(plan.output_layout(), plan.spectral_shape(), out.data()), want), 1e-12);
  for_box(plan.output_box(), [&](const Shape& k) {
    out[local_offset(plan.output_layout(), k)] = spec[static_cast<std::size_t>(linear(k, plan.spectral_shape()))];
  });
  const auto spec_in = out;  // the inverse takes its input as const: it must stay untouched
  std::vector<cd> back;
  if (r2c) {
    plan.inverse(out.data(), rback.data());
    back = gather(plan.input_layout(), plan.shape(), rback.data());
  } else {
    plan.inverse(out.data(), cback.data());
    back = gather(plan.input_layout(), plan.shape(), cback.data());
  }
  for (auto& v : gin) v *= round / fwd;
  EXPECT_LE(rel_l2(back, gin), 1e-12);
  EXPECT_TRUE(all_ranks(out == spec_in)) << "the inverse overwrote its input";
}

INSTANTIATE_TEST_SUITE_P(All, Norms,
                         ::testing::Combine(::testing::Values(dfft::Norm::backward, dfft::Norm::ortho,
                                                              dfft::Norm::forward, dfft::Norm::none),
                                            ::testing::Values(Transform::r2c, Transform::c2c)),
                         [](const auto& pi) {
                           return to_string(std::get<0>(pi.param)) + "_" + to_string(std::get<1>(pi.param));
                         });

}  // namespace
}  // namespace dfft_test
