// SPDX-License-Identifier: MIT
// p2p-pipelined (docs/pipelined.md): whole transforms against the serial reference for every
// decomposition, variant, transform and precision on odd sizes, for chunk counts 1, 3 and more
// chunks than rows, and 1, 2 and n ring steps in flight; codecs within their documented bound;
// tiny message limits; bad tuning values refused at plan time; and the transport alone on
// strided views (layouts padded beyond their box), where it must not touch the padding.
#include <cmath>
#include <complex>
#include <string>
#include <tuple>
#include <vector>

#include "backend/device.hpp"
#include "dfft/dfft.hpp"
#include "dfft/validate.hpp"
#include "support/test_util.hpp"
#include "transport/transport.hpp"

namespace dfft_test {
namespace {

using dfft::Codec;
using dfft::Decomposition;
using dfft::Method;
using dfft::Transform;
using dfft::Variant;

dfft::Options pipelined(Decomposition dec, int chunks, int in_flight) {
  dfft::Options o;
  o.effort = dfft::Effort::estimate;  // many plans: FFTW_MEASURE would dominate the run
  o.decomposition = dec;
  o.methods = {Method::p2p_pipelined};
  o.chunks = chunks;
  o.in_flight = in_flight;
  return o;
}

std::string describe(const dfft::Options& o, const Shape& shape) {
  std::string s = to_string(o.decomposition) + " " + to_string(o.variant) + " " +
                  to_string(o.transform) + " chunks=" + std::to_string(o.chunks) +
                  " in_flight=" + std::to_string(o.in_flight) +
                  " max_message=" + std::to_string(o.max_message_bytes) + " shape=";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

// Reference and round-trip errors within the plain methods' bounds; exchanges named by method.
template <class T>
void expect_exact(const dfft::Options& o, const Shape& shape) {
  SCOPED_TRACE(describe(o, shape) + (std::is_same_v<T, double> ? " double" : " float"));
  dfft::Plan<T> plan(MPI_COMM_WORLD, shape, o);
  const double ref = max_over_ranks(dfft::validate::reference_error(plan, MPI_COMM_WORLD));
  const double rt = max_over_ranks(dfft::validate::roundtrip_error(plan, MPI_COMM_WORLD));
  EXPECT_LE(ref, ref_tol<T>()) << plan.describe();
  EXPECT_LE(rt, ref_tol<T>()) << plan.describe();
  int named = 0;
  for (const auto& t : plan.timings()) named += t.name.find("p2p-pipelined") != std::string::npos;
  // (On one rank there is no exchange: the planner merges the FFTs into one stage.)
  if (world_size() > 1) {
    EXPECT_GE(named, 1) << "no exchange ran as p2p-pipelined";
  }
}

class PipelinedSweep : public ::testing::TestWithParam<std::tuple<Decomposition, Transform>> {};

TEST_P(PipelinedSweep, MatchesReference) {
  const auto [dec, tr] = GetParam();
  const int n = world_size();
  // 64 chunks: more than the rows (and, on the small blocks, more than the elements) of a block.
  for (auto var : {Variant::Default, Variant::Realigned})
    for (const Shape& shape : {Shape{17, 12, 10}, Shape{12, 10, 9}})
      for (int chunks : {1, 3, 64})
        for (int in_flight : {1, 2, n}) {
          auto o = pipelined(dec, chunks, in_flight);
          o.variant = var;
          o.transform = tr;
          expect_exact<double>(o, shape);
          expect_exact<float>(o, shape);
        }
}

INSTANTIATE_TEST_SUITE_P(
    All, PipelinedSweep,
    ::testing::Combine(::testing::Values(Decomposition::slab_2d1d, Decomposition::slab_1d2d,
                                         Decomposition::pencil),
                       ::testing::Values(Transform::r2c, Transform::c2c)),
    decomp_transform_name);

// Message limits below one chunk: every piece is cut again (one unit per message at worst).
TEST(Pipelined, TinyMessageLimit) {
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::pencil})
    for (std::int64_t limit : {1, 40, 200})
      for (int chunks : {1, 3, 64}) {
        auto o = pipelined(dec, chunks, 2);
        o.max_message_bytes = limit;
        o.transform = Transform::c2c;
        expect_exact<double>(o, {17, 12, 10});
        o.transform = Transform::r2c;
        expect_exact<float>(o, {12, 10, 9});
      }
}

// Same rule as tests/codec/codec_test.cpp (docs/compression.md): expected 2 u sqrt(x/3) per
// x exchanges plus the working precision; the tests allow twice that.
double codec_bound(Codec c, int exchanges, bool dbl) {
  const double u = c == Codec::fp32 ? std::ldexp(1.0, -24) : std::ldexp(1.0, -8);  // fp32 / bf16
  return 4 * u * std::sqrt(exchanges / 3.0) + (dbl ? 1e-13 : 2e-6);
}

template <class T>
void expect_codec(const dfft::Options& o, const Shape& shape) {
  SCOPED_TRACE(describe(o, shape) + " codec " + to_string(o.codec));
  const bool dbl = std::is_same_v<T, double>;
  dfft::Plan<T> plan(MPI_COMM_WORLD, shape, o);
  const int x = o.decomposition == Decomposition::pencil ? 2 : 1;
  const double ref = max_over_ranks(dfft::validate::reference_error(plan, MPI_COMM_WORLD));
  const double rt = max_over_ranks(dfft::validate::roundtrip_error(plan, MPI_COMM_WORLD));
  EXPECT_LE(ref, codec_bound(o.codec, x, dbl));
  EXPECT_LE(rt, codec_bound(o.codec, 2 * x, dbl));
  // With several ranks the blocks cross the wire, so a lossy codec must show.
  if (world_size() > 1) {
    EXPECT_GT(ref, 0.0) << "the codec was not applied";
  }
}

TEST(Pipelined, CodecsWithinDocumentedBound) {
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil})
    for (auto var : {Variant::Default, Variant::Realigned})
      for (std::int64_t limit : {std::int64_t{700}, std::int64_t{1} << 30}) {
        auto o = pipelined(dec, 3, 2);
        o.variant = var;
        o.max_message_bytes = limit;  // 700: the coded pieces are split again
        o.codec = Codec::fp32;
        expect_codec<double>(o, {17, 12, 10});
        o.codec = Codec::bf16;
        o.chunks = 64;
        expect_codec<double>(o, {17, 12, 10});
        o.in_flight = 1;
        expect_codec<float>(o, {12, 10, 9});
      }
}

TEST(Pipelined, RefusesBadTuningAtPlanTime) {
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::pencil}) {
    for (int chunks : {-3, -1})  // 0 is "automatic" (Options::chunks)
      expect_error_everywhere(
          [&] { dfft::Plan<double> p(MPI_COMM_WORLD, {12, 10, 9}, pipelined(dec, chunks, 2)); },
          "chunks");
    for (int in_flight : {0, -1})
      expect_error_everywhere(
          [&] { dfft::Plan<double> p(MPI_COMM_WORLD, {12, 10, 9}, pipelined(dec, 4, in_flight)); },
          "in_flight");
  }
}

// The transport alone on strided views: src split along x, dst along y in another memory
// order, both padded beyond their box. The padding must be neither read into the result nor
// written.
using cd = std::complex<double>;
const cd kPad{-7.0, 7.0};

cd value_at(std::int64_t i, std::int64_t j, std::int64_t k) {
  return {static_cast<double>(i * 1000 + j * 10 + k), static_cast<double>(k - i)};
}

dfft::Layout view(const dfft::Box& box, std::vector<int> order) {
  dfft::Layout l{box, std::move(order), {}};
  for (int a = 0; a < 3; ++a) l.padded.push_back(box.extent(a) + 1 + a);
  return l;
}

dfft::Box slab(const Shape& g, int axis, int parts, int p) {
  dfft::Box b{{0, 0, 0}, g};
  const auto r = part(g[axis], parts, p);
  b.lo[axis] = r.lo;
  b.hi[axis] = r.hi;
  return b;
}

void check_views(int chunks, int in_flight, std::int64_t limit) {
  SCOPED_TRACE("chunks=" + std::to_string(chunks) + " in_flight=" + std::to_string(in_flight) +
               " limit=" + std::to_string(limit));
  const Shape g{9, 7, 5};
  const int n = world_size(), me = world_rank();
  dfft::detail::ExchangeSpec s;
  for (int r = 0; r < n; ++r) {
    s.src.push_back(view(slab(g, 0, n, r), {0, 1, 2}));
    s.dst.push_back(view(slab(g, 1, n, r), {1, 2, 0}));
  }
  s.me = me;
  s.elem = sizeof(cd);
  s.max_message_bytes = limit;
  const auto& sl = s.src[me];
  const auto& dl = s.dst[me];
  std::vector<cd> src(static_cast<std::size_t>(sl.alloc_count()), kPad);
  std::vector<cd> dst(static_cast<std::size_t>(dl.alloc_count()), kPad);
  const auto each = [](const dfft::Box& b, auto f) {
    for (auto i = b.lo[0]; i < b.hi[0]; ++i)
      for (auto j = b.lo[1]; j < b.hi[1]; ++j)
        for (auto k = b.lo[2]; k < b.hi[2]; ++k) f(i, j, k);
  };
  each(sl.box, [&](auto i, auto j, auto k) { src[sl.offset_of({i, j, k})] = value_at(i, j, k); });
  auto dev = dfft::detail::make_cpu_device();
  dfft::detail::TransportTuning tune;
  tune.chunks = chunks;
  tune.in_flight = in_flight;
  auto x = dfft::detail::make_transport(Method::p2p_pipelined, MPI_COMM_WORLD, s, *dev, tune);
  dfft::StageTiming t;
  for (int rep = 0; rep < 2; ++rep) x->execute(src.data(), dst.data(), t);  // reuse works too
  long wrong = 0, inside = 0;
  each(dl.box, [&](auto i, auto j, auto k) {
    wrong += dst[dl.offset_of({i, j, k})] != value_at(i, j, k);
    ++inside;
  });
  long pad_touched = 0;
  for (const auto& v : dst) pad_touched += v == kPad;
  pad_touched = static_cast<long>(dst.size()) - inside - pad_touched;
  EXPECT_TRUE(all_ranks(wrong == 0)) << wrong << " wrong elements on rank " << me;
  EXPECT_TRUE(all_ranks(pad_touched == 0)) << pad_touched << " padding elements written";
}

TEST(Pipelined, StridedViews) {
  const int n = world_size();
  for (int chunks : {1, 3, 64})
    for (int in_flight : {1, 2, n}) check_views(chunks, in_flight, std::int64_t{1} << 30);
  check_views(3, 2, 48);
}

}  // namespace
}  // namespace dfft_test
