// SPDX-License-Identifier: MIT
// The host codec (src/codec/host_codec.cpp) on random layouts: random memory orders (so that the
// wire's fastest axis is contiguous in memory or strided, the tiled path), padding, sub-boxes,
// wire orders, codecs and precisions, with blocks above the codec's tile size. fp32 wire values
// must be the exact casts in wire order; every codec must decode into another random layout
// within its rounding bound, element by element (a misplaced value fails by far more).
#include <gtest/gtest.h>

#include "layout_util.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>

#include "codec/codec.hpp"

namespace {

using dfft::Box;
using dfft::Codec;
using dfft::Layout;
using dfft_unit::elements;
using dfft_unit::offset;
using dfft_unit::random_order;
using dfft_unit::V;

// Visits the box with the axes of `order` from slowest to fastest (the wire order).
template <class F>
void for_each_in_order(const Box& b, const std::vector<int>& order, F&& f) {
  V idx = b.lo;
  const int d = b.dims();
  while (true) {
    f(idx);
    int k = d - 1;
    for (; k >= 0; --k) {
      const int a = order[k];
      if (++idx[a] < b.hi[a]) break;
      idx[a] = b.lo[a];
    }
    if (k < 0) return;
  }
}
Layout random_layout(const Box& outer, std::mt19937& rng) {
  Layout l{outer, random_order(outer.dims(), rng), {}};
  if (rng() % 3 == 0) {
    l.padded.resize(outer.dims());
    for (int a = 0; a < outer.dims(); ++a) l.padded[a] = outer.extent(a) + static_cast<std::int64_t>(rng() % 3);
  }
  return l;
}

template <class R>
void round_trip(Codec c, std::mt19937& rng, int trial) {
  const int d = 3 + static_cast<int>(rng() % 2);
  Box outer{V(d, 0), V(d, 1)};
  for (int a = 0; a < d; ++a) outer.hi[a] = 1 + static_cast<std::int64_t>(rng() % (d == 3 ? 40 : 14));
  Box box = outer;
  for (int a = 0; a < d; ++a)
    if (rng() % 2) {
      box.lo[a] = static_cast<std::int64_t>(rng() % static_cast<unsigned>(outer.hi[a]));
      box.hi[a] = box.lo[a] + 1 + static_cast<std::int64_t>(rng() % static_cast<unsigned>(outer.hi[a] - box.lo[a]));
    }
  const Layout sl = random_layout(outer, rng), dl = random_layout(outer, rng);
  const auto wire = random_order(d, rng);
  std::uniform_real_distribution<double> val(-1e3, 1e3);
  std::vector<R> src(2 * elements(sl)), dst(2 * elements(dl), R(7));
  for (auto& v : src) v = static_cast<R>(val(rng));
  const std::size_t elem = 2 * sizeof(R);
  std::vector<char> buf(static_cast<std::size_t>(dfft::detail::wire_bytes(c, elem, box.count())) + 16);
  dfft::detail::host_encode_box(src.data(), sl, box, wire, buf.data(), c, sizeof(R) == 8);
  double block_max = 0;
  for_each_in_order(box, wire, [&](const V& idx) {
    for (int p = 0; p < 2; ++p) block_max = std::max(block_max, std::abs(double(src[2 * offset(sl, idx) + p])));
  });
  if (c == Codec::fp32) {  // exact casts, in wire order
    std::int64_t i = 0;
    bool ok = true;
    for_each_in_order(box, wire, [&](const V& idx) {
      for (int p = 0; p < 2 && ok; ++p) {
        float w;
        std::memcpy(&w, buf.data() + dfft::detail::kCodecHeader + 4 * (2 * i + p), 4);
        ok = w == static_cast<float>(src[2 * offset(sl, idx) + p]);
      }
      ++i;
    });
    ASSERT_TRUE(ok) << "trial " << trial << ": fp32 wire values differ from the casts in wire order";
  }
  dfft::detail::host_decode_box(buf.data(), wire, dst.data(), dl, box, c, sizeof(R) == 8);
  const double bound = 1.01 * dfft::unit_roundoff(c) * block_max;
  double worst = 0;
  for_each_in_order(box, wire, [&](const V& idx) {
    for (int p = 0; p < 2; ++p)
      worst = std::max(worst, std::abs(double(dst[2 * offset(dl, idx) + p]) - double(src[2 * offset(sl, idx) + p])));
  });
  ASSERT_LE(worst, bound) << "trial " << trial << " codec " << dfft::to_string(c) << " box count " << box.count();
}

TEST(HostCodec, RandomLayoutsRoundTripWithinRounding) {
  std::mt19937 rng(20261124);
  for (int trial = 0; trial < 300; ++trial) {
    const Codec c = std::vector<Codec>{Codec::fp32, Codec::fp16, Codec::bf16}[trial % 3];
    if (c == Codec::fp32 || trial % 2) round_trip<double>(c, rng, trial);
    else round_trip<float>(c, rng, trial);
  }
}

// A block far above the tile size, strided in memory along the wire's fastest axis.
TEST(HostCodec, LargeStridedBlockGoesThroughSeveralTiles) {
  const Box box{{0, 0, 0}, {48, 40, 30}};                 // 57,600 values
  const Layout sl{box, {2, 1, 0}, {}};                     // axis 0 fastest in memory
  const std::vector<int> wire{0, 1, 2};                    // axis 2 fastest on the wire: strided
  std::vector<double> src(2 * static_cast<std::size_t>(box.count())), back(src.size());
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = std::sin(0.01 * static_cast<double>(i)) * 100;
  std::vector<char> buf(static_cast<std::size_t>(dfft::detail::wire_bytes(Codec::fp32, 16, box.count())));
  dfft::detail::host_encode_box(src.data(), sl, box, wire, buf.data(), Codec::fp32, true);
  dfft::detail::host_decode_box(buf.data(), wire, back.data(), sl, box, Codec::fp32, true);
  for (std::size_t i = 0; i < src.size(); ++i)
    ASSERT_EQ(back[i], static_cast<double>(static_cast<float>(src[i]))) << i;
}

}  // namespace
