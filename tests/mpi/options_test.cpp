// SPDX-License-Identifier: MIT
// Options beyond the sweep: the default norm (backward: inverse scaled by 1/N), FFTW_MEASURE planning, and message limits small
// enough that every method must split its messages.
#include "dfft/option_fields.hpp"
#include "support/sweep.hpp"

namespace dfft_test {
namespace {

// The default norm: inverse(forward(x)) == x with no extra scaling, checked here directly.
template <class T>
double normalized_roundtrip(Decomposition dec, Transform tr) {
  dfft::Options o;
  o.decomposition = dec;
  o.transform = tr;
  dfft::Plan<T> plan(MPI_COMM_WORLD, {17, 12, 10}, o);
  using C = std::complex<T>;
  std::vector<C> spec(static_cast<std::size_t>(plan.output_count()));
  double num = 0, den = 0;
  auto accumulate = [&](const auto& a, const auto& b) {
    for (std::size_t i = 0; i < a.size(); ++i) {
      num += std::norm(cd(b[i]) - cd(a[i]));
      den += std::norm(cd(a[i]));
    }
  };
  if (tr == Transform::r2c) {
    std::vector<T> in(static_cast<std::size_t>(plan.input_count())), back(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<T>(signal(static_cast<std::int64_t>(i) + 97 * world_rank(), 5));
    plan.forward(in.data(), spec.data());
    plan.inverse(spec.data(), back.data());
    accumulate(in, back);
  } else {
    std::vector<C> in(static_cast<std::size_t>(plan.input_count())), back(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
      auto g = static_cast<std::int64_t>(i) + 97 * world_rank();
      in[i] = C(static_cast<T>(signal(g, 5)), static_cast<T>(signal(g, 6)));
    }
    plan.forward(in.data(), spec.data());
    plan.inverse(spec.data(), back.data());
    accumulate(in, back);
  }
  double g[2] = {num, den};
  MPI_Allreduce(MPI_IN_PLACE, g, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return std::sqrt(g[0] / g[1]);
}

class Normalize : public ::testing::TestWithParam<std::tuple<Decomposition, Transform>> {};

TEST_P(Normalize, RoundTripIsIdentity) {
  auto [dec, tr] = GetParam();
  EXPECT_LE(normalized_roundtrip<double>(dec, tr), 1e-12);
  EXPECT_LE(normalized_roundtrip<float>(dec, tr), 1e-5);
}

// Each rank times its own first FFT and may copy the caller's array where another does not. The
// normalisation may ride on that copy only where every rank copies: the exchange after it mixes
// the ranks' data, so one rank's early scaling would meet another's late one.
TEST(Normalize, RanksThatCopyTheInputAndRanksThatDoNot) {
  const FirstStepChoice choice(world_rank() == 0 ? 1 : 0);
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil}) {
    EXPECT_LE(normalized_roundtrip<double>(dec, Transform::c2c), 1e-12) << dfft::to_string(dec);
    EXPECT_LE(normalized_roundtrip<float>(dec, Transform::c2c), 1e-5) << dfft::to_string(dec);
  }
}

// Every rank copying it: the copy scales (where the CPU's scaling copy runs) and nothing else does.
TEST(Normalize, EveryRankCopiesTheInput) {
  const FirstStepChoice choice(1);
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil})
    EXPECT_LE(normalized_roundtrip<double>(dec, Transform::c2c), 1e-12) << dfft::to_string(dec);
}

// Every rank copying it, but rank 0 executes the inverse in place (its first FFT then copies
// nothing and transforms its array where it lies): it must scale before the exchange as the
// ranks that copy do.
TEST(Normalize, EveryRankCopiesButOneExecutesInPlace) {
  const FirstStepChoice choice(1);
  using C = std::complex<double>;
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil}) {
    dfft::Options o;
    o.decomposition = dec;
    o.transform = Transform::c2c;
    dfft::Plan<double> plan(MPI_COMM_WORLD, {17, 12, 10}, o);
    const auto ni = static_cast<std::size_t>(plan.input_count()), no = static_cast<std::size_t>(plan.output_count());
    std::vector<C> in(ni), spec(no), back(ni);
    for (std::size_t i = 0; i < ni; ++i) {
      const auto g = static_cast<std::int64_t>(i) + 97 * world_rank();
      in[i] = C(signal(g, 5), signal(g, 6));
    }
    plan.forward(in.data(), spec.data());
    std::vector<C> buf(std::max(ni, no));
    std::copy(spec.begin(), spec.end(), buf.begin());
    if (world_rank() == 0)
      plan.inverse(buf.data(), buf.data());
    else
      plan.inverse(spec.data(), buf.data());
    std::copy(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(ni), back.begin());
    double e = 0;
    for (std::size_t i = 0; i < ni; ++i) e = std::max(e, std::abs(back[i] - in[i]));
    EXPECT_LE(max_over_ranks(e), 1e-12) << dfft::to_string(dec);
  }
}

// Every rank copying it, with overlap slices over the last FFT: where a copy applied the
// normalisation the slices must not apply it again (they do where FFTW's steps run in groups
// that scale in cache: the suite's DFFT_FFT_BLOCK=1 runs, fft_blocks_*).
TEST(Normalize, EveryRankCopiesTheInputWithOverlapSlices) {
  const FirstStepChoice choice(1);
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::pencil})
    for (auto tr : {Transform::c2c, Transform::r2c}) {
      dfft::Options o;
      o.decomposition = dec;
      o.transform = tr;
      o.overlap = 2;
      dfft::Plan<double> plan(MPI_COMM_WORLD, {16, 12, 10}, o);
      EXPECT_LE(max_over_ranks(dfft::validate::roundtrip_error(plan, MPI_COMM_WORLD)), 1e-12)
          << dfft::to_string(dec) << " " << dfft::to_string(tr) << "\n" << plan.describe();
    }
}

// An in-place r2c plan whose ranks all copy the spectrum, rank 0 executing the inverse in place
// and the others out of place: every rank's output scaled once.
TEST(Normalize, InPlaceR2cRanksMixedInPlaceAndNot) {
  const FirstStepChoice choice(1);
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::pencil}) {
    dfft::Options o;
    o.decomposition = dec;
    o.transform = Transform::r2c;
    o.in_place = true;
    dfft::Plan<double> plan(MPI_COMM_WORLD, {16, 12, 10}, o);
    const auto ni = static_cast<std::size_t>(plan.input_count()), no = static_cast<std::size_t>(plan.output_count());
    const auto in_layout = plan.input_layout();
    std::vector<double> x(ni, 0.0);
    for (std::size_t i = 0; i < ni; ++i) x[i] = signal(static_cast<std::int64_t>(i) + 97 * world_rank(), 5);
    using C = std::complex<double>;
    std::vector<C> cbuf(std::max((ni + 1) / 2, no));
    auto* buf = reinterpret_cast<double*>(cbuf.data());
    std::copy(x.begin(), x.end(), buf);
    plan.forward(buf, cbuf.data());  // in place: the spectrum overwrites x
    const std::vector<C> spec(cbuf);
    if (world_rank() == 0) {
      plan.inverse(cbuf.data(), buf);
    } else {
      std::fill(cbuf.begin(), cbuf.end(), C(0));
      plan.inverse(spec.data(), buf);
    }
    double e = 0, m = 0;
    for_box(in_layout.box, [&](const Shape& k) {
      const auto at = static_cast<std::size_t>(in_layout.offset_of(k));
      e = std::max(e, std::abs(buf[at] - x[at]));
      m = std::max(m, std::abs(x[at]));
    });
    EXPECT_LE(max_over_ranks(e / m), 1e-12) << dfft::to_string(dec) << "\n" << plan.describe();
  }
}

// And the built-in checks agree.
TEST_P(Normalize, BuiltInChecksAgree) {
  auto [dec, tr] = GetParam();
  dfft::Options o;
  o.decomposition = dec;
  o.transform = tr;
  dfft::Plan<double> plan(MPI_COMM_WORLD, {12, 10, 9}, o);
  EXPECT_LE(max_over_ranks(dfft::validate::roundtrip_error(plan, MPI_COMM_WORLD)), 1e-12);
  EXPECT_LE(max_over_ranks(dfft::validate::laplacian_error(plan, MPI_COMM_WORLD)), 1e-10);
}

INSTANTIATE_TEST_SUITE_P(Opt, Normalize,
                         ::testing::Combine(::testing::Values(Decomposition::slab_2d1d,
                                                              Decomposition::slab_1d2d,
                                                              Decomposition::pencil),
                                            ::testing::Values(Transform::r2c, Transform::c2c)),
                         dfft_test::decomp_transform_name);

template <class T>
void measure_case(Decomposition dec, Variant var, Transform tr) {
  dfft::Options o;
  o.decomposition = dec;
  o.variant = var;
  o.transform = tr;
  o.effort = dfft::Effort::measure;
  o.methods = {Method::a2a_type};
  dfft::Plan<T> plan(MPI_COMM_WORLD, {17, 12, 10}, o);
  EXPECT_LE(max_over_ranks(dfft::validate::reference_error(plan, MPI_COMM_WORLD)), ref_tol<T>());
  EXPECT_LE(max_over_ranks(dfft::validate::roundtrip_error(plan, MPI_COMM_WORLD)), ref_tol<T>());
  EXPECT_LE(max_over_ranks(dfft::validate::laplacian_error(plan, MPI_COMM_WORLD)), lap_tol<T>());
}

TEST(Measure, Slab2d1dRealignedR2cDouble) {
  measure_case<double>(Decomposition::slab_2d1d, Variant::Realigned, Transform::r2c);
}
TEST(Measure, Slab1d2dDefaultC2cFloat) {
  measure_case<float>(Decomposition::slab_1d2d, Variant::Default, Transform::c2c);
}
TEST(Measure, PencilRealignedR2cFloat) {
  measure_case<float>(Decomposition::pencil, Variant::Realigned, Transform::r2c);
}
TEST(Measure, PencilDefaultC2cDouble) {
  measure_case<double>(Decomposition::pencil, Variant::Default, Transform::c2c);
}

// Message limits of 64 and 1000 bytes (4 and 62 complex doubles): every block of these sizes
// exceeds them, so each method must split; 1 byte is below one element (clamped to one).
struct SmallMessages {
  Decomposition dec;
  Variant var;
  Method method;
  std::int64_t bytes;
};

void PrintTo(const SmallMessages& p, std::ostream* os) {
  *os << to_string(p.dec) << " " << to_string(p.var) << " " << to_string(p.method) << " " << p.bytes << "B";
}

std::vector<SmallMessages> small_message_cases() {
  std::vector<SmallMessages> v;
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil})
    for (auto var : {Variant::Default, Variant::Realigned})
      for (auto m : kCpuMethods)
        for (std::int64_t b : {64, 1000}) v.push_back({dec, var, m, b});
  for (auto m : kCpuMethods) v.push_back({Decomposition::pencil, Variant::Realigned, m, 1});
  return v;
}

class SmallMessage : public ::testing::TestWithParam<SmallMessages> {};

TEST_P(SmallMessage, MatchesReference) {
  const auto& p = GetParam();
  dfft::Options o;
  o.decomposition = p.dec;
  o.variant = p.var;
  o.methods = {p.method};
  o.max_message_bytes = p.bytes;
  {  // double r2c (16-byte elements)
    dfft::Plan<double> plan(MPI_COMM_WORLD, {12, 10, 9}, o);
    EXPECT_LE(max_over_ranks(dfft::validate::reference_error(plan, MPI_COMM_WORLD)), 1e-12);
    EXPECT_LE(max_over_ranks(dfft::validate::roundtrip_error(plan, MPI_COMM_WORLD)), 1e-12);
  }
  o.transform = Transform::c2c;
  {  // float c2c (8-byte elements)
    dfft::Plan<float> plan(MPI_COMM_WORLD, {12, 10, 9}, o);
    EXPECT_LE(max_over_ranks(dfft::validate::reference_error(plan, MPI_COMM_WORLD)), 1e-5);
    EXPECT_LE(max_over_ranks(dfft::validate::roundtrip_error(plan, MPI_COMM_WORLD)), 1e-5);
  }
}

INSTANTIATE_TEST_SUITE_P(Opt, SmallMessage, ::testing::ValuesIn(small_message_cases()),
                         [](const ::testing::TestParamInfo<SmallMessages>& i) {
                           std::string s = to_string(i.param.dec) + "_" + to_string(i.param.var) +
                                           "_" + to_string(i.param.method) + "_" +
                                           std::to_string(i.param.bytes) + "B";
                           for (auto& ch : s)
                             if (ch == '-') ch = '_';
                           return s;
                         });

// A pencil grid dimension of 1 moves nothing: the planner merges the FFTs on either side of its
// exchange into one stage and drops the exchange, on every variant, with and without overlap,
// and the results still match the serial reference.
TEST(GridOfOne, IdentityExchangeIsMerged) {
  const int n = world_size();
  for (auto grid : {std::vector<int>{n, 1}, std::vector<int>{1, n}})
    for (auto var : {Variant::Default, Variant::Realigned})
      for (int overlap : {1, 3})
        for (auto tr : {Transform::r2c, Transform::c2c}) {
          dfft::Options o;
          o.decomposition = Decomposition::pencil;
          o.grid = grid;
          o.variant = var;
          o.transform = tr;
          o.overlap = overlap;
          dfft::Plan<double> plan(MPI_COMM_WORLD, {17, 12, 10}, o);
          SCOPED_TRACE(plan.describe());
          EXPECT_LE(max_over_ranks(dfft::validate::reference_error(plan, MPI_COMM_WORLD)), 1e-12);
          EXPECT_LE(max_over_ranks(dfft::validate::roundtrip_error(plan, MPI_COMM_WORLD)), 1e-12);
          // No stage exchanges over the grid dimension of size 1; two FFT stages remain (one
          // with n == 1).
          const int idle = grid[0] == 1 ? 0 : 1;
          int ffts = 0;
          for (const auto& t : plan.timings()) {
            EXPECT_NE(t.name.rfind("exchange" + std::to_string(idle), 0), 0u) << t.name;
            ffts += t.name.rfind("fft", 0) == 0;
          }
          EXPECT_EQ(ffts, n == 1 ? 1 : 2);
        }
}

// Options grouped by concern (dfft/types.hpp, docs/options.md).

// The fields of each group against the option table: tests/unit/option_fields_test.cpp.

// A plan made from groups is the plan made from the same fields set one by one.
TEST(OptionGroups, MakeOptionsBuildsThePlanTheFlatFieldsBuild) {
  const int p = world_size();
  const std::vector<int> grid = p % 2 == 0 ? std::vector<int>{2, p / 2} : std::vector<int>{p, 1};
  dfft::Options flat;
  flat.methods = {Method::p2p_sync, Method::a2a_type};
  flat.chunks = 3;
  flat.max_message_bytes = 4096;
  flat.decomposition = Decomposition::pencil;
  flat.grid = grid;
  flat.variant = Variant::Realigned;
  flat.transform = Transform::c2c;
  flat.effort = dfft::Effort::estimate;
  flat.fftw_wisdom = false;
  const dfft::Options grouped = dfft::make_options(
      dfft::ExchangeOptions{.methods = {Method::p2p_sync, Method::a2a_type}, .chunks = 3, .max_message_bytes = 4096},
      dfft::DecompositionOptions{.decomposition = Decomposition::pencil, .grid = grid, .variant = Variant::Realigned},
      dfft::ProblemOptions{.transform = Transform::c2c},
      dfft::TuningOptions{.effort = dfft::Effort::estimate, .fftw_wisdom = false});
  dfft::Plan<double> a(MPI_COMM_WORLD, {12, 10, 9}, flat), b(MPI_COMM_WORLD, {12, 10, 9}, grouped);
  EXPECT_EQ(b.describe(), a.describe());
  EXPECT_EQ(b.grid(), grid);
  EXPECT_LE(max_over_ranks(dfft::validate::reference_error(b, MPI_COMM_WORLD)), 1e-12);
}

// Assigning a group sets every field of that group: those not named go back to their defaults
// (the values docs/options.md gives), and the other groups keep theirs.
TEST(OptionGroups, AGroupAssignmentResetsThatGroupOnly) {
  dfft::Options o;
  o.codec = dfft::Codec::fp16;
  o.tolerance = 1e-3;
  o.chunks = 3;
  o.in_flight = 5;
  o.max_message_bytes = 4096;
  o.transform = Transform::c2c;
  o.overlap = 2;
  o.backend = dfft::Backend::cuda;
  o.group<dfft::ExchangeOptions>() = {.methods = {Method::nccl}, .chunks = 4};
  EXPECT_EQ(o.methods, std::vector<Method>{Method::nccl});
  EXPECT_EQ(o.chunks, 4);
  EXPECT_EQ(o.codec, dfft::Codec::none);
  EXPECT_EQ(o.tolerance, 0.0);
  EXPECT_EQ(o.in_flight, 2);
  EXPECT_EQ(o.max_message_bytes, (std::int64_t{1} << 31) - 4096);
  EXPECT_EQ(o.onesided_sync, dfft::OneSidedSync::fence);
  EXPECT_EQ(o.staging, dfft::Staging::automatic);
  EXPECT_EQ(o.transform, Transform::c2c);
  EXPECT_EQ(o.overlap, 2);
  EXPECT_EQ(o.backend, dfft::Backend::cuda);
  const dfft::Options& c = o;
  EXPECT_EQ(c.group<dfft::DeviceOptions>().backend, dfft::Backend::cuda);
  // make_options leaves the groups it is not given at their defaults.
  const dfft::Options m = dfft::make_options(dfft::OverlapOptions{.adapt = true});
  EXPECT_TRUE(m.adapt);
  EXPECT_EQ(m.overlap, 0);
  EXPECT_EQ(m.decomposition, Decomposition::automatic);
  EXPECT_EQ(m.memory_limit_bytes, 0);
  EXPECT_EQ(m.threads, 0);
}

// A plan's resolved options (dfft::resolved_options) hold what it runs in each field the table
// says the plan resolves, and its options() in every other field.
template <class T>
void check_resolved(const dfft::Options& o) {
  dfft::Plan<T> plan(MPI_COMM_WORLD, {12, 10, 8}, o);
  const dfft::Options r = dfft::resolved_options(plan);
  for (const auto& f : dfft::option_fields()) {
    if (!f.resolve) {
      EXPECT_EQ(f.get(r), f.get(plan.options())) << f.name;
    }
  }
  EXPECT_EQ(r.grid, plan.grid());
  EXPECT_EQ(r.codec, plan.codec());
  EXPECT_EQ(r.overlap, plan.overlap_slices());
  EXPECT_EQ(r.chunks, plan.chunks());
  EXPECT_EQ(r.in_flight, plan.in_flight());
  const std::size_t exchanges = plan.exchange_bytes().size();
  if (exchanges > 1 && o.methods.size() == 1) {
    EXPECT_EQ(r.methods.size(), exchanges);
  }
}

TEST(ResolvedOptions, AreWhatThePlanRuns) {
  dfft::Options o;
  o.decomposition = Decomposition::pencil;
  o.methods = {dfft::Method::a2a_sync};
  check_resolved<double>(o);
  check_resolved<float>(o);
  check_resolved<double>(dfft::Options{});
}

}  // namespace
}  // namespace dfft_test
