// SPDX-License-Identifier: MIT
// Compressed communication: every codec x packing transport x decomposition on odd sizes, the
// documented error bounds, fp16 range safety, NaN propagation, the tolerance rule, and the
// one-sided transport against serial FFTW; on the backend under test (support/backend.hpp: on cuda
// the GPU codec kernels encode and decode, the arrays live in GPU memory).
#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "dfft/dfft.hpp"
#include "dfft/validate.hpp"
#include "features/feature_util.hpp"
#include "support/backend.hpp"
#include "support/test_util.hpp"

namespace {

using dfft::Codec;
using dfft::Decomposition;
using dfft::Method;
using dfft_test::backend_options;
using dfft_test::DevArray;
using dfft_test::max_over_ranks;
using dfft_test::on_cuda;

double unit(Codec c) {
  switch (c) {
    case Codec::fp32: return std::ldexp(1.0, -24);
    case Codec::fp16: return std::ldexp(1.0, -11);
    case Codec::bf16: return std::ldexp(1.0, -8);
    case Codec::none: break;
  }
  return 0;
}

int exchanges(const dfft::Options& o) { return o.decomposition == Decomposition::pencil ? 2 : 1; }

// Documented bound (docs/compression.md): 2 u sqrt(x/3) expected; tests allow 2x more.
double bound(Codec c, int x, bool is_double) {
  double work = is_double ? 1e-13 : 2e-6;
  return 4 * unit(c) * std::sqrt(x / 3.0) + work;
}

struct Case {
  Decomposition dec;
  dfft::Variant var;
  Method method;
  dfft::OneSidedSync sync;
  Codec codec;
};

std::string name_of(const Case& c) {
  std::string s = to_string(c.dec) + "_" + to_string(c.var) + "_" + to_string(c.method) + "_" +
                  (c.method == Method::onesided ? to_string(c.sync) + "_" : "") + to_string(c.codec);
  for (auto& ch : s)
    if (ch == '-') ch = '_';
  return s;
}

/// The packing methods of the backend under test (on cuda the pipelined one packs on the device).
std::vector<Method> packing_methods() {
  if (on_cuda()) return {Method::a2a_sync, Method::p2p_sync, Method::p2p_pipelined, Method::onesided};
  return {Method::a2a_sync, Method::p2p_sync, Method::onesided};
}

std::vector<Case> all_cases() {
  std::vector<Case> v;
  for (auto d : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil})
    for (auto var : {dfft::Variant::Default, dfft::Variant::Realigned})
      for (auto m : packing_methods())
        for (auto sync : {dfft::OneSidedSync::fence, dfft::OneSidedSync::flush}) {
          if (m != Method::onesided && sync == dfft::OneSidedSync::flush) continue;
          for (auto c : {Codec::none, Codec::fp32, Codec::fp16, Codec::bf16}) v.push_back({d, var, m, sync, c});
        }
  return v;
}

class CodecSweep : public ::testing::TestWithParam<Case> {};

template <class T>
void check_case(const Case& c, const std::vector<std::int64_t>& shape) {
  const bool dbl = std::is_same_v<T, double>;
  if (!dbl && c.codec == Codec::fp32) return;  // fp32 narrows double only
  dfft::Options o = backend_options();
  o.effort = dfft::Effort::estimate;  // many plans: FFTW_MEASURE would dominate the run
  o.decomposition = c.dec;
  o.variant = c.var;
  o.methods = {c.method};
  o.onesided_sync = c.sync;
  o.codec = c.codec;
  o.chunks = 3;
  o.max_message_bytes = 700;  // also every chunk/split path
  const auto made = dfft_test::make_plan<T>(shape, o);
  if (!made) return;  // ranks share a GPU and the method cannot: make_plan skipped the test
  dfft::Plan<T>& plan = *made;
  const double ref = max_over_ranks(dfft::validate::reference_error(plan, MPI_COMM_WORLD));
  const double rt = max_over_ranks(dfft::validate::roundtrip_error(plan, MPI_COMM_WORLD));
  const int x = exchanges(o);
  EXPECT_LE(ref, bound(c.codec, x, dbl)) << shape[0] << "x" << shape[1] << "x" << shape[2];
  EXPECT_LE(rt, bound(c.codec, 2 * x, dbl));
  // The local block never crosses the wire, so one rank is exact; with more, a lossy codec
  // that changes nothing would mean the codec was not applied.
  if (c.codec != Codec::none && dfft_test::world_size() > 1) {
    EXPECT_GT(ref, 0.0) << "lossy codec left the data exact";
  }
}

TEST_P(CodecSweep, ErrorWithinDocumentedBound) {
  check_case<double>(GetParam(), {17, 12, 10});
  check_case<float>(GetParam(), {12, 10, 9});
}

INSTANTIATE_TEST_SUITE_P(All, CodecSweep, ::testing::ValuesIn(all_cases()),
                         [](const auto& test_info) { return name_of(test_info.param); });

// Forward transforms of the same data (rounded to the plan's precision), filled through the
// plan's own input box whatever decomposition it has.
template <class T>
std::vector<std::complex<T>> forward_of(dfft::Plan<T>& p, double scale) {
  std::vector<T> in(static_cast<std::size_t>(p.input_count()));
  const auto& l = p.input_layout();
  const auto& s = p.shape();
  for (std::int64_t i = 0; i < l.box.extent(0); ++i)
    for (std::int64_t j = 0; j < l.box.extent(1); ++j)
      for (std::int64_t k = 0; k < l.box.extent(2); ++k) {
        auto g = ((l.box.lo[0] + i) * s[1] + (l.box.lo[1] + j)) * s[2] + (l.box.lo[2] + k);
        in[(i * l.box.extent(1) + j) * l.box.extent(2) + k] =
            static_cast<T>(scale * dfft::validate::random_value(static_cast<std::uint64_t>(g), 11));
      }
  DevArray<T> d_in(in);
  DevArray<std::complex<T>> d_out(static_cast<std::size_t>(p.output_count()));
  p.forward(d_in.get(), d_out.get());
  return d_out.host();
}

std::vector<std::complex<double>> forward_double(dfft::Plan<double>& p, double scale) { return forward_of(p, scale); }

// Largest error of `got`, what forward_double(p, scale) gave, against serial FFTW of the same
// global array: the codecs are measured against a plan without one, whose values this anchors.
double serial_error(const dfft::Plan<double>& p, const std::vector<std::complex<double>>& got, double scale) {
  const auto& shape = p.shape();
  std::vector<std::complex<double>> global(static_cast<std::size_t>(dfft_test::product(shape)));
  for (std::size_t g = 0; g < global.size(); ++g) global[g] = scale * dfft::validate::random_value(g, 11);
  auto spec = shape;
  spec.back() = spec.back() / 2 + 1;
  return dfft_test::rel_max(dfft_test::gather_padded(p.output_layout(), spec, got.data()),
                            dfft_test::serial_forward(shape, global, true));
}

// Outputs of several plans are compared element by element, so the decomposition, grid and
// variant are fixed: left automatic, a codec (which keeps to packing methods and shrinks the
// predicted wire bytes) or a machine's calibration could give the plans different output layouts
// (a 1 x 3 pencil for one, 3 x 1 for the other).
dfft::Options comparable_options(Decomposition d) {
  dfft::Options o = backend_options();
  o.effort = dfft::Effort::estimate;  // many plans: FFTW_MEASURE would dominate the run
  o.decomposition = d;
  o.variant = dfft::Variant::Default;
  const int p = dfft_test::world_size();
  if (d == Decomposition::pencil) o.grid = p == 4 ? std::vector<int>{2, 2} : std::vector<int>{p, 1};
  return o;
}

template <class A, class B>
double rel_diff(const std::vector<A>& a, const std::vector<B>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    std::complex<double> x(a[i].real(), a[i].imag()), y(b[i].real(), b[i].imag());
    num += std::norm(x - y);
    den += std::norm(y);
  }
  double g[2] = {num, den}, r[2];
  MPI_Allreduce(g, r, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return std::sqrt(r[0] / r[1]);
}

TEST(Codec, Fp32WireBeatsAllFloatByFiveTimes) {
  const std::vector<std::int64_t> shape{32, 30, 28};
  dfft::Options o = comparable_options(Decomposition::slab_2d1d);
  dfft::Plan<double> exact(MPI_COMM_WORLD, shape, o);
  auto ref = forward_double(exact, 1.0);
  EXPECT_LE(serial_error(exact, ref, 1.0), 1e-12);
  o.codec = Codec::fp32;
  dfft::Plan<double> wire(MPI_COMM_WORLD, shape, o);
  const double e_wire = rel_diff(forward_double(wire, 1.0), ref);
  // All in float: the same data rounded to float, transformed in float.
  o.codec = Codec::none;
  dfft::Plan<float> all_float(MPI_COMM_WORLD, shape, o);
  const auto out = forward_of(all_float, 1.0);
  const double e_float = rel_diff(out, ref);
  if (dfft_test::world_rank() == 0)
    std::printf("fp64->fp32 wire %.3e, all-float %.3e, ratio %.1f\n", e_wire, e_float, e_float / e_wire);
  EXPECT_LT(e_wire, 1e-6);
  if (dfft_test::world_size() == 1) {
    EXPECT_EQ(e_wire, 0.0);  // nothing crosses a wire
  } else {
    EXPECT_GE(e_float / e_wire, 5.0);
  }
}

TEST(Codec, Fp16NeverOverflowsOnLargeValues) {
  // Inputs up to 1e6: spectra reach ~1e9, far above half's 65504; per-block scaling keeps every
  // value finite and the error at fp16's level.
  for (auto c : {Codec::fp16, Codec::bf16}) {
    dfft::Options o = comparable_options(Decomposition::pencil);
    dfft::Plan<double> exact(MPI_COMM_WORLD, {17, 12, 10}, o);
    auto ref = forward_double(exact, 1e6);
    EXPECT_LE(serial_error(exact, ref, 1e6), 1e-12);
    o.codec = c;
    dfft::Plan<double> lossy(MPI_COMM_WORLD, {17, 12, 10}, o);
    auto got = forward_double(lossy, 1e6);
    bool finite = true;
    for (auto& v : got) finite = finite && std::isfinite(v.real()) && std::isfinite(v.imag());
    EXPECT_TRUE(dfft_test::all_ranks(finite)) << to_string(c);
    EXPECT_LT(rel_diff(got, ref), bound(c, 2, true)) << to_string(c);
  }
}

// Double data outside float's exponent range: bf16 (float's exponent, no scale) overflows to inf
// or flushes to zero, while fp16's per-block scale keeps its error at fp16's level. So range
// never makes bf16 the better choice, and the tolerance rule never picks it (docs/compression.md).
TEST(Codec, Fp16ScaleCoversRangesBf16Cannot) {
  for (double scale : {1e60, 1e-60}) {
    dfft::Options o = comparable_options(Decomposition::pencil);
    dfft::Plan<double> exact(MPI_COMM_WORLD, {17, 12, 10}, o);
    const auto ref = forward_double(exact, scale);
    EXPECT_LE(serial_error(exact, ref, scale), 1e-12) << "scale " << scale;
    for (auto c : {Codec::fp16, Codec::bf16}) {
      o.codec = c;
      dfft::Plan<double> lossy(MPI_COMM_WORLD, {17, 12, 10}, o);
      const double err = rel_diff(forward_double(lossy, scale), ref);
      if (c == Codec::fp16) {
        EXPECT_LT(err, bound(c, 2, true)) << "scale " << scale;
      } else if (dfft_test::world_size() > 1) {
        EXPECT_FALSE(err < 0.1) << "scale " << scale;  // inf/NaN or zeros
      }
    }
  }
}

TEST(Codec, NanPropagatesWithoutHanging) {
  dfft::Options o = backend_options();
  o.effort = dfft::Effort::estimate;  // many plans: FFTW_MEASURE would dominate the run
  o.codec = Codec::fp16;
  dfft::Plan<double> p(MPI_COMM_WORLD, {12, 10, 9}, o);
  std::vector<double> in(p.input_count(), 1.0);
  if (!in.empty()) in[0] = std::numeric_limits<double>::quiet_NaN();
  DevArray<double> d_in(in);
  DevArray<std::complex<double>> d_out(static_cast<std::size_t>(p.output_count()));
  p.forward(d_in.get(), d_out.get());
  const auto out = d_out.host();
  bool any_nan = false;
  for (auto& v : out) any_nan = any_nan || std::isnan(v.real()) || std::isnan(v.imag());
  EXPECT_FALSE(dfft_test::all_ranks(!any_nan)) << "NaN input must show up in the output";
}

TEST(Codec, ToleranceSelectsCheapestCodec) {
  struct Want {
    double tol;
    Codec expect;
  };
  // One decomposition and method for all: the wire bytes are compared with the plain plan's.
  dfft::Options o0 = backend_options();
  o0.decomposition = dfft::Decomposition::slab_2d1d;
  o0.methods = {dfft::Method::a2a_sync};
  dfft::Plan<double> plain(MPI_COMM_WORLD, {16, 12, 10}, o0);
  // One rank: no exchange at all (the planner merges the FFTs), nothing crosses the wire.
  const auto full = plain.exchange_bytes().empty() ? 0 : plain.exchange_bytes()[0];
  for (Want w : {Want{1e-2, Codec::fp16}, Want{1e-6, Codec::fp32}, Want{1e-12, Codec::none}}) {
    dfft::Options o = o0;
    o.effort = dfft::Effort::estimate;  // many plans: FFTW_MEASURE would dominate the run
    o.tolerance = w.tol;
    dfft::Plan<double> p(MPI_COMM_WORLD, {16, 12, 10}, o);
    const double err = max_over_ranks(dfft::validate::reference_error(p, MPI_COMM_WORLD));
    EXPECT_LE(err, w.tol) << "tolerance " << w.tol;
    if (full == 0) continue;
    const auto bytes = p.exchange_bytes()[0];
    const double ratio = static_cast<double>(bytes) / static_cast<double>(full);
    const double want = w.expect == Codec::none ? 1.0 : w.expect == Codec::fp32 ? 0.5 : 0.25;
    EXPECT_NEAR(ratio, want, 0.05) << "tolerance " << w.tol;
  }
}

TEST(Codec, TypeMethodsRejectCodecs) {
  for (auto m : {Method::a2a_type, Method::p2p_type}) {
    dfft::Options o = backend_options();
    o.effort = dfft::Effort::estimate;  // many plans: FFTW_MEASURE would dominate the run
    o.methods = {m};
    o.codec = Codec::fp16;
    dfft_test::expect_error_everywhere(
        [&] { dfft::Plan<double> p(MPI_COMM_WORLD, {12, 10, 9}, o); }, "needs a method that packs");
  }
  dfft::Options o = backend_options();
  o.effort = dfft::Effort::estimate;  // many plans: FFTW_MEASURE would dominate the run
  o.codec = Codec::fp32;
  dfft_test::expect_error_everywhere([&] { dfft::Plan<float> p(MPI_COMM_WORLD, {12, 10, 9}, o); },
                                     "narrows double");
}

TEST(OneSided, MatchesSerialFftw) {
  const std::vector<std::int64_t> shape{17, 12, 10};
  // forward_double's input (natural order), whole, and its spectrum by serial FFTW.
  std::vector<std::complex<double>> global(17 * 12 * 10);
  for (std::size_t g = 0; g < global.size(); ++g) global[g] = dfft::validate::random_value(g, 11);
  const auto want = dfft_test::serial_forward(shape, global, true);
  const std::vector<std::int64_t> spec{17, 12, 6};
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil})
    for (auto sync : {dfft::OneSidedSync::fence, dfft::OneSidedSync::flush})
      for (int chunks : {1, 4, 100}) {
        dfft::Options o = backend_options();
        o.effort = dfft::Effort::estimate;  // many plans: FFTW_MEASURE would dominate the run
        o.decomposition = dec;
        o.methods = {Method::onesided};
        o.onesided_sync = sync;
        o.chunks = chunks;
        dfft::Plan<double> p(MPI_COMM_WORLD, shape, o);
        // Repeated calls reuse the window: the epochs must not let call k+1 overwrite call k.
        for (int rep = 0; rep < 3; ++rep) {
          const auto got = forward_double(p, 1.0);
          EXPECT_LE(dfft_test::rel_max(dfft_test::gather_padded(p.output_layout(), spec, got.data()), want), 1e-12)
              << to_string(dec) << " " << to_string(sync) << " chunks " << chunks << " call " << rep;
        }
      }
}

}  // namespace
