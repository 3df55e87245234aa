// SPDX-License-Identifier: MIT
// The host codec's integer double <-> binary16 conversions (src/codec/host_codec.cpp) against the
// compiler's _Float16 conversion (libgcc soft-float, one rounding to nearest even): every half
// value, every midpoint between neighbouring halves and the doubles next to it, the overflow
// threshold, subnormals, signed zeros, inf and NaN, and random doubles over the exponents where
// rounding changes regime.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "codec/codec.hpp"

namespace {

using dfft::detail::double_from_half;
using dfft::detail::half_from_double;

std::uint16_t reference_bits(double x) { return std::bit_cast<std::uint16_t>(static_cast<_Float16>(x)); }
double reference_value(std::uint16_t h) { return static_cast<double>(std::bit_cast<_Float16>(h)); }
bool is_nan_half(std::uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0; }

TEST(Half, EveryHalfDecodesExactlyAndEncodesBack) {
  for (std::uint32_t i = 0; i < 65536; ++i) {
    const auto h = static_cast<std::uint16_t>(i);
    const double v = double_from_half(h);
    if (is_nan_half(h)) {
      EXPECT_TRUE(std::isnan(v)) << std::hex << h;
      EXPECT_TRUE(is_nan_half(half_from_double(v))) << std::hex << h;
      continue;
    }
    ASSERT_EQ(std::bit_cast<std::uint64_t>(v), std::bit_cast<std::uint64_t>(reference_value(h)))
        << "decode of 0x" << std::hex << h;
    ASSERT_EQ(half_from_double(v), h) << "encode of the value of 0x" << std::hex << h;
  }
}

TEST(Half, MidpointsRoundToEvenAndNeighboursRoundToNearest) {
  int checked = 0;
  for (std::uint32_t i = 0; i < 0x7c00; ++i) {  // positive finite halves and the next one up
    for (std::uint16_t sign : {std::uint16_t{0}, std::uint16_t{0x8000}}) {
      const auto lo = static_cast<std::uint16_t>(i | sign), hi = static_cast<std::uint16_t>((i + 1) | sign);
      const double mid = (double_from_half(lo) + double_from_half(hi)) / 2;  // exact in double
      for (double x : {mid, std::nextafter(mid, 0.0), std::nextafter(mid, mid * 2)}) {
        ASSERT_EQ(half_from_double(x), reference_bits(x)) << std::hexfloat << x;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 0x7c00 * 6);
}

TEST(Half, SpecialValues) {
  const double inf = std::numeric_limits<double>::infinity();
  for (double x : {0.0, -0.0, 65504.0, -65504.0, 65519.99, 65520.0, 65536.0, 1e300, -1e300, inf, -inf,
                   0x1p-24, 0x1p-25, 0x1.0000000000001p-25, 0x1.8p-25, 0x1p-26, 0x1p-14, 0x1.ffcp-15,
                   0x1.ffep-15, 0x1.fffp-15, 5e-324, -5e-324, 2.2250738585072014e-308}) {
    EXPECT_EQ(half_from_double(x), reference_bits(x)) << std::hexfloat << x;
  }
  EXPECT_EQ(half_from_double(inf), 0x7c00);
  EXPECT_EQ(half_from_double(-0.0), 0x8000);
  EXPECT_TRUE(is_nan_half(half_from_double(std::numeric_limits<double>::quiet_NaN())));
  EXPECT_TRUE(is_nan_half(half_from_double(-std::numeric_limits<double>::quiet_NaN())));
}

TEST(Half, RandomDoublesMatchTheCompiler) {
  std::mt19937_64 rng(20261124);
  std::uniform_int_distribution<int> exponent(-45, 18);
  std::uniform_int_distribution<std::uint64_t> mantissa(0, (std::uint64_t{1} << 52) - 1);
  for (int i = 0; i < 2000000; ++i) {
    const std::uint64_t sign = (rng() & 1) << 63;
    const auto e = static_cast<std::uint64_t>(exponent(rng) + 1023);
    const double x = std::bit_cast<double>(sign | (e << 52) | mantissa(rng));
    ASSERT_EQ(half_from_double(x), reference_bits(x)) << std::hexfloat << x;
  }
}

}  // namespace
