// SPDX-License-Identifier: MIT
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <mutex>

#include "backend/cpu/copy_box.hpp"
#include "backend/cpu/work_pool.hpp"
#include "codec/codec.hpp"
#include "util/check.hpp"

namespace dfft::detail {

namespace {

std::uint16_t to_bf16(float f) {
  std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40);  // NaN
  u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest even
  return static_cast<std::uint16_t>(u >> 16);
}
float from_bf16(std::uint16_t h) { return std::bit_cast<float>(static_cast<std::uint32_t>(h) << 16); }

// double -> binary16 bits, one rounding to nearest even, without branches (selects, which GCC
// compiles to conditional moves). |x| in the normal half range: drop 42 mantissa bits with the
// round-to-even bias and re-bias the exponent (a mantissa carry steps into the exponent, up to
// inf). |x| < 2^-14: adding 2^28 (whose ulp is 2^-24, the smallest subnormal half) rounds |x| to
// a multiple of 2^-24 in the FPU's round-to-nearest-even, and the low bits of the sum are the
// subnormal's bits. |x| >= 65536, inf: inf; NaN: a quiet NaN keeping the top payload bits.
inline std::uint16_t half_bits(double x) {
  const std::uint64_t u = std::bit_cast<std::uint64_t>(x);
  const std::uint64_t a = u & 0x7fffffffffffffffull;
  const std::uint64_t sign = (u >> 48) & 0x8000u;
  const double ax = std::bit_cast<double>(a);
  const std::uint64_t normal =
      (a - (std::uint64_t{1023 - 15} << 52) + 0x1ffffffffffull + ((a >> 42) & 1u)) >> 42;
  const std::uint64_t sub = std::bit_cast<std::uint64_t>(ax + 0x1p28) - std::bit_cast<std::uint64_t>(0x1p28);
  const std::uint64_t nan = 0x7e00u | ((a >> 42) & 0x3ffu);
  // (Written with masks instead, the loop vectorises with SSE2's two 64-bit lanes and runs
  // slower: docs/compression.md.)
  std::uint64_t h = ax < 0x1p-14 ? sub : normal;
  h = ax >= 65536.0 ? 0x7c00u : h;
  h = ax != ax ? nan : h;
  return static_cast<std::uint16_t>(sign | h);
}

// binary16 bits -> double, exact: normal and inf/NaN by moving the fields, subnormals and zero
// as m * 2^-24.
inline double half_value(std::uint16_t hb) {
  const std::uint64_t h = hb;
  const std::uint64_t sign = (h & 0x8000u) << 48, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0) return std::bit_cast<double>(sign | std::bit_cast<std::uint64_t>(static_cast<double>(m) * 0x1p-24));
  const std::uint64_t exp = e == 31 ? 0x7ffu : e + (1023 - 15);
  return std::bit_cast<double>(sign | (exp << 52) | (m << 42));
}

// Visit the box in `order` (slowest first): f(offset in layout, run length, stride of the run).
template <class F>
void for_each_run(const Layout& l, const Box& box, const std::vector<int>& order, F&& f) {
  if (box.empty()) return;
  const auto st = l.strides();
  const int d = box.dims();
  const int inner = order[d - 1];
  std::vector<std::int64_t> idx(d, 0);
  std::int64_t base = l.offset_of(box.lo);
  while (true) {
    std::int64_t off = base;
    for (int k = 0; k < d - 1; ++k) off += idx[k] * st[order[k]];
    f(off, box.extent(inner), st[inner]);
    int k = d - 2;
    for (; k >= 0; --k) {
      if (++idx[k] < box.extent(order[k])) break;
      idx[k] = 0;
    }
    if (k < 0) return;
  }
}

template <class R>
double block_max(const R* src, const Layout& l, const Box& box, const std::vector<int>& order) {
  double m = 0;
  for_each_run(l, box, order, [&](std::int64_t off, std::int64_t n, std::int64_t s) {
    // NaN compares false and is skipped (as fmax would), inf makes the maximum non-finite. Two
    // accumulators per run halve the chain of dependent compares.
    double m0 = m, m1 = m;
    for (std::int64_t i = 0; i < n; ++i) {
      const R* v = src + 2 * (off + i * s);
      const double a = std::fabs(static_cast<double>(v[0])), b = std::fabs(static_cast<double>(v[1]));
      m0 = a > m0 ? a : m0;
      m1 = b > m1 ? b : m1;
    }
    m = m0 > m1 ? m0 : m1;
  });
  return m;
}

// Blocks whose wire order runs along a strided axis of the array (the fastest wire axis with more
// than one element has memory stride != 1) go through a cache-sized tile in wire order: the
// tiled transpose of host_copy_box moves the data between the array and the tile, and the codec
// loop runs on the contiguous tile. Element by element along a strided run, every value touches
// another cache line (decode measured 2x slower than a plain unpack; docs/results/compression.md).
bool strided_in_memory(const Layout& l, const Box& box, const std::vector<int>& order) {
  const auto st = l.strides();
  for (int k = box.dims() - 1; k >= 0; --k)
    if (box.extent(order[k]) > 1) return st[order[k]] != 1;
  return false;
}

// Calls f(chunk box, values before it) for consecutive chunks of about kTileValues complex values
// along the slowest wire axis that has more than one element (each chunk is a contiguous range of
// the wire values).
template <class F>
void for_each_tile(const Box& box, const std::vector<int>& order, F&& f) {
  constexpr std::int64_t kTileValues = 16384;  // 256 KiB of complex double
  int a = order[0];
  for (int k = 0; k < box.dims(); ++k)
    if (box.extent(order[k]) > 1) {
      a = order[k];
      break;
    }
  const std::int64_t row = box.count() / box.extent(a);
  const std::int64_t rows = std::max<std::int64_t>(1, kTileValues / std::max<std::int64_t>(1, row));
  std::int64_t done = 0;
  for (std::int64_t lo = box.lo[a]; lo < box.hi[a]; lo += rows) {
    Box cb = box;
    cb.lo[a] = lo;
    cb.hi[a] = std::min(box.hi[a], lo + rows);
    f(cb, done, rows * row);
    done += cb.count();
  }
}

// Calls f(part, wire values before it) for parts of `box` cut along its slowest wire axis, on
// `pool` (each part's wire values are one contiguous range, so parts write disjoint memory).
template <class F>
void for_each_part(WorkPool* pool, const Box& box, const std::vector<int>& order,
                   std::int64_t value_bytes, F&& f) {
  const int a = slowest_moving(order, box);
  const int parts = a < 0 ? 1 : parts_for(pool, box.extent(a), box.count() * value_bytes);
  if (parts <= 1) return f(box, std::int64_t{0});
  const std::int64_t row = box.count() / box.extent(a);
  pool->run(parts, [&](int p) {
    const Box b = box_part(box, a, parts, p);
    f(b, (b.lo[a] - box.lo[a]) * row);
  });
}

template <class R, class W, class Enc>
void encode(const R* src, const Layout& l, const Box& box, const std::vector<int>& order, W* out,
            Enc enc) {
  if (strided_in_memory(l, box, order)) {
    std::vector<R> tile;
    for_each_tile(box, order, [&](const Box& cb, std::int64_t before, std::int64_t cap) {
      tile.resize(static_cast<std::size_t>(2 * cap));
      host_copy_box(src, l, tile.data(), Layout{cb, order, {}}, cb, 2 * sizeof(R));
      W* o = out + 2 * before;
      const R* t = tile.data();
      const std::int64_t m = 2 * cb.count();
      for (std::int64_t i = 0; i < m; ++i) o[i] = enc(t[i]);
    });
    return;
  }
  for_each_run(l, box, order, [&](std::int64_t off, std::int64_t n, std::int64_t s) {
    const R* in = src + 2 * off;
    for (std::int64_t i = 0; i < n; ++i) {
      out[2 * i] = enc(in[2 * i * s]);
      out[2 * i + 1] = enc(in[2 * i * s + 1]);
    }
    out += 2 * n;
  });
}

template <class R, class W, class Dec>
void decode(const W* in, const Layout& l, const Box& box, const std::vector<int>& order, R* dst,
            Dec dec) {
  if (strided_in_memory(l, box, order)) {
    std::vector<R> tile;
    for_each_tile(box, order, [&](const Box& cb, std::int64_t before, std::int64_t cap) {
      tile.resize(static_cast<std::size_t>(2 * cap));
      const W* w = in + 2 * before;
      R* t = tile.data();
      const std::int64_t m = 2 * cb.count();
      for (std::int64_t i = 0; i < m; ++i) t[i] = static_cast<R>(dec(w[i]));
      host_copy_box(tile.data(), Layout{cb, order, {}}, dst, l, cb, 2 * sizeof(R));
    });
    return;
  }
  for_each_run(l, box, order, [&](std::int64_t off, std::int64_t n, std::int64_t s) {
    R* out = dst + 2 * off;
    for (std::int64_t i = 0; i < n; ++i) {
      out[2 * i * s] = static_cast<R>(dec(in[2 * i]));
      out[2 * i * s + 1] = static_cast<R>(dec(in[2 * i + 1]));
    }
    in += 2 * n;
  });
}

template <class R>
void encode_as(const R* src, const Layout& sl, const Box& box, const std::vector<int>& order,
               char* dst, Codec c, WorkPool* pool) {
  double scale = 1;
  const std::int64_t vb = 2 * sizeof(R);
  if (c == Codec::fp16) {
    // Power-of-two scale: the largest magnitude lands in [2^14, 2^15), below half's 65504.
    double m = 0;
    std::mutex mm;
    for_each_part(pool, box, order, vb, [&](const Box& b, std::int64_t) {
      const double bm = block_max(src, sl, b, order);
      std::lock_guard<std::mutex> l(mm);
      m = std::max(m, bm);  // block_max skips NaN: bm is a number or inf
    });
    if (m > 0 && std::isfinite(m)) scale = std::ldexp(1.0, std::ilogb(m) - 14);
  }
  std::memcpy(dst, &scale, sizeof scale);
  std::memset(dst + sizeof scale, 0, kCodecHeader - sizeof scale);
  char* body = dst + kCodecHeader;
  const double inv = 1 / scale;
  auto parts = [&](auto* out, auto enc) {
    for_each_part(pool, box, order, vb, [&](const Box& b, std::int64_t before) {
      encode(src, sl, b, order, out + 2 * before, enc);
    });
  };
  switch (c) {
    case Codec::fp32:
      return parts(reinterpret_cast<float*>(body), [](R v) { return static_cast<float>(v); });
    case Codec::fp16:
      return parts(reinterpret_cast<std::uint16_t*>(body),
                   [inv](R v) { return half_bits(static_cast<double>(v) * inv); });
    case Codec::bf16:
      return parts(reinterpret_cast<std::uint16_t*>(body),
                   [](R v) { return to_bf16(static_cast<float>(v)); });
    case Codec::none: break;
  }
  fail("codec none has no encoder");
}

template <class R>
void decode_as(const char* src, const std::vector<int>& order, R* dst, const Layout& dl,
               const Box& box, Codec c, WorkPool* pool) {
  double scale;
  std::memcpy(&scale, src, sizeof scale);
  const char* body = src + kCodecHeader;
  auto parts = [&](const auto* in, auto dec) {
    for_each_part(pool, box, order, 2 * sizeof(R), [&](const Box& b, std::int64_t before) {
      decode(in + 2 * before, dl, b, order, dst, dec);
    });
  };
  switch (c) {
    case Codec::fp32:
      return parts(reinterpret_cast<const float*>(body), [](float v) { return v; });
    case Codec::fp16:
      return parts(reinterpret_cast<const std::uint16_t*>(body),
                   [scale](std::uint16_t v) { return half_value(v) * scale; });
    case Codec::bf16:
      return parts(reinterpret_cast<const std::uint16_t*>(body),
                   [](std::uint16_t v) { return from_bf16(v); });
    case Codec::none: break;
  }
  fail("codec none has no decoder");
}

}  // namespace

std::uint16_t half_from_double(double x) { return half_bits(x); }

double double_from_half(std::uint16_t h) { return half_value(h); }

std::size_t wire_elem_bytes(Codec c, std::size_t elem) {
  switch (c) {
    case Codec::none: return elem;
    case Codec::fp32: return 8;
    case Codec::fp16:
    case Codec::bf16: return 4;
  }
  return elem;
}

std::int64_t wire_bytes(Codec c, std::size_t elem, std::int64_t count) {
  if (count == 0) return 0;
  auto body = count * static_cast<std::int64_t>(wire_elem_bytes(c, elem));
  return c == Codec::none ? body : kCodecHeader + body;
}

Codec codec_for_tolerance(double tol, int exchanges, bool is_double) {
  // Rounding a value to a format with unit round-off u leaves a relative error of at most u and
  // about u/sqrt(3) on average; the errors of successive exchanges add in quadrature. With a
  // factor 2 of headroom the expected error of codec c is 2 * u(c) * sqrt(exchanges)/sqrt(3).
  // bf16 is not a candidate: it costs what fp16 costs on the wire, rounds 8x more coarsely, and
  // has no range advantage, since fp16 scales every block so that its largest magnitude fits
  // (bf16, unscaled, overflows double data beyond float's range instead). It is for explicit use.
  const double f = 2 * std::sqrt(std::max(1, exchanges) / 3.0);
  for (Codec c : {Codec::fp16, Codec::fp32}) {  // cheapest first
    if (c == Codec::fp32 && !is_double) continue;  // no saving from float
    if (f * unit_roundoff(c) <= tol) return c;
  }
  return Codec::none;
}

void host_encode_box(const void* src, const Layout& sl, const Box& box,
                     const std::vector<int>& order, void* dst, Codec c, bool is_double, WorkPool* pool) {
  if (box.empty()) return;
  if (is_double) encode_as(static_cast<const double*>(src), sl, box, order, static_cast<char*>(dst), c, pool);
  else encode_as(static_cast<const float*>(src), sl, box, order, static_cast<char*>(dst), c, pool);
}

void host_decode_box(const void* src, const std::vector<int>& order, void* dst, const Layout& dl,
                     const Box& box, Codec c, bool is_double, WorkPool* pool) {
  if (box.empty()) return;
  if (is_double) decode_as(static_cast<const char*>(src), order, static_cast<double*>(dst), dl, box, c, pool);
  else decode_as(static_cast<const char*>(src), order, static_cast<float*>(dst), dl, box, c, pool);
}

}  // namespace dfft::detail

namespace dfft {

double unit_roundoff(Codec c) {
  switch (c) {
    case Codec::none: return 0;
    case Codec::fp32: return std::ldexp(1.0, -24);
    case Codec::fp16: return std::ldexp(1.0, -11);
    case Codec::bf16: return std::ldexp(1.0, -8);
  }
  return 0;
}

}  // namespace dfft
