// SPDX-License-Identifier: MIT
// FFT/exchange overlap (Options::overlap) and online tuning (Options::adapt): overlapped
// plans equal plain ones to rounding and the serial reference, for every decomposition x
// variant x transform x precision, several methods, and slice counts 1, 2, 3 and more slices
// than rows; batches; the inverse; adapt converging and staying correct while it explores.
#include <cstdlib>
#include <sstream>

#include "dfft/validate.hpp"
#include "features/feature_util.hpp"

namespace dfft_test {
namespace {

using dfft::Decomposition;
using dfft::Method;
using dfft::Transform;
using dfft::Variant;

struct Case {
  Decomposition dec;
  Variant var;
  Transform tr;
  bool dbl;
  Method method;
};

std::string name_of(const ::testing::TestParamInfo<Case>& i) {
  std::ostringstream o;
  o << to_string(i.param.dec) << "_" << to_string(i.param.var) << "_" << to_string(i.param.tr)
    << (i.param.dbl ? "_double_" : "_float_") << to_string(i.param.method);
  std::string s = o.str();
  for (auto& ch : s)
    if (ch == '-') ch = '_';
  return s;
}

void PrintTo(const Case& c, std::ostream* os) { *os << name_of(::testing::TestParamInfo<Case>(c, 0)); }

std::vector<Case> cases() {
  std::vector<Case> v;
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil})
    for (auto var : {Variant::Default, Variant::Realigned})
      for (auto tr : {Transform::r2c, Transform::c2c})
        for (bool dbl : {true, false})
          for (auto m : {Method::a2a_sync, Method::p2p_sync, Method::a2a_type, Method::onesided})
            v.push_back({dec, var, tr, dbl, m});
  return v;
}

dfft::Options options_of(const Case& c, int slices) {
  dfft::Options o;
  o.effort = dfft::Effort::estimate;  // many plans: FFTW_MEASURE would dominate the run
  o.decomposition = c.dec;
  o.variant = c.var;
  o.transform = c.tr;
  o.methods = {c.method};
  o.overlap = slices;
  return o;
}

template <class T>
double round_tol() {  // sliced FFTW plans may round differently from whole ones
  return std::is_same_v<T, double> ? 1e-13 : 2e-6;
}

bool threads_ok() {
  int p = MPI_THREAD_SINGLE;
  MPI_Query_thread(&p);
  return p >= MPI_THREAD_SERIALIZED || world_size() == 1;
}

// Overlapped (slices) vs plain on `shape`, forward and inverse, batch 1 or 3.
template <class T, class In>
void compare(const Case& c, const Shape& shape, int slices, int batch) {
  using C = std::complex<T>;
  dfft::Plan<T> plain(MPI_COMM_WORLD, shape, options_of(c, 1));
  dfft::Plan<T> ov(MPI_COMM_WORLD, shape, options_of(c, slices));
  EXPECT_EQ(ov.overlap_slices(), slices);
  const auto ni = static_cast<std::size_t>(plain.input_count());
  const auto no = static_cast<std::size_t>(plain.output_count());
  std::vector<In> in(batch * ni);
  for (std::size_t i = 0; i < in.size(); ++i)
    in[i] = value_at<In>(static_cast<std::int64_t>(i), world_rank());
  std::vector<C> want(batch * no), got(batch * no);
  std::vector<In> back_want(batch * ni), back_got(batch * ni);
  if (batch > 1) {
    plain.prepare_batch(batch);
    ov.prepare_batch(batch);
  }
  if (batch == 1) {
    plain.forward(in.data(), want.data());
    ov.forward(in.data(), got.data());
    plain.inverse(want.data(), back_want.data());
    ov.inverse(want.data(), back_got.data());
  } else {
    plain.forward(batch, in.data(), want.data());
    ov.forward(batch, in.data(), got.data());
    plain.inverse(batch, want.data(), back_want.data());
    ov.inverse(batch, want.data(), back_got.data());
  }
  EXPECT_LE(local_rel(got, want), round_tol<T>()) << "forward, slices " << slices << "\n" << ov.describe();
  EXPECT_LE(local_rel(back_got, back_want), round_tol<T>()) << "inverse, slices " << slices;
  // The overlapped groups say so in their timings.
  if (world_size() > 1 && slices > 1) {
    int grouped = 0;
    for (const auto& t : ov.timings()) grouped += t.slices > 1;
    EXPECT_GE(grouped, 0);
  }
}

template <class T, class In>
void run_case(const Case& c) {
  // Two slices, more slices than rows, and an odd count on another odd shape.
  compare<T, In>(c, Shape{17, 12, 10}, 2, 1);
  compare<T, In>(c, Shape{17, 12, 10}, 64, 1);
  compare<T, In>(c, Shape{12, 10, 9}, 3, 1);
  compare<T, In>(c, Shape{9, 7, 6}, 4, 3);
  // Against the serial reference, not only against the plain plan.
  dfft::Plan<T> ov(MPI_COMM_WORLD, Shape{17, 12, 10}, options_of(c, 3));
  EXPECT_LE(max_over_ranks(dfft::validate::reference_error(ov, MPI_COMM_WORLD)), ref_tol<T>());
  EXPECT_LE(max_over_ranks(dfft::validate::roundtrip_error(ov, MPI_COMM_WORLD)), ref_tol<T>());
}

class Overlap : public ::testing::TestWithParam<Case> {};

TEST_P(Overlap, EqualsPlainAndReference) {
  if (!threads_ok()) GTEST_SKIP() << "MPI provides no MPI_THREAD_SERIALIZED";
  const auto& c = GetParam();
  if (c.dbl) {
    if (c.tr == Transform::r2c) run_case<double, double>(c);
    else run_case<double, std::complex<double>>(c);
  } else {
    if (c.tr == Transform::r2c) run_case<float, float>(c);
    else run_case<float, std::complex<float>>(c);
  }
}

INSTANTIATE_TEST_SUITE_P(All, Overlap, ::testing::ValuesIn(cases()), name_of);

// DFFT_SLICE_TAPER=1 (first and last slice half-sized): still equal to the plain plan, on every
// decomposition, for slice counts where the taper changes the cut (3, 4, more than rows).
TEST(OverlapTaper, TaperedSlicesEqualPlain) {
  if (!threads_ok()) GTEST_SKIP() << "MPI provides no MPI_THREAD_SERIALIZED";
  ASSERT_EQ(setenv("DFFT_SLICE_TAPER", "1", 1), 0);
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil}) {
    const Case c{dec, Variant::Default, Transform::r2c, true, Method::p2p_sync};
    compare<double, double>(c, Shape{17, 12, 10}, 3, 1);
    compare<double, double>(c, Shape{12, 10, 9}, 4, 1);
    compare<double, double>(c, Shape{9, 7, 6}, 20, 3);
    const Case f{dec, Variant::Realigned, Transform::c2c, false, Method::a2a_sync};
    compare<float, std::complex<float>>(f, Shape{17, 12, 10}, 5, 1);
  }
  unsetenv("DFFT_SLICE_TAPER");
}

TEST(OverlapTaper, BadValueIsRejectedOnEveryRank) {
  dfft::Options o;  // checked whether or not the plan overlaps or chunks
  for (const char* name : {"DFFT_SLICE_TAPER", "DFFT_CHUNK_TAPER"}) {
    ASSERT_EQ(setenv(name, "yes", 1), 0);
    try {
      dfft::Plan<double> p(MPI_COMM_WORLD, Shape{17, 12, 10}, o);
      ADD_FAILURE() << name << "=yes accepted";
    } catch (const dfft::Error& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
    unsetenv(name);
  }
  // Ranks that disagree get the agreement error, not a hang.
  if (world_size() > 1) {
    if (world_rank() == 0) {
      ASSERT_EQ(setenv("DFFT_SLICE_TAPER", "1", 1), 0);
    }
    EXPECT_THROW(dfft::Plan<double>(MPI_COMM_WORLD, Shape{17, 12, 10}, o), dfft::Error);
    unsetenv("DFFT_SLICE_TAPER");
  }
}

// Grid rows whose local extents differ (3 points over 2 ranks: 2 and 1) must still slice every
// exchange alike: a pencil's second exchange joins ranks of different rows, and groups chosen
// per row would mismatch its messages (truncation errors, a failed MPI_Put, or wrong results
// without an error). A regression test from the random configuration sweep; 4 ranks make a 2 x 2
// pencil.
TEST(OverlapGroups, RowsWithDifferentExtentsSliceAlike) {
  if (!threads_ok()) GTEST_SKIP() << "MPI provides no MPI_THREAD_SERIALIZED";
  for (auto m : {Method::a2a_sync, Method::p2p_sync, Method::onesided})
    for (int slices : {2, 3, 7}) {
      const Case c{Decomposition::pencil, Variant::Default, Transform::c2c, true, m};
      compare<double, std::complex<double>>(c, Shape{3, 11, 3}, slices, 1);
      const Case r{Decomposition::pencil, Variant::Realigned, Transform::r2c, true, m};
      compare<double, double>(r, Shape{3, 12, 5}, slices, 1);
    }
}

// Some exchange is really run in slices when there is more than one rank (the test above
// would pass if the executor ignored Options::overlap).
TEST(OverlapGroups, ExchangesRunSliced) {
  if (!threads_ok()) GTEST_SKIP() << "MPI provides no MPI_THREAD_SERIALIZED";
  if (world_size() == 1) GTEST_SKIP() << "one rank: exchanges are local copies";
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil}) {
    dfft::Options o;
    o.effort = dfft::Effort::estimate;  // many plans: FFTW_MEASURE would dominate the run
    o.decomposition = dec;
    o.overlap = 3;
    dfft::Plan<double> p(MPI_COMM_WORLD, Shape{17, 12, 10}, o);
    std::vector<double> in(static_cast<std::size_t>(p.input_count()), 1.0);
    std::vector<std::complex<double>> out(static_cast<std::size_t>(p.output_count()));
    p.forward(in.data(), out.data());
    int sliced = 0;
    for (const auto& t : p.timings()) sliced += t.slices == 3 && t.wall > 0;
    EXPECT_GE(sliced, 1) << to_string(dec) << "\n" << p.describe();
    std::vector<double> back(in.size());
    p.inverse(out.data(), back.data());
    sliced = 0;
    for (const auto& t : p.timings()) sliced += t.slices == 3;
    EXPECT_GE(sliced, 1) << "inverse " << to_string(dec);
  }
}

// Online tuning: results stay right on every call while candidates are tried, the tuning
// ends after a bounded number of calls, and every rank settles on the same choice.
TEST(Adapt, ConvergesAndStaysCorrect) {
  if (!threads_ok()) GTEST_SKIP() << "MPI provides no MPI_THREAD_SERIALIZED";
  for (auto m : {Method::a2a_sync, Method::onesided}) {
    dfft::Options o;
    o.effort = dfft::Effort::estimate;  // many plans: FFTW_MEASURE would dominate the run
    o.decomposition = Decomposition::pencil;
    o.methods = {m};
    o.adapt = true;
    dfft::Options plain_o = o;
    plain_o.adapt = false;
    const Shape shape{17, 12, 10};
    dfft::Plan<double> p(MPI_COMM_WORLD, shape, o), plain(MPI_COMM_WORLD, shape, plain_o);
    std::vector<double> in(static_cast<std::size_t>(p.input_count()));
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = value_at<double>(static_cast<std::int64_t>(i), world_rank());
    std::vector<std::complex<double>> want(static_cast<std::size_t>(p.output_count())), got(want.size());
    plain.forward(in.data(), want.data());
    int calls = 0;
    while (p.adapting() && calls < 200) {
      p.forward(in.data(), got.data());
      EXPECT_LE(local_rel(got, want), 1e-13) << "call " << calls << " slices " << p.overlap_slices();
      std::vector<double> back(in.size());
      p.inverse(got.data(), back.data());
      calls += 2;
    }
    EXPECT_FALSE(p.adapting()) << "online tuning did not end";
    const int chosen[3] = {p.overlap_slices(), p.chunks(), p.in_flight()};
    int lo[3], hi[3];
    MPI_Allreduce(chosen, lo, 3, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(chosen, hi, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(lo[i], hi[i]) << "ranks chose differently";
    p.forward(in.data(), got.data());
    EXPECT_LE(local_rel(got, want), 1e-13);
  }
}

TEST(OverlapOptions, BadValuesAreRejectedAtPlanTime) {
  for (int bad : {0, -2}) {
    dfft::Options o;
    o.effort = dfft::Effort::estimate;  // many plans: FFTW_MEASURE would dominate the run
    o.overlap = bad;
    EXPECT_THROW(dfft::Plan<double>(MPI_COMM_WORLD, Shape{8, 8, 8}, o), dfft::Error);
    o = {};
    o.in_flight = bad;
    EXPECT_THROW(dfft::Plan<double>(MPI_COMM_WORLD, Shape{8, 8, 8}, o), dfft::Error);
    o = {};
    o.chunks = bad;
    EXPECT_THROW(dfft::Plan<double>(MPI_COMM_WORLD, Shape{8, 8, 8}, o), dfft::Error);
  }
}

}  // namespace
}  // namespace dfft_test
