// SPDX-License-Identifier: MIT
// One test per bad input: plan creation (or the call) must throw dfft::Error on every rank,
// with a message that says what was wrong. Nothing may hang.
#include "support/test_util.hpp"

#ifndef DFFT_TEST_HAS_CUDA
#define DFFT_TEST_HAS_CUDA 0
#endif

namespace dfft_test {
namespace {

using dfft::Decomposition;
using dfft::Method;
using dfft::Options;
using dfft::Transform;

void make_plan(const Shape& shape, const Options& o) { dfft::Plan<double> p(MPI_COMM_WORLD, shape, o); }

Options with_grid(Decomposition dec, std::vector<int> grid) {
  Options o;
  o.decomposition = dec;
  o.grid = std::move(grid);
  return o;
}

TEST(BadInput, GridProductDiffersFromRanks) {
  const int n = world_size();
  expect_error_everywhere([&] { make_plan({17, 12, 10}, with_grid(Decomposition::slab_2d1d, {n + 1})); },
                          "has " + std::to_string(n + 1) + " ranks but the communicator has " +
                              std::to_string(n));
  expect_error_everywhere([&] { make_plan({17, 12, 10}, with_grid(Decomposition::pencil, {n, 2})); },
                          "but the communicator has " + std::to_string(n));
}

TEST(BadInput, GridEntryNotPositive) {
  expect_error_everywhere([] { make_plan({17, 12, 10}, with_grid(Decomposition::pencil, {0, 1})); },
                          "grid entries must be positive");
}

TEST(BadInput, PencilGridWithTooManyDims) {
  const int n = world_size();
  expect_error_everywhere([&] { make_plan({17, 12, 10}, with_grid(Decomposition::pencil, {1, 1, n})); },
                          "a pencil grid of a 3-D array has at most 2 dimensions");
  expect_error_everywhere([&] { make_plan({17, 12}, with_grid(Decomposition::pencil, {n, 1})); },
                          "a pencil grid of a 2-D array has at most 1 dimensions");
}

TEST(BadInput, SlabWithTwoDimensionalGrid) {
  const int n = world_size();
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d})
    expect_error_everywhere([&] { make_plan({17, 12, 10}, with_grid(dec, {n, 1})); },
                            "a slab decomposition takes a 1-D grid");
}

TEST(BadInput, SizeBelowNumberOfParts) {
  const int n = world_size();
  if (n < 2) GTEST_SKIP() << "every size splits over one rank";
  // Input axis x shorter than the number of ranks.
  expect_error_everywhere([&] { make_plan({n - 1, 12, 10}, with_grid(Decomposition::slab_2d1d, {})); },
                          "axis 0 has " + std::to_string(n - 1) + " elements but slab-2d1d splits it over " +
                              std::to_string(n) + " ranks");
  // Output axis y of slab-2d1d.
  expect_error_everywhere([&] { make_plan({12, n - 1, 10}, with_grid(Decomposition::slab_2d1d, {})); },
                          "axis 1 has " + std::to_string(n - 1) + " elements");
  // The halved r2c axis of slab-1d2d: nz = 2 gives 2 complex points.
  if (n >= 3)
    expect_error_everywhere([&] { make_plan({12, 10, 2}, with_grid(Decomposition::slab_1d2d, {})); },
                            "axis 2 has 2 elements (n/2+1)");
  // A pencil grid dimension larger than its axis.
  expect_error_everywhere([&] { make_plan({12, n - 1, 10}, with_grid(Decomposition::pencil, {1, n})); },
                          "but pencil splits it over " + std::to_string(n) + " ranks");
}

TEST(BadInput, ZeroOrNegativeSize) {
  expect_error_everywhere([] { make_plan({17, 0, 10}, {}); }, "every size must be at least 1, got 0");
  expect_error_everywhere([] { make_plan({-4, 12, 10}, {}); }, "every size must be at least 1, got -4");
}

TEST(BadInput, ArrayTooLargeForSixtyFourBits) {
  // 2^40 x 2^40 x 4 elements: the count (and every byte offset) would overflow int64.
  const std::int64_t big = std::int64_t{1} << 40;
  expect_error_everywhere([&] { make_plan({big, big, 4}, {}); }, "overflows 64 bits");
  Options o;
  o.batch = 1 << 20;  // fits alone, not with the batch
  expect_error_everywhere([&] { make_plan({std::int64_t{1} << 20, std::int64_t{1} << 20, 1 << 8}, o); },
                          "overflows 64 bits");
}

TEST(BadInput, OneDimensionalShape) {
  expect_error_everywhere([] { make_plan({64}, {}); }, "arrays need at least 2 dimensions, got 1");
  expect_error_everywhere([] { make_plan({}, {}); }, "arrays need at least 2 dimensions, got 0");
}

TEST(BadInput, MethodListOfWrongLength) {
  Options o;
  o.decomposition = Decomposition::slab_2d1d;
  o.methods = {Method::a2a_sync, Method::p2p_sync};  // slab has one exchange
  expect_error_everywhere([&] { make_plan({17, 12, 10}, o); },
                          "give one method or one per exchange (1 for slab-2d1d");
  o.decomposition = Decomposition::pencil;
  o.grid = {world_size(), 1};
  o.methods = {Method::a2a_sync, Method::p2p_sync, Method::p2p_type};
  expect_error_everywhere([&] { make_plan({17, 12, 10}, o); }, "got 3");
  // Three methods leave no decomposition of a 3-D array to choose (two exchanges at most).
  o.decomposition = Decomposition::automatic;
  o.grid.clear();
  expect_error_everywhere([&] { make_plan({17, 12, 10}, o); }, "got 3");
}

TEST(BadInput, WrongOverloadForTransform) {
  Options o;  // r2c
  dfft::Plan<double> r2c(MPI_COMM_WORLD, {12, 10, 9}, o);
  std::vector<cd> a(static_cast<std::size_t>(std::max(r2c.input_count(), r2c.output_count())) + 1);
  std::vector<cd> b(a.size());
  std::vector<double> r(2 * a.size());
  expect_error_everywhere([&] { r2c.forward(a.data(), b.data()); },
                          "forward(complex*, complex*) called on a r2c plan");
  expect_error_everywhere([&] { r2c.inverse(a.data(), b.data()); },
                          "inverse(complex*, complex*) called on a r2c plan");
  o.transform = Transform::c2c;
  dfft::Plan<double> c2c(MPI_COMM_WORLD, {12, 10, 9}, o);
  expect_error_everywhere([&] { c2c.forward(r.data(), b.data()); },
                          "forward(real*, complex*) called on a c2c plan");
  expect_error_everywhere([&] { c2c.inverse(a.data(), r.data()); },
                          "inverse(complex*, real*) called on a c2c plan");
}

TEST(BadInput, DeviceMethodsOnCpuBackend) {
  for (auto m : {Method::p2p_streams, Method::nccl}) {
    Options o;
    o.methods = {m};
    expect_error_everywhere([&] { make_plan({17, 12, 10}, o); },
                            "method " + to_string(m) + " needs the CUDA backend");
  }
}

TEST(BadInput, CudaBackendWithoutCuda) {
  if (DFFT_TEST_HAS_CUDA) GTEST_SKIP() << "built with CUDA";
  Options o;
  o.backend = dfft::Backend::cuda;
  expect_error_everywhere([&] { make_plan({17, 12, 10}, o); }, "built without the CUDA backend");
}

TEST(BadInput, ShapesDifferAcrossRanks) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  const bool first = world_rank() == 0;
  expect_error_everywhere([&] { make_plan({first ? 18 : 17, 12, 10}, {}); },
                          "ranks disagree on the plan parameters");
  expect_error_everywhere([&] { make_plan(first ? Shape{17, 12} : Shape{17, 12, 10}, {}); },
                          "ranks disagree on the number of dimensions");
  Options o;
  o.decomposition = Decomposition::pencil;
  o.grid = {world_size(), 1};
  if (first) o.methods = {Method::a2a_sync, Method::p2p_type};
  expect_error_everywhere([&] { make_plan({17, 12, 10}, o); }, "ranks disagree on the plan parameters");
  Options v;
  if (first) v.variant = dfft::Variant::Realigned;
  expect_error_everywhere([&] { make_plan({17, 12, 10}, v); }, "ranks disagree on the plan parameters");
}

// Same lengths, different contents: a2a-sync on one rank and p2p-sync on another would
// deadlock (or mismatch) at the first transform, so the plan must refuse.
TEST(BadInput, MethodsDifferAcrossRanks) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  Options o;
  o.methods = {world_rank() == 0 ? Method::a2a_sync : Method::p2p_sync};
  expect_error_everywhere([&] { make_plan({17, 12, 10}, o); }, "ranks disagree on the plan parameters");
}

// Different message limits give different message counts (a2a-sync rounds, p2p chunks).
TEST(BadInput, MessageLimitDiffersAcrossRanks) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  Options o;
  if (world_rank() == 0) o.max_message_bytes = 64;
  expect_error_everywhere([&] { make_plan({17, 12, 10}, o); }, "ranks disagree on the plan parameters");
}

// After all these failures the library still works on the same communicator.
TEST(BadInput, LibraryUsableAfterErrors) {
  dfft::Plan<double> p(MPI_COMM_WORLD, {12, 10, 9});
  std::vector<double> in(static_cast<std::size_t>(p.input_count()), 1.0);
  std::vector<cd> out(static_cast<std::size_t>(p.output_count()));
  p.forward(in.data(), out.data());
  double dc = p.output_box().count() > 0 && p.output_box().lo == Shape{0, 0, 0} ? out[0].real() : 0;
  MPI_Allreduce(MPI_IN_PLACE, &dc, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_NEAR(dc, 12.0 * 10 * 9, 1e-9);
}

}  // namespace
}  // namespace dfft_test
