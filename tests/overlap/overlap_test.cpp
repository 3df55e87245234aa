// SPDX-License-Identifier: MIT
// FFT/exchange overlap (Options::overlap) and online tuning (Options::adapt): overlapped
// plans equal plain ones to rounding and the serial reference, for every decomposition x
// variant x transform x precision, the methods of the backend under test (support/backend.hpp),
// and slice counts 1, 2, 3 and more slices than rows; batches; the inverse; adapt converging and
// staying correct while it explores. On cuda the FFT slices run on the main stream and the
// exchanges on the communication lane (second stream, communication thread).
#include <cstdlib>

#include "dfft/validate.hpp"
#include "overlap/overlap_util.hpp"

namespace dfft_test {
namespace {

using dfft::Decomposition;
using dfft::Method;
using dfft::Transform;
using dfft::Variant;
using Case = OverlapCase;

/// The methods overlapped on the backend under test.
std::vector<Method> overlap_methods() {
  if (on_cuda())
    return {Method::nccl, Method::cuda_ipc, Method::a2a_sync, Method::p2p_sync,
            Method::p2p_streams, Method::p2p_pipelined, Method::onesided};
  return {Method::a2a_sync, Method::p2p_sync, Method::a2a_type, Method::onesided};
}

std::vector<Case> cases() {
  std::vector<Case> v;
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil})
    for (auto var : {Variant::Default, Variant::Realigned})
      for (auto tr : {Transform::r2c, Transform::c2c})
        for (bool dbl : {true, false})
          for (auto m : overlap_methods()) v.push_back({dec, var, tr, dbl, m});
  return v;
}

bool threads_ok() {
  int p = MPI_THREAD_SINGLE;
  MPI_Query_thread(&p);
  return p >= MPI_THREAD_SERIALIZED || world_size() == 1;
}

template <class T, class In>
void run_case(const Case& c) {
  // Two slices, more slices than rows, and an odd count on another odd shape.
  compare_overlap<T, In>(c, Shape{17, 12, 10}, 2, 1);
  compare_overlap<T, In>(c, Shape{17, 12, 10}, 64, 1);
  compare_overlap<T, In>(c, Shape{12, 10, 9}, 3, 1);
  compare_overlap<T, In>(c, Shape{9, 7, 6}, 4, 3);
  // Against the serial reference, not only against the plain plan.
  auto ov = make_plan<T>(Shape{17, 12, 10}, overlap_options(c, 3));
  if (!ov) return;
  EXPECT_LE(max_over_ranks(dfft::validate::reference_error(*ov, MPI_COMM_WORLD)), ref_tol<T>());
  EXPECT_LE(max_over_ranks(dfft::validate::roundtrip_error(*ov, MPI_COMM_WORLD)), ref_tol<T>());
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

INSTANTIATE_TEST_SUITE_P(All, Overlap, ::testing::ValuesIn(cases()),
                         [](const auto& i) { return overlap_name(i.param); });

// DFFT_SLICE_TAPER=1 (first and last slice half-sized): still serial FFTW's values and equal to
// the plain plan, on every decomposition, for slice counts where the taper changes the cut (3, 4,
// more than rows); on cuda with the device-direct methods and on a larger size too.
TEST(OverlapTaper, TaperedSlicesEqualPlain) {
  if (!threads_ok()) GTEST_SKIP() << "MPI provides no MPI_THREAD_SERIALIZED";
  ASSERT_EQ(setenv("DFFT_SLICE_TAPER", "1", 1), 0);
  const std::vector<Method> methods =
      on_cuda() ? std::vector<Method>{Method::nccl, Method::cuda_ipc, Method::p2p_pipelined}
                : std::vector<Method>{Method::p2p_sync};
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil})
    for (auto m : methods) {
      const Case c{dec, Variant::Default, Transform::r2c, true, m};
      compare_overlap<double, double>(c, Shape{17, 12, 10}, 3, 1);
      compare_overlap<double, double>(c, Shape{12, 10, 9}, 4, 1);
      compare_overlap<double, double>(c, Shape{9, 7, 6}, 20, 3);
      const Case f{dec, Variant::Realigned, Transform::c2c, false, on_cuda() ? m : Method::a2a_sync};
      compare_overlap<float, std::complex<float>>(f, Shape{17, 12, 10}, 5, 1);
      if (on_cuda())
        for (int slices : {3, 4, 64})
          compare_overlap<float, float>({dec, Variant::Default, Transform::r2c, false, m}, Shape{96, 80, 72}, slices, 1);
    }
  unsetenv("DFFT_SLICE_TAPER");
}

TEST(OverlapTaper, BadValueIsRejectedOnEveryRank) {
  const dfft::Options o = backend_options();  // checked whether or not the plan overlaps or chunks
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
// without an error). A regression test from the random configuration sweep; on 4 ranks the grid
// is fixed at 2 x 2 (a 4 x 1 or 1 x 4 grid, which the automatic choice may prefer, has one row).
TEST(OverlapGroups, RowsWithDifferentExtentsSliceAlike) {
  if (!threads_ok()) GTEST_SKIP() << "MPI provides no MPI_THREAD_SERIALIZED";
  const std::vector<int> grid = world_size() == 4 ? std::vector<int>{2, 2} : std::vector<int>{};
  for (auto m : {Method::a2a_sync, Method::p2p_sync, Method::onesided})
    for (int slices : {2, 3, 7}) {
      const Case c{Decomposition::pencil, Variant::Default, Transform::c2c, true, m, grid};
      compare_overlap<double, std::complex<double>>(c, Shape{3, 11, 3}, slices, 1);
      const Case r{Decomposition::pencil, Variant::Realigned, Transform::r2c, true, m, grid};
      compare_overlap<double, double>(r, Shape{3, 12, 5}, slices, 1);
    }
}

// Some exchange is really run in slices when there is more than one rank (the test above
// would pass if the executor ignored Options::overlap).
TEST(OverlapGroups, ExchangesRunSliced) {
  if (!threads_ok()) GTEST_SKIP() << "MPI provides no MPI_THREAD_SERIALIZED";
  if (world_size() == 1) GTEST_SKIP() << "one rank: exchanges are local copies";
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil}) {
    dfft::Options o = backend_options();
    o.effort = dfft::Effort::estimate;  // many plans: FFTW_MEASURE would dominate the run
    o.decomposition = dec;
    o.overlap = 3;
    dfft::Plan<double> p(MPI_COMM_WORLD, Shape{17, 12, 10}, o);
    DevArray<double> in(std::vector<double>(static_cast<std::size_t>(p.input_count()), 1.0));
    DevArray<std::complex<double>> out(static_cast<std::size_t>(p.output_count()));
    p.forward(in.get(), out.get());
    int sliced = 0;
    for (const auto& t : p.timings()) sliced += t.slices == 3 && t.wall > 0;
    EXPECT_GE(sliced, 1) << to_string(dec) << "\n" << p.describe();
    DevArray<double> back(in.size());
    p.inverse(out.get(), back.get());
    sliced = 0;
    for (const auto& t : p.timings()) sliced += t.slices == 3;
    EXPECT_GE(sliced, 1) << "inverse " << to_string(dec);
  }
}

// Online tuning: results stay right on every call while candidates are tried (serial FFTW of the
// global array, and the plain plan's to rounding), the tuning
// ends after a bounded number of calls, and every rank settles on the same choice.
TEST(Adapt, ConvergesAndStaysCorrect) {
  if (!threads_ok()) GTEST_SKIP() << "MPI provides no MPI_THREAD_SERIALIZED";
  for (auto m : {Method::a2a_sync, Method::onesided}) {
    dfft::Options o = backend_options();
    o.effort = dfft::Effort::estimate;  // many plans: FFTW_MEASURE would dominate the run
    o.decomposition = Decomposition::pencil;
    o.methods = {m};
    o.adapt = true;
    dfft::Options plain_o = o;
    plain_o.adapt = false;
    const Shape shape{17, 12, 10};
    dfft::Plan<double> p(MPI_COMM_WORLD, shape, o), plain(MPI_COMM_WORLD, shape, plain_o);
    const auto in_h = make_local<double>(p.input_layout(), shape, 2);
    ASSERT_EQ(in_h.size(), static_cast<std::size_t>(p.input_count()));
    const auto serial = serial_forward(shape, global_signal(shape, 2, true), true);
    const Shape spec{17, 12, 6};
    auto serial_err = [&](const std::vector<std::complex<double>>& local) {
      return rel_max(gather_padded(p.output_layout(), spec, local.data()), serial);
    };
    DevArray<double> in(in_h), back(in_h.size());
    DevArray<std::complex<double>> want(static_cast<std::size_t>(p.output_count())), got(want.size());
    plain.forward(in.get(), want.get());
    const auto want_h = want.host();
    const double tol = overlap_tol<double>();
    int calls = 0;
    while (p.adapting() && calls < 200) {
      p.forward(in.get(), got.get());
      const auto got_h = got.host();
      EXPECT_LE(serial_err(got_h), ref_tol<double>()) << "call " << calls << " slices " << p.overlap_slices();
      EXPECT_LE(local_rel(got_h, want_h), tol) << "call " << calls << " slices " << p.overlap_slices();
      p.inverse(got.get(), back.get());
      calls += 2;
    }
    EXPECT_FALSE(p.adapting()) << "online tuning did not end";
    const int chosen[3] = {p.overlap_slices(), p.chunks(), p.in_flight()};
    int lo[3], hi[3];
    MPI_Allreduce(chosen, lo, 3, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(chosen, hi, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(lo[i], hi[i]) << "ranks chose differently";
    p.forward(in.get(), got.get());
    EXPECT_LE(serial_err(got.host()), ref_tol<double>());
    EXPECT_LE(local_rel(got.host(), want_h), tol);
  }
}

TEST(OverlapOptions, BadValuesAreRejectedAtPlanTime) {
  // 0 slices and 0 chunks mean "automatic" (Options); negative ones are refused, as is any
  // in_flight below 1.
  for (int bad : {0, -2}) {
    dfft::Options o = backend_options();
    o.effort = dfft::Effort::estimate;  // many plans: FFTW_MEASURE would dominate the run
    o.in_flight = bad;
    EXPECT_THROW(dfft::Plan<double>(MPI_COMM_WORLD, Shape{8, 8, 8}, o), dfft::Error);
    if (bad == 0) continue;
    o = backend_options();
    o.overlap = bad;
    EXPECT_THROW(dfft::Plan<double>(MPI_COMM_WORLD, Shape{8, 8, 8}, o), dfft::Error);
    o = backend_options();
    o.chunks = bad;
    EXPECT_THROW(dfft::Plan<double>(MPI_COMM_WORLD, Shape{8, 8, 8}, o), dfft::Error);
  }
}

}  // namespace
}  // namespace dfft_test
