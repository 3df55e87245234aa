// SPDX-License-Identifier: MIT
// The same planner on other dimensions: 2-D transforms (slabs, and pencils on a 1-D grid) and
// 4-D transforms on 3-D process grids (as in the Dalcin slides), plus 4-D on 1-D/2-D grids.
#include <algorithm>

#include "support/sweep.hpp"

namespace dfft_test {
namespace {

std::vector<Case> two_d() {
  std::vector<Case> cases;
  const int n = world_size();
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil})
    for (auto var : {Variant::Default, Variant::Realigned})
      for (auto m : kCpuMethods)
        for (bool dbl : {true, false})
          for (auto tr : {Transform::r2c, Transform::c2c})
            cases.push_back({dec, var, {m}, {n}, dbl, tr, {17, 12}});
  return cases;
}

// 4-D: every 3-D grid whose product is the rank count, both variants, the four methods spread
// over the grids (each method meets every grid shape across the two sizes).
std::vector<Case> four_d() {
  std::vector<Case> cases;
  const int n = world_size();
  const std::vector<Shape> shapes{{6, 5, 7, 8}, {8, 7, 9, 10}};
  std::size_t k = 0;
  for (const auto& grid : grids_of(n, 3))
    for (auto var : {Variant::Default, Variant::Realigned})
      for (bool dbl : {true, false})
        for (auto tr : {Transform::r2c, Transform::c2c})
          for (const auto& shape : shapes) {
            std::vector<Method> ms{kCpuMethods[k++ % kCpuMethods.size()]};
            if (k % 3 == 0) ms = {Method::p2p_type, Method::a2a_sync, Method::a2a_type};
            cases.push_back({Decomposition::pencil, var, ms, grid, dbl, tr, shape});
          }
  // Other grids of the same 4-D array: 2-D pencil grids and both slabs.
  for (const auto& grid : grids_of(n, 2))
    for (auto tr : {Transform::r2c, Transform::c2c})
      cases.push_back({Decomposition::pencil, Variant::Realigned, {Method::a2a_type}, grid, true, tr,
                       {8, 7, 9, 10}});
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d})
    for (auto var : {Variant::Default, Variant::Realigned})
      for (auto m : kCpuMethods)
        cases.push_back({dec, var, {m}, {n}, true, Transform::r2c, {8, 7, 9, 10}});
  return cases;
}

// A 3-D pencil on a 1-D grid (allowed: up to d-1 grid dimensions) is slab-2d1d by another name.
std::vector<Case> pencil_on_line() {
  std::vector<Case> cases;
  for (auto var : {Variant::Default, Variant::Realigned})
    for (auto m : kCpuMethods)
      for (auto tr : {Transform::r2c, Transform::c2c})
        cases.push_back({Decomposition::pencil, var, {m}, {world_size()}, true, tr, {17, 12, 10}});
  return cases;
}

class TwoD : public ::testing::TestWithParam<Case> {};
class PencilOnLine : public ::testing::TestWithParam<Case> {};
TEST_P(PencilOnLine, MatchesReference) { run_case(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Dims, PencilOnLine, ::testing::ValuesIn(pencil_on_line()), case_name_of);

class FourD : public ::testing::TestWithParam<Case> {};

TEST_P(TwoD, MatchesReference) { run_case(GetParam()); }
TEST_P(FourD, MatchesReference) { run_case(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Dims, TwoD, ::testing::ValuesIn(two_d()), case_name_of);
INSTANTIATE_TEST_SUITE_P(Dims, FourD, ::testing::ValuesIn(four_d()), case_name_of);

// A 4-D pencil plan has one exchange per grid dimension of more than one rank (one of a single
// rank moves nothing and is merged away) and walks the split from axes 0..g-1 (input) to axes
// 1..g (output).
TEST(FourDPath, ExchangesPerGridDimension) {
  const int n = world_size();
  for (const auto& grid : grids_of(n, 3)) {
    dfft::Options o;
    o.decomposition = Decomposition::pencil;
    o.grid = grid;
    dfft::Plan<double> plan(MPI_COMM_WORLD, {6, 5, 7, 8}, o);
    const auto moving = std::count_if(grid.begin(), grid.end(), [](int g) { return g > 1; });
    EXPECT_EQ(plan.exchange_bytes().size(), static_cast<std::size_t>(moving));
    std::int64_t sent = 0;
    for (auto b : plan.exchange_bytes()) sent += b;
    // With one rank nothing leaves the process; with more, something must.
    std::int64_t total = sent;
    MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (n == 1) EXPECT_EQ(total, 0);
    else EXPECT_GT(total, 0);
  }
}

}  // namespace
}  // namespace dfft_test
