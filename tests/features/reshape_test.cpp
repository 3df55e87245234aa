// SPDX-License-Identifier: MIT
// Standalone dfft::Reshape: A -> B -> A between random box sets (empty boxes, shuffled memory
// orders, padding) returns exactly the original elements, and B holds exactly the global array,
// for float, double and both complex types, with every method of the backend under test and
// with split messages; the padding of the arrays is never written.
#include <cstring>
#include <memory>

#include "dfft/reshape.hpp"
#include "features/feature_util.hpp"

namespace dfft_test {
namespace {

template <class V>
bool bits_equal(V a, V b) {
  return std::memcmp(&a, &b, sizeof(V)) == 0;
}

template <class V>
void round_trip(const Shape& shape, dfft::Method m, std::int64_t max_bytes, unsigned seed) {
  SCOPED_TRACE(to_string(m) + (max_bytes < 1024 ? " (split messages)" : ""));
  std::mt19937 g(seed);
  const auto A = random_layouts(shape, g, true);
  const auto B = random_layouts(shape, g, true);
  const int r = world_rank();
  std::unique_ptr<dfft::Reshape<V>> ab, ba;
  const Outcome made = run_collective([&] {
    ab = std::make_unique<dfft::Reshape<V>>(MPI_COMM_WORLD, A[r], B[r], m, max_bytes, backend(), test_device());
    ba = std::make_unique<dfft::Reshape<V>>(MPI_COMM_WORLD, B[r], A[r], m, max_bytes, backend(), test_device());
  });
  ASSERT_EQ(made.ranks_with_error, 0) << made.what;
  ASSERT_FALSE(made.other_exception) << made.what;

  const int s = static_cast<int>(seed % 5);
  const auto a_h = make_local<V>(A[r], shape, s, V(-1));  // padding holds -1
  DevArray<V> a(a_h);
  DevArray<V> b(std::vector<V>(static_cast<std::size_t>(alloc_elems(B[r])) + 1, V(-2)));
  ab->execute(a.get(), b.get());
  // B holds the global array exactly, its padding and the element past it untouched.
  const auto b_h = b.host();
  std::vector<V> b_want(b_h.size(), V(-2));
  for_box(B[r].box, [&](const Shape& idx) {
    b_want[static_cast<std::size_t>(padded_offset(B[r], idx))] = value_at<V>(linear(idx, shape), s);
  });
  EXPECT_TRUE(all_ranks(same_bits(b_h, b_want))) << "A -> B misplaced elements or wrote into padding";

  DevArray<V> a2(std::vector<V>(a_h.size() + 1, V(-1)));
  ba->execute(b.get(), a2.get());
  auto a2_h = a2.host();
  EXPECT_TRUE(all_ranks(bits_equal(a2_h.back(), V(-1)))) << "wrote past the array";
  a2_h.pop_back();
  EXPECT_TRUE(all_ranks(same_bits(a2_h, a_h))) << "A -> B -> A is not bitwise the original (padding too)";
  EXPECT_GE(ab->timing().total(), 0.0);
}

/// The methods a Reshape offers on the backend under test.
std::vector<dfft::Method> reshape_methods() {
  using dfft::Method;
  std::vector<Method> v{Method::a2a_sync, Method::a2a_type, Method::p2p_sync, Method::p2p_type};
  if (on_cuda()) v.push_back(Method::p2p_streams);
  return v;
}

template <class V>
class ReshapeRoundTrip : public ::testing::Test {};
using Elems = ::testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(ReshapeRoundTrip, Elems);

TYPED_TEST(ReshapeRoundTrip, EveryMethodIsExact) {
  unsigned seed = 11;
  for (auto m : reshape_methods()) round_trip<TypeParam>({7, 6, 5}, m, std::int64_t{1} << 30, seed++);
  round_trip<TypeParam>({13, 4}, dfft::Method::a2a_sync, std::int64_t{1} << 30, seed++);
  const auto four_d = on_cuda() ? dfft::Method::p2p_streams : dfft::Method::p2p_type;
  round_trip<TypeParam>({3, 4, 3, 5}, four_d, std::int64_t{1} << 30, seed++);
}

TYPED_TEST(ReshapeRoundTrip, SplitMessagesAreExact) {
  // 48-byte messages: every block travels in several pieces.
  const auto second = on_cuda() ? dfft::Method::p2p_sync : dfft::Method::p2p_type;
  for (auto m : {dfft::Method::a2a_sync, second})
    round_trip<TypeParam>({7, 6, 5}, m, 48, 101 + static_cast<unsigned>(m));
}

TEST(Reshape, RejectsBoxesThatDoNotTile) {
  const int r = world_rank();
  Layout mine{Box{Shape{0, 0}, Shape{4, 4}}, {0, 1}, {}};
  Layout none{empty_box(2), {0, 1}, {}};
  Layout half{Box{Shape{0, 0}, Shape{2, 4}}, {0, 1}, {}};
  // Output covers only half of the array.
  expect_error_everywhere(
      [&] {
        dfft::Reshape<double> x(MPI_COMM_WORLD, r == 0 ? mine : none, r == 0 ? half : none,
                                dfft::Method::a2a_sync, std::int64_t{1} << 30, backend(), test_device());
      },
      "cover");
}

}  // namespace
}  // namespace dfft_test
