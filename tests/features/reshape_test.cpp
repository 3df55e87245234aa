// SPDX-License-Identifier: MIT
// Standalone dfft::Reshape: A -> B -> A between random box sets (empty boxes, shuffled memory
// orders, padding) returns exactly the original elements, and B holds exactly the global array,
// for float, double and both complex types, with every CPU method and with split messages.
#include <cstring>

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
  std::mt19937 g(seed);
  const auto A = random_layouts(shape, g, true);
  const auto B = random_layouts(shape, g, true);
  const int r = world_rank();
  dfft::Reshape<V> ab(MPI_COMM_WORLD, A[r], B[r], m, max_bytes);
  dfft::Reshape<V> ba(MPI_COMM_WORLD, B[r], A[r], m, max_bytes);

  const auto a = make_local<V>(A[r], shape, static_cast<int>(seed % 5), V(-1));
  std::vector<V> b(static_cast<std::size_t>(alloc_elems(B[r])) + 1, V(-2));
  ab.execute(a.data(), b.data());
  // B holds the global array exactly.
  bool ok_b = bits_equal(b.back(), V(-2));
  for_box(B[r].box, [&](const Shape& idx) {
    ok_b &= bits_equal(b[padded_offset(B[r], idx)],
                       value_at<V>(linear(idx, shape), static_cast<int>(seed % 5)));
  });
  EXPECT_TRUE(all_ranks(ok_b)) << "A -> B misplaced elements (" << to_string(m) << ")";

  std::vector<V> a2(a.size() + 1, V(-1));
  ba.execute(b.data(), a2.data());
  bool ok_a = bits_equal(a2.back(), V(-1));
  for (std::size_t i = 0; i < a.size(); ++i)
    ok_a &= bits_equal(a2[i], a[i]);  // padding untouched too
  EXPECT_TRUE(all_ranks(ok_a)) << "A -> B -> A is not bitwise the original (" << to_string(m)
                               << ")";
  EXPECT_GE(ab.timing().total(), 0.0);
}

template <class V>
class ReshapeRoundTrip : public ::testing::Test {};
using Elems = ::testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(ReshapeRoundTrip, Elems);

TYPED_TEST(ReshapeRoundTrip, EveryMethodIsExact) {
  unsigned seed = 11;
  for (auto m : {dfft::Method::a2a_sync, dfft::Method::a2a_type, dfft::Method::p2p_sync,
                 dfft::Method::p2p_type})
    round_trip<TypeParam>({7, 6, 5}, m, std::int64_t{1} << 30, seed++);
  round_trip<TypeParam>({13, 4}, dfft::Method::a2a_sync, std::int64_t{1} << 30, seed++);
  round_trip<TypeParam>({3, 4, 3, 5}, dfft::Method::p2p_type, std::int64_t{1} << 30, seed++);
}

TYPED_TEST(ReshapeRoundTrip, SplitMessagesAreExact) {
  // 48-byte messages: every block travels in several pieces.
  for (auto m : {dfft::Method::a2a_sync, dfft::Method::p2p_type})
    round_trip<TypeParam>({7, 6, 5}, m, 48, 101 + static_cast<unsigned>(m));
}

TEST(Reshape, RejectsBoxesThatDoNotTile) {
  const int r = world_rank();
  Layout mine{Box{Shape{0, 0}, Shape{4, 4}}, {0, 1}, {}};
  Layout none{empty_box(2), {0, 1}, {}};
  Layout half{Box{Shape{0, 0}, Shape{2, 4}}, {0, 1}, {}};
  // Output covers only half of the array.
  expect_error_everywhere(
      [&] { dfft::Reshape<double> x(MPI_COMM_WORLD, r == 0 ? mine : none, r == 0 ? half : none); },
      "cover");
}

}  // namespace
}  // namespace dfft_test
