// SPDX-License-Identifier: MIT
// The parametrised transform case shared by the sweep and the 2-D/4-D tests: build a plan,
// check its distribution against the thesis (partition code written here), then run the three
// built-in validations with the bounds of test_util.hpp (ref_tol, lap_tol), on the backend under
// test (support/backend.hpp).
#pragma once

#include <cmath>
#include <cstring>
#include <sstream>

#include "dfft/validate.hpp"
#include "exec/plan_impl.hpp"
#include "support/backend.hpp"
#include "support/test_util.hpp"

namespace dfft_test {

using dfft::Decomposition;
using dfft::Method;
using dfft::Transform;
using dfft::Variant;

struct Case {
  Decomposition dec;
  Variant var;
  std::vector<Method> methods;
  std::vector<int> grid;
  bool dbl;
  Transform tr;
  Shape shape;
  std::vector<int> nodes = {};  // Options::ranks_per_node (emulated nodes); empty: detected
  bool transposed_out = false;  // Options::transposed_out
  /// First FFT of a direction on the caller's array: -1 as planned, 0 out of place, 1 copied
  /// into the workspace and transformed in place (detail::first_step_copy_choice).
  int copy_first = -1;
  /// Options::norm (the inverse's normalisation may be folded into work that reads the data).
  dfft::Norm norm = dfft::Norm::backward;
};

inline std::string case_name(const Case& c) {
  std::ostringstream s;
  auto clean = [](std::string x) {
    for (auto& ch : x)
      if (ch == '-') ch = '_';
    return x;
  };
  s << clean(to_string(c.dec)) << "_" << to_string(c.var);
  for (auto m : c.methods) s << "_" << clean(to_string(m));
  s << "_g";
  for (std::size_t i = 0; i < c.grid.size(); ++i) s << (i ? "x" : "") << c.grid[i];
  s << "_" << (c.dbl ? "double" : "float") << "_" << to_string(c.tr) << "_";
  for (std::size_t i = 0; i < c.shape.size(); ++i) s << (i ? "x" : "") << c.shape[i];
  if (!c.nodes.empty()) s << "_nodes";
  for (std::size_t i = 0; i < c.nodes.size(); ++i) s << (i ? "_" : "") << c.nodes[i];
  if (c.transposed_out) s << "_transposed_out";
  if (c.copy_first >= 0) s << "_copy_first" << c.copy_first;
  if (c.norm != dfft::Norm::backward) s << "_norm_" << to_string(c.norm);
  return s.str();
}

/// Every redistribution method of the CPU backend.
inline const std::vector<Method> kCpuMethods{Method::a2a_sync, Method::a2a_type, Method::p2p_sync,
                                             Method::p2p_type, Method::onesided,
                                             Method::p2p_pipelined};

/// Every ordered factorisation of n into `dims` positive factors.
inline std::vector<std::vector<int>> grids_of(int n, int dims) {
  if (dims == 1) return {{n}};
  std::vector<std::vector<int>> out;
  for (int f = 1; f <= n; ++f)
    if (n % f == 0)
      for (auto rest : grids_of(n / f, dims - 1)) {
        rest.insert(rest.begin(), f);
        out.push_back(rest);
      }
  return out;
}

/// The redistribution methods of the CUDA backend the sweep covers (MPI ones staged through the
/// host or CUDA-aware, and the device-only ones).
inline const std::vector<Method> kCudaMethods{Method::a2a_sync,    Method::a2a_type,
                                              Method::p2p_sync,    Method::p2p_type,
                                              Method::p2p_streams, Method::nccl,
                                              Method::cuda_ipc,    Method::p2p_pipelined,
                                              Method::node_ring,   Method::hierarchical,
                                              Method::per_peer};

/// Every method of the backend under test alone, and (pencils) mixed, one per exchange.
inline std::vector<std::vector<Method>> method_sets(Decomposition dec) {
  std::vector<std::vector<Method>> sets;
  for (auto m : on_cuda() ? kCudaMethods : kCpuMethods) sets.push_back({m});
  // per-peer runs two transports in one exchange, each on its own communicator: the cpu sweep
  // runs it too (on nodes of two ranks, sweep_test.cpp), every decomposition and grid.
  if (!on_cuda()) sets.push_back({Method::per_peer});
  if (dec != Decomposition::pencil) return sets;
  if (on_cuda()) {
    sets.push_back({Method::nccl, Method::p2p_streams});
    sets.push_back({Method::a2a_type, Method::nccl});
  } else {
    sets.push_back({Method::a2a_type, Method::p2p_sync});
    sets.push_back({Method::p2p_type, Method::a2a_sync});
    sets.push_back({Method::onesided, Method::a2a_type});
    sets.push_back({Method::p2p_pipelined, Method::p2p_type});
  }
  return sets;
}

/// The boxes the thesis prescribes for this rank: slabs split x on input and y (2d1d) or the
/// (halved) z axis (1d2d) on output; pencils split x,y on input and y,z on output.
inline void expect_thesis_distribution(const Case& c, const dfft::Layout& in, const dfft::Layout& out) {
  const int d = static_cast<int>(c.shape.size()), r = world_rank();
  Shape spec = c.shape;
  if (c.tr == Transform::r2c) spec.back() = spec.back() / 2 + 1;
  dfft::Box want_in{Shape(d, 0), c.shape}, want_out{Shape(d, 0), spec};
  // Row-major grid coordinates (last grid dimension fastest).
  std::vector<int> coords(c.grid.size());
  for (int g = static_cast<int>(c.grid.size()) - 1, rest = r; g >= 0; --g) {
    coords[g] = rest % c.grid[g];
    rest /= c.grid[g];
  }
  for (std::size_t g = 0; g < c.grid.size(); ++g) {
    const int in_axis = static_cast<int>(g);
    int out_axis = static_cast<int>(g) + 1;
    if (c.dec == Decomposition::slab_1d2d) out_axis = d - 1;
    auto pi = part(c.shape[in_axis], c.grid[g], coords[g]);
    auto po = part(spec[out_axis], c.grid[g], coords[g]);
    want_in.lo[in_axis] = pi.lo;
    want_in.hi[in_axis] = pi.hi;
    want_out.lo[out_axis] = po.lo;
    want_out.hi[out_axis] = po.hi;
  }
  std::vector<int> natural(d);
  for (int a = 0; a < d; ++a) natural[a] = a;
  // Transposed output (3-D): the last stage of slab-2d1d and pencil transforms x, which then sits
  // between y (slowest) and z; slab-1d2d's last stage transforms x and y, already before z.
  std::vector<int> want_order = natural;
  if (c.transposed_out && d == 3 && c.dec != Decomposition::slab_1d2d) want_order = {1, 0, 2};
  EXPECT_TRUE(all_ranks(in.box == want_in)) << "input box differs from the thesis distribution";
  EXPECT_TRUE(all_ranks(out.box == want_out)) << "output box differs from the thesis distribution";
  EXPECT_TRUE(all_ranks(in.order == natural && out.order == want_order));
}

/// The plan options a case describes.
inline dfft::Options options_of(const Case& c) {
  dfft::Options o = backend_options();
  o.effort = dfft::Effort::estimate;  // many plans: FFTW_MEASURE would dominate the run
  o.decomposition = c.dec;
  o.variant = c.var;
  o.methods = c.methods;
  o.grid = c.grid;
  o.transform = c.tr;
  o.ranks_per_node = c.nodes;
  o.transposed_out = c.transposed_out;
  o.norm = c.norm;
  return o;
}

/// Sets how plans made in its lifetime run a direction's first FFT (Case::copy_first).
class FirstStepChoice {
 public:
  explicit FirstStepChoice(int c) : saved_(dfft::detail::first_step_copy_choice()) {
    dfft::detail::first_step_copy_choice() = c;
  }
  ~FirstStepChoice() { dfft::detail::first_step_copy_choice() = saved_; }
  FirstStepChoice(const FirstStepChoice&) = delete;
  FirstStepChoice& operator=(const FirstStepChoice&) = delete;

 private:
  int saved_;
};

/// The inverse leaves its input as it was (the copied first step transforms a copy).
template <class T>
void expect_input_kept(dfft::Plan<T>& plan, const Case& c) {
  using C = std::complex<T>;
  std::vector<C> spec_h(static_cast<std::size_t>(plan.output_count()));
  for (std::size_t i = 0; i < spec_h.size(); ++i)
    spec_h[i] = C(static_cast<T>(std::sin(0.37 * static_cast<double>(i))), static_cast<T>(0.5));
  DevArray<C> spec(spec_h);
  if (c.tr == Transform::r2c) {
    DevArray<T> real(static_cast<std::size_t>(plan.input_count()));
    plan.inverse(spec.get(), real.get());
  } else {
    DevArray<C> back(static_cast<std::size_t>(plan.input_count()));
    plan.inverse(spec.get(), back.get());
  }
  const auto after = spec.host();
  EXPECT_TRUE(all_ranks(std::memcmp(after.data(), spec_h.data(), spec_h.size() * sizeof(C)) == 0))
      << "the inverse changed its input\n" << plan.describe();
}

template <class T>
void run_typed_case(const Case& c) {
  const FirstStepChoice choice(c.copy_first);
  // NCCL refuses (on every rank) ranks that share a GPU: make_plan then skips the test.
  const auto made = make_plan<T>(c.shape, options_of(c));
  if (!made) return;
  dfft::Plan<T>& plan = *made;
  EXPECT_EQ(plan.grid(), c.grid);
  if (on_cuda()) {
    EXPECT_GE(plan.device(), 0);
  }
  expect_thesis_distribution(c, plan.input_layout(), plan.output_layout());
  if (c.copy_first == 1 && !on_cuda()) {
    // Forced: a direction whose first step is a c2c FFT on the caller's array, followed by an
    // exchange, copies it; the inverse of slab-2d1d and pencil starts so on more than one rank.
    const std::string path = plan.describe();
    // "inverse executed out of place: ..." where the plan may also run it in place (c2c).
    const bool copies = path.find("inverse: the first FFT copies the input") != std::string::npos ||
                        path.find("inverse executed out of place: the first FFT copies the input") != std::string::npos;
    if (c.dec != Decomposition::slab_1d2d) {
      EXPECT_TRUE(all_ranks(copies == (world_size() > 1))) << path;
    }
  }
  if (c.copy_first >= 0) expect_input_kept(plan, c);

  const double ref = max_over_ranks(dfft::validate::reference_error(plan, MPI_COMM_WORLD));
  const double rt = max_over_ranks(dfft::validate::roundtrip_error(plan, MPI_COMM_WORLD));
  const double lap_local = dfft::validate::laplacian_error(plan, MPI_COMM_WORLD);
  EXPECT_LE(ref, ref_tol<T>()) << "reference error\n" << plan.describe();
  EXPECT_LE(rt, ref_tol<T>()) << "round-trip error\n" << plan.describe();
  bool lap_runs = true;  // the Laplacian check needs 7+ points per axis (modes below Nyquist)
  for (auto n : c.shape) lap_runs &= n >= 7;
  if (lap_runs)
    EXPECT_LE(max_over_ranks(lap_local), lap_tol<T>()) << "Laplacian error\n" << plan.describe();
  else
    EXPECT_TRUE(all_ranks(std::isnan(lap_local))) << "Laplacian should report not_run";

  // One timing record per path step; exchange stages carry their method, in path order. An
  // exchange over a grid dimension of one rank moves nothing: the planner merges it away.
  // Exchange j of the decomposition (methods[j]) runs over grid dimension g-1-j.
  using C = std::complex<T>;
  DevArray<C> out(static_cast<std::size_t>(plan.output_count()));
  if (c.tr == Transform::r2c) {
    DevArray<T> in(static_cast<std::size_t>(plan.input_count()));
    plan.forward(in.get(), out.get());
  } else {
    DevArray<C> in(static_cast<std::size_t>(plan.input_count()));
    plan.forward(in.get(), out.get());
  }
  // On the CPU a transposed output whose last exchange moves nothing (grid dimension 0 of one
  // rank) keeps that exchange: the last FFT reorders (src/plan/path.cpp). Not slab-1d2d, whose
  // transposed output is its natural order.
  std::vector<std::size_t> moving;  // the decomposition's exchanges left in the path
  const std::size_t exchanges = c.dec == Decomposition::pencil ? c.grid.size() : 1;
  for (std::size_t j = 0; j < exchanges; ++j)
    if (c.grid[c.grid.size() - 1 - j] > 1 || (j + 1 == exchanges && c.transposed_out && !on_cuda() && c.dec != Decomposition::slab_1d2d))
      moving.push_back(j);
  ASSERT_EQ(plan.timings().size(), 2 * moving.size() + 1);
  for (std::size_t i = 0; i < plan.timings().size(); ++i) {
    const auto& t = plan.timings()[i];
    EXPECT_GE(t.total(), 0.0) << t.name;
    if (i % 2 == 1) {
      const Method m = c.methods.size() == 1 ? c.methods[0] : c.methods[moving[i / 2]];
      EXPECT_THAT(t.name, ::testing::HasSubstr(to_string(m)));
    }
  }
}

/// gtest prints a failing parameter with this (instead of its bytes).
inline void PrintTo(const Case& c, std::ostream* os) { *os << case_name(c); }

inline std::string case_name_of(const ::testing::TestParamInfo<Case>& i) { return case_name(i.param); }

inline void run_case(const Case& c) {
  if (c.dbl) run_typed_case<double>(c);
  else run_typed_case<float>(c);
}

}  // namespace dfft_test
