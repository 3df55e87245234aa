// SPDX-License-Identifier: MIT
// Options::directions: a plan made for one direction runs it as a plan for both would (checked
// against FFTW's serial transform of the whole array, and the inverse against the input times
// the unnormalised round trip's factor), on every decomposition, r2c and c2c, with and without a
// transposed output, both precisions; the direction it was not made for is refused with
// InvalidArgument, and describe() says which one it runs.
#include <complex>

#include "features/feature_util.hpp"

namespace dfft_test {
namespace {
namespace directions {  // names of its own in a unity build

using dfft::Decomposition;
using dfft::Directions;

// Unnormalised r2c (real input) or c2c (complex input) on the backend under test.
dfft::Options unnormalised(Decomposition dec, bool c2c, bool transposed) {
  dfft::Options o = backend_options();
  o.decomposition = dec;
  o.transform = c2c ? dfft::Transform::c2c : dfft::Transform::r2c;
  o.norm = dfft::Norm::none;
  o.transposed_out = transposed;
  return o;
}

template <class T, class In>
void one_direction_plans(Decomposition dec, const Shape& shape, bool transposed) {
  using C = std::complex<T>;
  constexpr bool c2c = std::is_same_v<In, C>;
  dfft::Options o = unnormalised(dec, c2c, transposed);
  o.directions = Directions::forward;
  auto fwd = make_plan<T>(shape, o);
  o.directions = Directions::inverse;
  auto inv = make_plan<T>(shape, o);
  if (!fwd || !inv) return;
  ASSERT_EQ(fwd->output_count(), inv->output_count());
  const auto x = make_local<In>(fwd->input_layout(), shape, 3, In(0));
  DevArray<In> dx(x), back(x.size());
  DevArray<C> spec(static_cast<std::size_t>(fwd->output_count()));
  fwd->forward(dx.get(), spec.get());
  Shape spectral = shape;
  if (!c2c) spectral.back() = spectral.back() / 2 + 1;
  const auto got = gather_padded(fwd->output_layout(), spectral, spec.host().data());
  const auto want = serial_forward(shape, global_signal(shape, 3, !c2c), !c2c);
  const double tol = std::is_same_v<T, double> ? 1e-12 : 2e-5;
  EXPECT_LE(rel_max(got, want), tol) << fwd->describe();
  inv->inverse(spec.get(), back.get());
  double n = 1;
  for (auto e : shape) n *= static_cast<double>(e);
  auto scaled = x;
  for (auto& v : scaled) v *= static_cast<T>(n);
  EXPECT_LE(local_rel(back.host(), scaled), tol) << inv->describe();
  EXPECT_THROW(fwd->inverse(spec.get(), back.get()), dfft::InvalidArgument);
  EXPECT_THROW(inv->forward(dx.get(), spec.get()), dfft::InvalidArgument);
  EXPECT_NE(fwd->describe().find("directions: forward only"), std::string::npos) << fwd->describe();
  EXPECT_NE(inv->describe().find("directions: inverse only"), std::string::npos) << inv->describe();
}

TEST(Directions, OneDirectionPlansMatchSerialFftw) {
  if (!backend_unavailable().empty()) GTEST_SKIP() << backend_unavailable();
  for (const Shape& shape : {Shape{17, 12, 10}, Shape{9, 7, 6}})
    for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil})
      for (bool transposed : {false, true}) {
        SCOPED_TRACE(to_string(dec) + " " + std::to_string(shape[0]) + (transposed ? " transposed" : ""));
        one_direction_plans<double, double>(dec, shape, transposed);
        one_direction_plans<double, std::complex<double>>(dec, shape, transposed);
        one_direction_plans<float, float>(dec, shape, transposed);
        one_direction_plans<float, std::complex<float>>(dec, shape, transposed);
      }
}

// Arrays one element off the alignment the plan was made at (the input, the output, or both):
// the same transform as aligned arrays give, against serial FFTW, in both directions. The CPU's
// blocked FFTs that copy each block into the output transform it there, where only the output's
// alignment counts; the others take FFTW's plan for any address.
template <class T, class In>
void misaligned_arrays(Decomposition dec, const Shape& shape, bool transposed) {
  using C = std::complex<T>;
  constexpr bool c2c = std::is_same_v<In, C>;
  auto p = make_plan<T>(shape, unnormalised(dec, c2c, transposed));
  if (!p) return;
  const auto x = make_local<In>(p->input_layout(), shape, 5, In(0));
  Shape spectral = shape;
  if (!c2c) spectral.back() = spectral.back() / 2 + 1;
  const auto want = serial_forward(shape, global_signal(shape, 5, !c2c), !c2c);
  const double tol = std::is_same_v<T, double> ? 1e-12 : 2e-5;
  double n = 1;
  for (auto e : shape) n *= static_cast<double>(e);
  auto scaled = x;
  for (auto& v : scaled) v *= static_cast<T>(n);
  const auto outs = static_cast<std::size_t>(p->output_count());
  for (int off_in : {0, 1})
    for (int off_out : {0, 1}) {
      if (!off_in && !off_out) continue;
      SCOPED_TRACE("input " + std::to_string(off_in) + " and output " + std::to_string(off_out) + " elements off");
      std::vector<In> in(x.size() + 1), back(x.size() + 1);
      std::vector<C> spec(outs + 1);
      std::copy(x.begin(), x.end(), in.begin() + off_in);
      p->forward(in.data() + off_in, spec.data() + off_out);
      const auto got = gather_padded(p->output_layout(), spectral, spec.data() + off_out);
      EXPECT_LE(rel_max(got, want), tol) << p->describe();
      p->inverse(spec.data() + off_out, back.data() + off_in);
      EXPECT_LE(local_rel(std::vector<In>(back.begin() + off_in, back.begin() + off_in + static_cast<std::ptrdiff_t>(x.size())), scaled), tol)
          << p->describe();
    }
}

TEST(Alignment, MisalignedArraysMatchSerialFftw) {
  if (!backend_unavailable().empty()) GTEST_SKIP() << backend_unavailable();
  if (backend_options().backend != dfft::Backend::cpu) GTEST_SKIP() << "host arrays at any address: the CPU backend";
  for (const Shape& shape : {Shape{17, 12, 10}, Shape{64, 48, 40}})
    for (auto dec : {Decomposition::slab_2d1d, Decomposition::pencil})
      for (bool transposed : {false, true}) {
        SCOPED_TRACE(to_string(dec) + " " + std::to_string(shape[0]) + (transposed ? " transposed" : ""));
        misaligned_arrays<double, double>(dec, shape, transposed);
        misaligned_arrays<double, std::complex<double>>(dec, shape, transposed);
        misaligned_arrays<float, std::complex<float>>(dec, shape, transposed);
      }
}

}  // namespace directions
}  // namespace
}  // namespace dfft_test
