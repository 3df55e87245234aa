// SPDX-License-Identifier: MIT
// Box API: plans made from random per-rank input/output boxes (empty boxes, shuffled memory
// orders, padding) against serial FFTW of the gathered array; boxes equal to the decomposition's
// add no reshape. Every backend (support/backend.hpp); on cuda the arrays live in GPU memory.
#include <sstream>

#include "features/feature_util.hpp"

namespace dfft_test {
namespace {

using dfft::Decomposition;
using dfft::Transform;

struct BoxCase {
  Decomposition dec;
  Transform tr;
  bool dbl;
  Shape shape;
  int seed;
  dfft::Method cuda_method;  // the cpu backend draws a2a-sync or p2p-type from the seed
};

std::string box_name(const ::testing::TestParamInfo<BoxCase>& i) {
  const auto& c = i.param;
  std::ostringstream o;
  o << to_string(c.dec) << "_" << to_string(c.tr) << (c.dbl ? "_double_" : "_float_");
  for (std::size_t a = 0; a < c.shape.size(); ++a) o << (a ? "x" : "") << c.shape[a];
  o << "_seed" << c.seed;
  std::string s = o.str();
  for (auto& ch : s)
    if (ch == '-') ch = '_';
  return s;
}

// gtest prints the parameter with its test name instead of a byte dump.
void PrintTo(const BoxCase& c, std::ostream* os) {
  *os << box_name(::testing::TestParamInfo<BoxCase>(c, 0));
}

template <class T>
double tol() {
  return 10 * ref_tol<T>();
}

template <class T, class In>
void run_boxes(const BoxCase& c) {
  using C = std::complex<T>;
  const bool r2c = c.tr == Transform::r2c;
  Shape spec = c.shape;
  if (r2c) spec.back() = spec.back() / 2 + 1;
  std::mt19937 g(
      static_cast<unsigned>(1000 * c.seed + 17 * static_cast<int>(c.dec) + c.shape.size()));
  const auto uin = random_layouts(c.shape, g, true);
  const auto uout = random_layouts(spec, g, true);
  const int r = world_rank();

  auto o = backend_options();
  o.decomposition = c.dec;
  o.transform = c.tr;
  const dfft::Method drawn = g() % 2 ? dfft::Method::a2a_sync : dfft::Method::p2p_type;
  o.methods = {on_cuda() ? c.cuda_method : drawn};
  auto plan = make_plan<T>(c.shape, uin[r], uout[r], o);
  if (!plan) return;
  EXPECT_TRUE(all_ranks(plan->input_box() == uin[r].box && plan->output_box() == uout[r].box &&
                        plan->input_layout().order == uin[r].order &&
                        plan->output_layout().order == uout[r].order));
  EXPECT_TRUE(all_ranks(plan->input_count() == alloc_elems(uin[r]) &&
                        plan->output_count() == alloc_elems(uout[r])));

  const auto in_h = make_local<In>(uin[r], c.shape, c.seed);  // NaN padding
  DevArray<In> in(in_h);
  DevArray<C> out(std::vector<C>(static_cast<std::size_t>(alloc_elems(uout[r])) + 1, C(std::nan(""))));
  plan->forward(in.get(), out.get());
  const auto out_h = out.host();
  const auto x = global_signal(c.shape, c.seed, r2c);
  const double fwd = max_over_ranks(
      rel_max(gather_padded(uout[r], spec, out_h.data()), serial_forward(c.shape, x, r2c)));
  EXPECT_LE(fwd, tol<T>()) << plan->describe();
  EXPECT_TRUE(all_ranks(std::isnan(out_h.back().real()))) << "wrote past the output array";
  // Out-of-place forward leaves its input alone (padding included).
  EXPECT_TRUE(all_ranks(same_bits(in.host(), in_h))) << "forward changed its input";

  DevArray<In> back(std::vector<In>(in_h.size() + 1, In(std::nan(""))));
  plan->inverse(out.get(), back.get());
  const auto back_h = back.host();
  const double inv = max_over_ranks(rel_max(gather_padded(uin[r], c.shape, back_h.data()), x));
  EXPECT_LE(inv, tol<T>()) << plan->describe();
  EXPECT_TRUE(all_ranks(std::isnan(std::real(back_h.back())))) << "wrote past the input array";
}

class RandomBoxes : public ::testing::TestWithParam<BoxCase> {};

TEST_P(RandomBoxes, MatchSerialFftw) {
  const auto& c = GetParam();
  const bool r2c = c.tr == Transform::r2c;
  if (c.dbl) {
    if (r2c)
      run_boxes<double, double>(c);
    else
      run_boxes<double, std::complex<double>>(c);
  } else {
    if (r2c)
      run_boxes<float, float>(c);
    else
      run_boxes<float, std::complex<float>>(c);
  }
}

std::vector<BoxCase> box_cases() {
  using dfft::Method;
  std::vector<BoxCase> v;
  const Method device_methods[] = {Method::a2a_sync, Method::p2p_streams, Method::a2a_type};
  int k = 0;
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil})
    for (auto tr : {Transform::r2c, Transform::c2c})
      for (bool dbl : {true, false})
        for (int seed : {1, 2}) v.push_back({dec, tr, dbl, {9, 7, 6}, seed, device_methods[k++ % 3]});
  v.push_back({Decomposition::slab_2d1d, Transform::r2c, true, {11, 8}, 3, Method::p2p_sync});
  v.push_back({Decomposition::pencil, Transform::c2c, true, {5, 4, 6, 5}, 4, Method::p2p_type});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Features, RandomBoxes, ::testing::ValuesIn(box_cases()), box_name);

// Boxes equal to the decomposition's own: the path has no reshape and the same steps.
TEST(BoxApi, MatchingBoxesAddNoReshape) {
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::pencil}) {
    auto o = backend_options();
    o.decomposition = dec;
    dfft::Plan<double> plain(MPI_COMM_WORLD, {8, 7, 6}, o);
    dfft::Plan<double> boxed(MPI_COMM_WORLD, {8, 7, 6}, plain.input_layout(), plain.output_layout(),
                             o);
    EXPECT_EQ(boxed.describe(), plain.describe());
    EXPECT_EQ(boxed.describe().find("reshape"), std::string::npos);
    // Only the output's memory order differs. On the CPU the last FFT writes that order itself, no
    // reshape (its output line names the caller's order); the CUDA backend's FFTs write dense
    // arrays in their own order, so a local reshape without messages writes the caller's.
    auto out = plain.output_layout();
    std::reverse(out.order.begin(), out.order.end());
    dfft::Plan<double> tail(MPI_COMM_WORLD, {8, 7, 6}, plain.input_layout(), out, o);
    const auto d = tail.describe();
    std::string order = "order(";
    for (std::size_t a = 0; a < out.order.size(); ++a) order += (a ? "," : "") + std::to_string(out.order[a]);
    if (on_cuda()) {
      const auto at = d.find("reshape");
      ASSERT_NE(at, std::string::npos) << d;
      const std::string line = d.substr(at, d.find('\n', at) - at);
      EXPECT_NE(line.find(order + ") no-pack no-unpack"), std::string::npos) << d;
      EXPECT_EQ(d.find("reshape", at + 1), std::string::npos) << d;
    } else {
      EXPECT_EQ(d.find("reshape"), std::string::npos) << d;
      EXPECT_NE(d.rfind(order + ")\n"), std::string::npos) << d;
    }
    // A box that differs still takes a reshape: every rank's output box moved to rank 0.
    if (world_size() > 1) {
      auto all = plain.output_layout();
      const auto spec = plain.spectral_shape();
      all.box = world_rank() == 0 ? Box{Shape(3, 0), spec} : Box{Shape(3, 0), Shape(3, 0)};
      dfft::Plan<double> gathered(MPI_COMM_WORLD, {8, 7, 6}, plain.input_layout(), all, o);
      EXPECT_NE(gathered.describe().find("reshape"), std::string::npos);
    }
  }
}

// Boxes that do not tile the array are rejected on every rank with a clear message.
TEST(BoxApi, RejectsOverlapAndGaps) {
  const int p = world_size();
  const int r = world_rank();
  Shape shape{6, 5, 4};
  Layout all{Box{Shape{0, 0, 0}, shape}, {0, 1, 2}, {}};
  Layout none{empty_box(3), {0, 1, 2}, {}};
  // Every rank claims the whole array: overlap (with >1 rank) or fine (1 rank).
  const auto o = backend_options();
  if (p > 1)
    expect_error_everywhere([&] { dfft::Plan<double> pl(MPI_COMM_WORLD, shape, all, all, o); },
                            "overlap");
  // Nobody holds anything: gap.
  Layout spec_none{empty_box(3), {0, 1, 2}, {}};
  expect_error_everywhere(
      [&] { dfft::Plan<double> pl(MPI_COMM_WORLD, shape, r == 0 ? all : none, spec_none, o); },
      "cover");
}

// The generator behind these tests really produces the edge cases they claim to cover.
TEST(BoxApi, GeneratorCoversEdgeCases) {
  int empty = 0, shuffled = 0, padded = 0;
  for (int seed = 1; seed <= 20; ++seed) {
    std::mt19937 g(static_cast<unsigned>(seed));
    for (const auto& l : random_layouts({9, 7, 6}, g, true)) {
      empty += l.box.empty();
      shuffled += !std::is_sorted(l.order.begin(), l.order.end());
      padded += !l.padded.empty();
    }
  }
  EXPECT_GT(shuffled, 0);
  EXPECT_GT(padded, 0);
  if (world_size() > 1) {
    EXPECT_GT(empty, 0);
  }
}

}  // namespace
}  // namespace dfft_test
