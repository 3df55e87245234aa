// SPDX-License-Identifier: MIT
// Arrays with a halo or padding around the box (Options::input_halo and output_halo, Layout's
// offset and padded, dfft::with_halo): plans and Reshape must read and write the boxes of such
// arrays and never a halo cell. Each plan's forward is checked against serial FFTW of the global
// array and its inverse against the input, and besides element by element against the dense plan
// of the same options (a halo must change where the values lie, not the values), on 17x12x10,
// every decomposition, r2c and c2c, float and double; every halo cell holds a sentinel that must
// survive forward and inverse. Bad widths and layouts are refused on every rank at plan time.
#include <cstring>
#include <functional>
#include <memory>
#include <sstream>

#include "dfft/reshape.hpp"
#include "features/feature_util.hpp"

namespace dfft_test {
namespace {
namespace strided {  // names of its own in a unity build

using dfft::Decomposition;
using dfft::Transform;

struct Widths {
  Shape lo, hi;
};

// Extent of the halo'd array along axis a.
std::int64_t grown_extent(const Box& box, const Widths& w, int a) {
  return box.hi[a] - box.lo[a] + w.lo[a] + w.hi[a];
}

// Offset of global index `idx` in the array of `box` grown by the widths, in memory order `order`
// (written here, independently of Layout::offset_of).
std::int64_t grown_offset(const Box& box, const std::vector<int>& order, const Widths& w, const Shape& idx) {
  std::int64_t off = 0;
  for (int a : order) off = off * grown_extent(box, w, a) + (idx[a] - box.lo[a] + w.lo[a]);
  return off;
}

// Elements of the halo'd array (0 for an empty box, as for a dense one).
std::int64_t grown_count(const Box& box, const Widths& w) {
  if (box.empty()) return 0;
  std::int64_t n = 1;
  for (int a = 0; a < box.dims(); ++a) n *= grown_extent(box, w, a);
  return n;
}

template <class V>
V sentinel() {
  return V(-12345.5f);
}

template <class V>
bool bits_equal(const V& a, const V& b) {
  return std::memcmp(&a, &b, sizeof(V)) == 0;
}

// The dense array `dense` (layout l) placed in a halo'd array whose other cells hold the sentinel.
template <class V>
std::vector<V> embed(const Layout& l, const Widths& w, const std::vector<V>& dense) {
  std::vector<V> out(static_cast<std::size_t>(grown_count(l.box, w)), sentinel<V>());
  for_box(l.box, [&](const Shape& idx) {
    out[static_cast<std::size_t>(grown_offset(l.box, l.order, w, idx))] = dense[static_cast<std::size_t>(padded_offset(l, idx))];
  });
  return out;
}

// The box of a halo'd array as a dense array of layout l (l without padding).
template <class V>
std::vector<V> extract(const Layout& l, const Widths& w, const std::vector<V>& grown) {
  std::vector<V> out(static_cast<std::size_t>(alloc_elems(l)));
  for_box(l.box, [&](const Shape& idx) {
    out[static_cast<std::size_t>(padded_offset(l, idx))] = grown[static_cast<std::size_t>(grown_offset(l.box, l.order, w, idx))];
  });
  return out;
}

// True when every cell of the halo'd array outside the box still holds the sentinel.
template <class V>
bool halo_untouched(const Layout& l, const Widths& w, const std::vector<V>& grown) {
  std::vector<char> inside(grown.size(), 0);
  for_box(l.box, [&](const Shape& idx) { inside[static_cast<std::size_t>(grown_offset(l.box, l.order, w, idx))] = 1; });
  for (std::size_t i = 0; i < grown.size(); ++i)
    if (!inside[i] && !bits_equal(grown[i], sentinel<V>())) return false;
  return true;
}

dfft::HaloWidths widths(const Widths& w) { return {w.lo, w.hi}; }

// Every rank throws a dfft::Error of status `want` whose message holds `needle`.
void expect_refusal(const std::function<void()>& f, const std::string& needle, dfft::Status want) {
  dfft::Status got = dfft::Status::success;
  expect_error_everywhere(
      [&] {
        try {
          f();
        } catch (const dfft::Error& e) {
          got = e.status();
          throw;
        }
      },
      needle);
  EXPECT_TRUE(all_ranks(got == want)) << "status " << to_string(got);
}

struct StridedCase {
  Decomposition dec;
  Transform tr;
  bool dbl;
  int overlap = 1;  // > 1: the FFTs next to the exchanges run in slices (strided views)
};

std::string case_name(const ::testing::TestParamInfo<StridedCase>& i) {
  std::string s = to_string(i.param.dec) + "_" + to_string(i.param.tr) + (i.param.dbl ? "_double" : "_float") +
                  (i.param.overlap > 1 ? "_overlap" + std::to_string(i.param.overlap) : "");
  for (auto& ch : s)
    if (ch == '-') ch = '_';
  return s;
}

void PrintTo(const StridedCase& c, std::ostream* os) { *os << case_name(::testing::TestParamInfo<StridedCase>(c, 0)); }

const Shape kShape{17, 12, 10};
const Widths kIn{{1, 2, 0}, {0, 1, 2}};   // halo below and above, padding on the fastest axis
const Widths kOut{{2, 0, 1}, {1, 1, 0}};

template <class T, class In>
void run_case(const StridedCase& c) {
  using C = std::complex<T>;
  const double tol = 10 * ref_tol<T>();
  auto o = backend_options();
  o.decomposition = c.dec;
  o.transform = c.tr;
  o.effort = dfft::Effort::estimate;
  o.overlap = c.overlap;
  auto halo_opt = o;
  halo_opt.input_halo = widths(kIn);
  halo_opt.output_halo = widths(kOut);
  if (on_cuda()) {
    expect_refusal([&] { dfft::Plan<T> p(MPI_COMM_WORLD, kShape, halo_opt); }, "input_halo",
                   dfft::Status::unsupported);
    return;
  }
  auto dense = make_plan<T>(kShape, o);
  auto halo = make_plan<T>(kShape, halo_opt);
  if (!dense || !halo) return;
  const Layout li = dense->input_layout(), lo = dense->output_layout();
  EXPECT_TRUE(all_ranks(halo->input_box() == li.box && halo->output_box() == lo.box &&
                        halo->input_layout().order == li.order && halo->output_layout().order == lo.order));
  EXPECT_TRUE(all_ranks(halo->input_count() == grown_count(li.box, kIn) &&
                        halo->output_count() == grown_count(lo.box, kOut)));
  // The layout finds the box's cells where this test puts them.
  Shape last = li.box.hi;
  for (auto& v : last) --v;
  EXPECT_TRUE(all_ranks(li.box.empty() || halo->input_layout().offset_of(last) ==
                                              grown_offset(li.box, li.order, kIn, last)));
  // The first and last FFTs read and write the halo'd arrays: no reshape, no copy.
  const std::string path = halo->describe();
  EXPECT_EQ(path.find("reshape"), std::string::npos) << path;
  EXPECT_NE(path.find("strided (no copy)"), std::string::npos) << path;
  // The box constructor with the same layouts (dfft::with_halo) makes the same path.
  auto boxed = make_plan<T>(kShape, dfft::with_halo(li, widths(kIn)), dfft::with_halo(lo, widths(kOut)), o);
  if (boxed) {
    EXPECT_EQ(boxed->describe(), path);
  }

  const int seed = 3;
  const auto x = make_local<In>(li, kShape, seed);
  DevArray<In> xd(x);
  DevArray<C> yd(static_cast<std::size_t>(alloc_elems(lo)));
  dense->forward(xd.get(), yd.get());
  const auto xh = embed(li, kIn, x);
  DevArray<In> xhd(xh);
  DevArray<C> yhd(std::vector<C>(static_cast<std::size_t>(grown_count(lo.box, kOut)), sentinel<C>()));
  halo->forward(xhd.get(), yhd.get());
  const auto y = yd.host(), yh = yhd.host();
  const bool r2c = c.tr == Transform::r2c;
  Shape spec = kShape;
  if (r2c) spec.back() = spec.back() / 2 + 1;
  EXPECT_LE(rel_max(gather_padded(lo, spec, extract(lo, kOut, yh).data()),
                    serial_forward(kShape, global_signal(kShape, seed, r2c), r2c)),
            ref_tol<T>())
      << "against serial FFTW\n" << path;
  EXPECT_LE(local_rel(extract(lo, kOut, yh), y), tol) << path;
  EXPECT_TRUE(all_ranks(halo_untouched(lo, kOut, yh))) << "forward wrote a halo cell of its output";
  EXPECT_TRUE(all_ranks(same_bits(xhd.host(), xh))) << "forward changed its input";

  DevArray<In> bd(static_cast<std::size_t>(alloc_elems(li)));
  dense->inverse(yd.get(), bd.get());
  DevArray<In> bhd(std::vector<In>(xh.size(), sentinel<In>()));
  halo->inverse(yhd.get(), bhd.get());
  const auto bh = bhd.host();
  EXPECT_LE(local_rel(extract(li, kIn, bh), bd.host()), tol) << path;
  EXPECT_LE(local_rel(extract(li, kIn, bh), x), tol) << "round trip";
  EXPECT_TRUE(all_ranks(halo_untouched(li, kIn, bh))) << "inverse wrote a halo cell of its output";
  EXPECT_TRUE(all_ranks(halo_untouched(lo, kOut, yhd.host()))) << "inverse wrote a halo cell of its input";
}

class HaloArrays : public ::testing::TestWithParam<StridedCase> {};

TEST_P(HaloArrays, MatchSerialFftwAndKeepHalo) {
  const auto& c = GetParam();
  const bool r2c = c.tr == Transform::r2c;
  if (c.dbl) {
    if (r2c) run_case<double, double>(c);
    else run_case<double, std::complex<double>>(c);
  } else {
    if (r2c) run_case<float, float>(c);
    else run_case<float, std::complex<float>>(c);
  }
}

std::vector<StridedCase> cases() {
  std::vector<StridedCase> v;
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil})
    for (auto tr : {Transform::r2c, Transform::c2c})
      for (bool dbl : {true, false}) v.push_back({dec, tr, dbl});
  v.push_back({Decomposition::pencil, Transform::c2c, true, 2});
  v.push_back({Decomposition::slab_2d1d, Transform::r2c, false, 2});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Features, HaloArrays, ::testing::ValuesIn(cases()), case_name);

// Random user boxes (empty boxes, shuffled memory orders) with halos: the reshapes to and from
// the decomposition read and write the halo'd arrays; against serial FFTW and the input, and
// besides against the same boxes dense.
TEST(HaloArrays, UserBoxesThroughReshapes) {
  if (on_cuda()) GTEST_SKIP() << "offsets are a CPU backend option (refusal checked above)";
  for (auto tr : {Transform::r2c, Transform::c2c}) {
    SCOPED_TRACE(to_string(tr));
    std::mt19937 g(7 + static_cast<unsigned>(tr));
    Shape spec = kShape;
    if (tr == Transform::r2c) spec.back() = spec.back() / 2 + 1;
    const int r = world_rank();
    auto strip = [](Layout l) { return Layout{l.box, l.order, {}, {}}; };
    const Layout ui = strip(random_layouts(kShape, g, true)[r]), uo = strip(random_layouts(spec, g, true)[r]);
    auto o = backend_options();
    o.decomposition = Decomposition::pencil;
    o.transform = tr;
    o.effort = dfft::Effort::estimate;
    auto dense = make_plan<double>(kShape, ui, uo, o);
    auto halo = make_plan<double>(kShape, dfft::with_halo(ui, widths(kIn)), dfft::with_halo(uo, widths(kOut)), o);
    if (!dense || !halo) return;
    const bool real = tr == Transform::r2c;
    auto go = [&](auto in_tag) {
      using In = decltype(in_tag);
      using C = std::complex<double>;
      const auto x = make_local<In>(ui, kShape, 5);
      DevArray<In> xd(x);
      DevArray<C> yd(static_cast<std::size_t>(alloc_elems(uo)));
      dense->forward(xd.get(), yd.get());
      DevArray<In> xhd(embed(ui, kIn, x));
      DevArray<C> yhd(std::vector<C>(static_cast<std::size_t>(grown_count(uo.box, kOut)), sentinel<C>()));
      halo->forward(xhd.get(), yhd.get());
      const auto yh = yhd.host();
      EXPECT_LE(rel_max(gather_padded(uo, spec, extract(uo, kOut, yh).data()),
                        serial_forward(kShape, global_signal(kShape, 5, real), real)),
                ref_tol<double>())
          << "against serial FFTW";
      EXPECT_LE(local_rel(extract(uo, kOut, yh), yd.host()), 1e-12);
      EXPECT_TRUE(all_ranks(halo_untouched(uo, kOut, yh)));
      DevArray<In> bhd(std::vector<In>(static_cast<std::size_t>(grown_count(ui.box, kIn)), sentinel<In>()));
      halo->inverse(yhd.get(), bhd.get());
      const auto bh = bhd.host();
      EXPECT_LE(local_rel(extract(ui, kIn, bh), x), 1e-12);
      EXPECT_TRUE(all_ranks(halo_untouched(ui, kIn, bh)));
    };
    if (real) go(double{});
    else go(std::complex<double>{});
  }
}

// Reshape between halo'd arrays moves exactly the boxes and leaves every halo cell alone.
template <class V>
void reshape_halo(unsigned seed) {
  std::mt19937 g(seed);
  const int r = world_rank();
  auto strip = [](Layout l) { return Layout{l.box, l.order, {}, {}}; };
  const Layout A = strip(random_layouts(kShape, g, true)[r]), B = strip(random_layouts(kShape, g, true)[r]);
  std::unique_ptr<dfft::Reshape<V>> ab;
  const Outcome made = run_collective([&] {
    ab = std::make_unique<dfft::Reshape<V>>(MPI_COMM_WORLD, dfft::with_halo(A, widths(kIn)),
                                            dfft::with_halo(B, widths(kOut)), dfft::Method::a2a_type,
                                            (std::int64_t{1} << 31) - 4096, backend(), test_device());
  });
  if (on_cuda()) {
    EXPECT_EQ(made.ranks_with_error, world_size()) << "the CUDA backend must refuse offsets";
    return;
  }
  ASSERT_EQ(made.ranks_with_error, 0) << made.what;
  const auto a = embed(A, kIn, make_local<V>(A, kShape, 2));
  DevArray<V> ad(a);
  DevArray<V> bd(std::vector<V>(static_cast<std::size_t>(grown_count(B.box, kOut)), sentinel<V>()));
  ab->execute(ad.get(), bd.get());
  const auto b = bd.host();
  EXPECT_TRUE(all_ranks(same_bits(extract(B, kOut, b), make_local<V>(B, kShape, 2)))) << "misplaced elements";
  EXPECT_TRUE(all_ranks(halo_untouched(B, kOut, b))) << "wrote a halo cell";
  EXPECT_TRUE(all_ranks(same_bits(ad.host(), a))) << "changed its input";
}

TEST(HaloArrays, Reshape) {
  reshape_halo<double>(11);
  reshape_halo<std::complex<float>>(12);
}

// Widths and layouts that do not fit are refused at plan time, on every rank, naming the axis.
TEST(HaloArrays, RefusesBadWidthsAndLayouts) {
  if (on_cuda()) GTEST_SKIP() << "halos are a CPU backend option (the refusal is checked above)";
  auto o = backend_options();
  o.decomposition = Decomposition::pencil;
  o.effort = dfft::Effort::estimate;
  const auto invalid = dfft::Status::invalid_argument;
  auto plan_with = [&](const dfft::Options& opt) { dfft::Plan<double> p(MPI_COMM_WORLD, kShape, opt); };
  auto bad = o;
  bad.input_halo = {{1, 1}, {}};
  expect_refusal([&] { plan_with(bad); }, "give 3 entries", invalid);
  bad = o;
  bad.output_halo = {{1, 1, 1}, {0, -1, 0}};
  expect_refusal([&] { plan_with(bad); }, "axis 1 has a negative width", invalid);
  if (world_size() > 1) {
    bad = o;
    bad.input_halo = {{world_rank() == 0 ? 1 : 2, 1, 1}, {}};
    expect_refusal([&] { plan_with(bad); }, "ranks disagree", invalid);
  }
  bad = o;
  bad.input_halo = {{1, 1, 1}, {}};
  bad.in_place = true;
  expect_refusal([&] { plan_with(bad); }, "in_place", invalid);

  // Box API: an allocated extent too small for offset + box, a negative offset, and Options
  // widths given together with the box constructor.
  dfft::Plan<double> dense(MPI_COMM_WORLD, kShape, o);
  Layout in = dense.input_layout(), out = dense.output_layout();
  Layout tight = dfft::with_halo(in, {{0, 0, 2}, {0, 0, 0}});
  tight.padded[2] -= 1;
  expect_refusal([&] { dfft::Plan<double> p(MPI_COMM_WORLD, kShape, tight, out, o); }, "axis 2", invalid);
  Layout negative = in;
  negative.offset = {0, -1, 0};
  expect_refusal([&] { dfft::Plan<double> p(MPI_COMM_WORLD, kShape, negative, out, o); }, "axis 1", invalid);
  auto both = o;
  both.input_halo = {{1, 1, 1}, {}};
  expect_refusal([&] { dfft::Plan<double> p(MPI_COMM_WORLD, kShape, in, out, both); }, "box constructor", invalid);
  // Reshape: the same check.
  expect_refusal([&] { dfft::Reshape<double> x(MPI_COMM_WORLD, tight, in); }, "axis 2", invalid);
}

}  // namespace strided
}  // namespace
}  // namespace dfft_test
