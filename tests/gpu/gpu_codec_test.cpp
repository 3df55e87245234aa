// SPDX-License-Identifier: MIT
// The GPU encode/decode kernels (src/backend/cuda/codec.cu) against the host codec
// (src/codec/host_codec.cpp): the same wire bytes for every codec and precision on boxes of
// every shape the transports hand them (contiguous, a run per row, short runs, a wire order
// other than the memory order, padded arrays, unaligned real-pair arrays, one element), and
// decode writes exactly what the host decoder writes, leaving the rest of the array alone.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "backend/cuda/codec.hpp"
#include "codec/codec.hpp"
#include "gpu_util.hpp"

namespace dfft_gpu {

namespace {

using dfft::Box;
using dfft::Codec;
using dfft::Layout;

class GpuCodec : public GpuTest {};

struct Case {
  std::string name;
  Layout layout;             // the strided array
  Box box;                   // the block
  std::vector<int> wire;     // wire order
};

std::vector<Case> cases() {
  std::vector<Case> v;
  const Layout plain{{{0, 0, 0}, {6, 10, 9}}, {0, 1, 2}, {}};
  v.push_back({"whole array (one run)", plain, plain.box, {0, 1, 2}});
  v.push_back({"rows of whole planes (1-D partition)", plain, {{2, 0, 0}, {5, 10, 9}}, {0, 1, 2}});
  v.push_back({"a run per row (2-D partition)", plain, {{0, 3, 0}, {6, 8, 9}}, {0, 1, 2}});
  v.push_back({"short runs (3-D partition)", plain, {{1, 2, 3}, {5, 9, 7}}, {0, 1, 2}});
  v.push_back({"wire order transposed", plain, {{1, 2, 3}, {5, 9, 7}}, {2, 0, 1}});
  v.push_back({"one element", plain, {{3, 4, 5}, {4, 5, 6}}, {0, 1, 2}});
  Layout rotated{{{0, 0, 0}, {7, 5, 8}}, {2, 0, 1}, {}};  // Realigned memory order
  v.push_back({"rotated memory order", rotated, {{1, 1, 2}, {6, 4, 7}}, {2, 0, 1}});
  Layout padded{{{0, 0, 0}, {5, 6, 7}}, {0, 1, 2}, {5, 8, 10}};  // alloc extents larger
  v.push_back({"padded array", padded, {{0, 1, 0}, {5, 5, 7}}, {0, 1, 2}});
  return v;
}

template <class R>
void check(const Case& c, Codec codec, std::size_t shift) {
  const bool dbl = std::is_same_v<R, double>;
  const std::int64_t n = c.layout.alloc_count();  // complex elements
  // Values across many binades, negative and zero included; fp16 scales per block.
  std::vector<R> host(static_cast<std::size_t>(2 * n) + 2);
  for (std::size_t i = 0; i < host.size(); ++i)
    host[i] = static_cast<R>(std::sin(0.7 * static_cast<double>(i)) * std::ldexp(1.0, static_cast<int>(i % 23) - 11));
  const std::int64_t count = c.box.count();
  const std::size_t wire = static_cast<std::size_t>(dfft::detail::wire_bytes(codec, 2 * sizeof(R), count));
  // `shift` reals into the allocation: 0 keeps complex elements aligned to a 2-element vector,
  // 1 puts them on an odd real (the kernels' scalar path).
  const R* src_h = host.data() + shift;
  std::vector<char> want(wire), got(wire);
  dfft::detail::host_encode_box(src_h, c.layout, c.box, c.wire, want.data(), codec, dbl);

  R* d_arr = nullptr;
  char* d_wire = nullptr;
  ASSERT_EQ(cudaMalloc(&d_arr, host.size() * sizeof(R)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_wire, wire), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_arr, host.data(), host.size() * sizeof(R), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(dfft::detail::cuda::encode_box_async(d_arr + shift, c.layout, c.box, c.wire, d_wire, codec, dbl, nullptr),
            cudaSuccess);
  ASSERT_EQ(cudaMemcpy(got.data(), d_wire, wire, cudaMemcpyDeviceToHost), cudaSuccess);
  // The header's scale (bytes 0-7) and the values; bytes 8-15 of the header are reserved (the
  // GPU encoder keeps the block maximum there while it runs, the host writes zeros).
  EXPECT_EQ(0, std::memcmp(want.data(), got.data(), sizeof(double))) << "block scale differs";
  const auto head = static_cast<std::size_t>(dfft::detail::kCodecHeader);
  EXPECT_EQ(0, std::memcmp(want.data() + head, got.data() + head, wire - head)) << "encoded values differ";

  // Decode into an array filled with a sentinel: the box gets the host decoder's values, the
  // rest stays untouched.
  std::vector<R> dec_want(host.size(), static_cast<R>(-7.5)), dec_got(host.size());
  dfft::detail::host_decode_box(want.data(), c.wire, dec_want.data() + shift, c.layout, c.box, codec, dbl);
  std::vector<R> sentinel(host.size(), static_cast<R>(-7.5));
  ASSERT_EQ(cudaMemcpy(d_arr, sentinel.data(), host.size() * sizeof(R), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(dfft::detail::cuda::decode_box_async(d_wire, c.wire, d_arr + shift, c.layout, c.box, codec, dbl, nullptr),
            cudaSuccess);
  ASSERT_EQ(cudaMemcpy(dec_got.data(), d_arr, host.size() * sizeof(R), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(0, std::memcmp(dec_want.data(), dec_got.data(), host.size() * sizeof(R))) << "decoded values differ";
  cudaFree(d_arr);
  cudaFree(d_wire);
}

TEST_F(GpuCodec, KernelsMatchTheHostCodecOnEveryShape) {
  for (const auto& c : cases())
    for (Codec codec : {Codec::fp32, Codec::fp16, Codec::bf16})
      for (std::size_t shift : {std::size_t{0}, std::size_t{1}}) {
        SCOPED_TRACE(c.name + " " + dfft::to_string(codec) + " shift " + std::to_string(shift));
        if (codec != Codec::fp32) check<float>(c, codec, shift);
        check<double>(c, codec, shift);
      }
}

}  // namespace

}  // namespace dfft_gpu
