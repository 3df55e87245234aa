// SPDX-License-Identifier: MIT
// The main correctness sweep: every decomposition x variant x method x precision x transform,
// on sizes that do not divide the rank count, on every grid that factors the number of ranks, for
// the backend under test (support/backend.hpp); on cuda also 128^3, r2c for every method and c2c
// for the device-direct ones; the transposed output order (Options::transposed_out); the
// first FFT of a direction copied into the workspace and run in place, or run out of place; and
// the ortho and forward normalisations.
#include "support/sweep.hpp"

namespace dfft_test {
namespace {

// Odd and uneven sizes; beyond 4 ranks (a 16-core machine, not CI) sizes that scale with the
// rank count P so that every slab axis keeps a plane per rank (r2c's halved axis too).
std::vector<Shape> shapes() {
  const std::int64_t P = world_size();
  if (P <= 4) return {{17, 12, 10}, {12, 10, 9}, {15, 15, 15}};
  return {{2 * P + 1, 2 * P, 2 * P - 1}, {P + 3, P + 1, 2 * P + 1}};
}
const Shape kLarge{128, 128, 128};

bool device_direct(const std::vector<Method>& ms) {
  return ms.size() == 1 &&
         (ms[0] == Method::nccl || ms[0] == Method::p2p_streams || ms[0] == Method::p2p_pipelined);
}

/// The node-aware methods on emulated nodes of one rank each (every message crosses nodes);
/// per-peer on nodes of two ranks where the ranks make several such nodes, so that both its
/// transports run. On the cpu backend they have their own suite (nodes_test.cpp).
std::vector<int> nodes_for(const std::vector<Method>& ms) {
  for (auto m : ms)
    if (m == Method::per_peer) return {world_size() % 2 == 0 && world_size() >= 4 ? 2 : 1};
  for (auto m : ms)
    if (m == Method::node_ring || m == Method::hierarchical) return {1};
  return {};
}

std::vector<Case> sweep(std::vector<Decomposition> decs) {
  std::vector<Case> cases;
  const int n = world_size();
  for (auto dec : decs) {
    auto grids = dec == Decomposition::pencil ? grids_of(n, 2) : grids_of(n, 1);
    for (const auto& grid : grids)
      for (auto var : {Variant::Default, Variant::Realigned})
        for (const auto& ms : method_sets(dec))
          for (bool dbl : {true, false})
            for (auto tr : {Transform::r2c, Transform::c2c}) {
              for (const auto& shape : shapes())
                cases.push_back({dec, var, ms, grid, dbl, tr, shape, nodes_for(ms)});
              if (on_cuda() && (tr == Transform::r2c || device_direct(ms)))
                cases.push_back({dec, var, ms, grid, dbl, tr, kLarge, nodes_for(ms)});
            }
  }
  return cases;
}

// Options::transposed_out: every decomposition, grid, variant and single method, both
// transforms, in double on the first size (the layouts do not depend on the precision).
std::vector<Case> transposed(std::vector<Decomposition> decs) {
  std::vector<Case> cases;
  for (Case c : sweep(decs))
    if (c.methods.size() == 1 && c.dbl && c.shape == shapes().front()) {
      c.transposed_out = true;
      cases.push_back(c);
    }
  return cases;
}

// The first FFT of a direction that reads the caller's array, copied into the workspace and run
// in place (what timing picks on large arrays) and out of place, both forced: every
// decomposition and grid, both transforms, default variant, double, first size, with one
// packing and one datatype method (the first step comes before any exchange; the exchange
// writing the output array before an in-place last FFT runs with every method in the sweep).
std::vector<Case> copy_first(std::vector<Decomposition> decs) {
  std::vector<Case> cases;
  const std::vector<Method> packing{Method::a2a_sync}, datatype{Method::p2p_type};
  for (Case c : sweep(decs))
    if ((c.methods == packing || c.methods == datatype) && c.dbl && c.shape == shapes().front() &&
        c.var == Variant::Default)
      for (int k : {0, 1}) {
        c.copy_first = k;
        cases.push_back(c);
      }
  return cases;
}

// The normalisations other than the default (backward): every decomposition and grid, both
// transforms and precisions, one packing method, first size. The reference check sees the
// forward's factor and the round trip the inverse's, wherever the plan applies it (a separate
// pass, or folded into a copy of the spectrum on GPUs).
std::vector<Case> norms(std::vector<Decomposition> decs) {
  std::vector<Case> cases;
  for (Case c : sweep(decs))
    if (c.methods == std::vector<Method>{Method::a2a_sync} && c.shape == shapes().front() && c.var == Variant::Default)
      for (auto norm : {dfft::Norm::ortho, dfft::Norm::forward}) {
        c.norm = norm;
        cases.push_back(c);
      }
  return cases;
}

class SlabSweep : public ::testing::TestWithParam<Case> {};
class PencilSweep : public ::testing::TestWithParam<Case> {};

TEST_P(SlabSweep, MatchesReference) {
  run_case(GetParam());
}
TEST_P(PencilSweep, MatchesReference) {
  run_case(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Slab2d1d, SlabSweep, ::testing::ValuesIn(sweep({Decomposition::slab_2d1d})),
                         case_name_of);
INSTANTIATE_TEST_SUITE_P(Slab1d2d, SlabSweep, ::testing::ValuesIn(sweep({Decomposition::slab_1d2d})),
                         case_name_of);
INSTANTIATE_TEST_SUITE_P(Pencil, PencilSweep, ::testing::ValuesIn(sweep({Decomposition::pencil})),
                         case_name_of);
INSTANTIATE_TEST_SUITE_P(TransposedOut, SlabSweep,
                         ::testing::ValuesIn(transposed({Decomposition::slab_2d1d, Decomposition::slab_1d2d})),
                         case_name_of);
INSTANTIATE_TEST_SUITE_P(TransposedOut, PencilSweep, ::testing::ValuesIn(transposed({Decomposition::pencil})),
                         case_name_of);
INSTANTIATE_TEST_SUITE_P(CopyFirst, SlabSweep,
                         ::testing::ValuesIn(copy_first({Decomposition::slab_2d1d, Decomposition::slab_1d2d})),
                         case_name_of);
INSTANTIATE_TEST_SUITE_P(CopyFirst, PencilSweep, ::testing::ValuesIn(copy_first({Decomposition::pencil})),
                         case_name_of);
INSTANTIATE_TEST_SUITE_P(Norms, SlabSweep, ::testing::ValuesIn(norms({Decomposition::slab_2d1d, Decomposition::slab_1d2d})),
                         case_name_of);
INSTANTIATE_TEST_SUITE_P(Norms, PencilSweep, ::testing::ValuesIn(norms({Decomposition::pencil})), case_name_of);

}  // namespace
}  // namespace dfft_test
