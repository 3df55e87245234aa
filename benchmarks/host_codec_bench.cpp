// SPDX-License-Identifier: MIT
// host-codec-bench: the CPU codec loops (encode = pack + narrow, decode = widen + unpack,
// src/codec/host_codec.cpp) against the plain pack/unpack copy (host_copy_box) on the same
// blocks, one thread. The local array is a 2-rank slab of an n^3 r2c transform in double:
// (n/2) x n x (n/2+1) complex values. Blocks as in gpu-codec-bench: the block a slab exchange
// sends to the other rank (whole z-rows per x-plane), a 1-D partition (contiguous) and short runs
// (3-D partition), plus a strided block (runs along a slow axis, as a pencil exchange packs).
// Bandwidth = bytes read + written per time (encode fp32: 16 + 8 per value; fp16/bf16: 16 + 4;
// copy: 16 + 16). Median of reps after one untimed run (first touch).
// Usage: host-codec-bench [n] [reps] (default 256 9).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "backend/cpu/copy_box.hpp"
#include "codec/codec.hpp"

namespace {

using dfft::Box;
using dfft::Codec;
using dfft::Layout;

template <class F>
double median_ms(int reps, F&& f) {
  f();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto a = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 256;
  const int reps = argc > 2 ? std::max(1, std::atoi(argv[2])) : 9;
  try {
    const std::int64_t nz = n / 2 + 1, nx = n / 2;
    const Layout local{{{0, 0, 0}, {nx, n, nz}}, {0, 1, 2}, {}};
    const std::size_t elem = 16;  // complex double
    const std::size_t bytes = static_cast<std::size_t>(local.alloc_count()) * elem;
    std::vector<double> a(bytes / sizeof(double)), b(bytes / sizeof(double) + 64);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<double>(i % 1021) * 0.37 - 150;
    struct Shape {
      std::string name;
      Box box;
      std::vector<int> order;
    };
    const std::vector<Shape> shapes{
        {"slab block (z-rows per x)", {{0, n / 2, 0}, {nx, n, nz}}, {0, 1, 2}},
        {"1-D partition (contiguous)", {{0, 0, 0}, {nx / 2, n, nz}}, {0, 1, 2}},
        {"3-D partition (short runs)", {{0, 0, 0}, {nx, n / 2, nz / 2}}, {0, 1, 2}},
        {"strided (runs along x)", {{0, 0, 0}, {nx, n / 2, nz}}, {1, 2, 0}},
    };
    std::printf("host-codec-bench: local array %lldx%lldx%lld complex double (%.2f GB), one thread, median of %d\n",
                static_cast<long long>(nx), static_cast<long long>(n), static_cast<long long>(nz),
                static_cast<double>(bytes) * 1e-9, reps);
    std::printf("| %-26s | %5s | %8s | %9s | %9s | %8s | %8s | %9s | %9s |\n", "block", "codec", "MB",
                "encode ms", "decode ms", "pack ms", "unpack ms", "enc GB/s", "dec GB/s");
    std::printf("|---|---|---|---|---|---|---|---|---|\n");
    for (const auto& sh : shapes) {
      const double values = static_cast<double>(sh.box.count());
      const Layout packed{sh.box, sh.order, {}};
      const double pack = median_ms(reps, [&] {
        dfft::detail::host_copy_box(a.data(), local, b.data(), packed, sh.box, elem);
      });
      const double unpack = median_ms(reps, [&] {
        dfft::detail::host_copy_box(b.data(), packed, a.data(), local, sh.box, elem);
      });
      for (Codec c : {Codec::fp32, Codec::fp16, Codec::bf16}) {
        const double wire = static_cast<double>(dfft::detail::wire_elem_bytes(c, elem));
        const double enc = median_ms(reps, [&] {
          dfft::detail::host_encode_box(a.data(), local, sh.box, sh.order, b.data(), c, true);
        });
        const double dec = median_ms(reps, [&] {
          dfft::detail::host_decode_box(b.data(), sh.order, a.data(), local, sh.box, c, true);
        });
        auto gbs = [&](double ms) { return ms > 0 ? values * (16 + wire) / ms * 1e-6 : 0.0; };
        std::printf("| %-26s | %5s | %8.1f | %9.3f | %9.3f | %8.3f | %9.3f | %9.1f | %9.1f |\n",
                    sh.name.c_str(), dfft::to_string(c).c_str(), values * elem * 1e-6, enc, dec, pack,
                    unpack, gbs(enc), gbs(dec));
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "host-codec-bench: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return 0;
}
