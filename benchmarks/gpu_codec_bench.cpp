// SPDX-License-Identifier: MIT
// gpu-codec-bench: the GPU codec kernels (encode = pack + narrow, decode = widen + unpack,
// src/backend/cuda/codec.cu) against the plain copy kernel on the same blocks, one GPU. The local
// array is a 2-rank slab of an n^3 r2c transform in double: (n/2) x n x (n/2+1) complex values.
// Blocks: the block a slab exchange sends to the other rank (a run of whole z-rows per x-plane),
// a 1-D partition (contiguous) and short runs (3-D partition). Bandwidth = bytes read + written
// per time (encode fp32: 16 + 8 per value; decode: 8 + 16; copy: 16 + 16).
// Usage: gpu-codec-bench [n] [reps] (default 1024 20).
#include <cuda_runtime.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "backend/cuda/codec.hpp"
#include "backend/cuda/cuda_device.hpp"
#include "codec/codec.hpp"
#include "gpu_bench_util.hpp"

namespace {

using dfft::Box;
using dfft::Codec;
using dfft::Layout;

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 1024;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 20;
  if (!gpubench::gpu_present("gpu-codec-bench")) {
    MPI_Finalize();
    return 0;
  }
  try {
    dfft::detail::CudaDevice dev(MPI_COMM_SELF, -1);
    const std::int64_t nz = n / 2 + 1, nx = n / 2;
    const Layout local{{{0, 0, 0}, {nx, n, nz}}, {0, 1, 2}, {}};
    const std::size_t elem = 16;  // complex double
    const std::size_t bytes = static_cast<std::size_t>(local.alloc_count()) * elem;
    void* a = dev.alloc(bytes);
    void* b = dev.alloc(bytes);
    DFFT_CUDA(cudaMemset(a, 0, bytes));
    struct Shape {
      std::string name;
      Box box;
    };
    const std::vector<Shape> shapes{
        {"slab block (z-rows per x)", {{0, n / 2, 0}, {nx, n, nz}}},
        {"1-D partition (contiguous)", {{0, 0, 0}, {nx / 2, n, nz}}},
        {"3-D partition (short runs)", {{0, 0, 0}, {nx, n / 2, nz / 2}}},
    };
    const std::vector<int> order{0, 1, 2};
    const cudaStream_t s = dev.stream();
    auto time = [&](auto&& f) {
      return gpubench::time_ms(s, reps, [&] {
        f();
        return true;
      });
    };
    std::printf("gpu-codec-bench: %s, local array %lldx%lldx%lld complex double (%.2f GB), median of %d\n",
                dev.name().c_str(), static_cast<long long>(nx), static_cast<long long>(n),
                static_cast<long long>(nz), static_cast<double>(bytes) * 1e-9, reps);
    std::printf("%-28s %9s %11s %11s %11s %11s %10s %10s %10s %10s\n", "block", "MB", "encode ms", "decode ms",
                "pack ms", "unpack ms", "enc GB/s", "dec GB/s", "pack GB/s", "unp GB/s");
    for (const auto& sh : shapes) {
      const double values = static_cast<double>(sh.box.count());
      const Layout packed{sh.box, order, {}};
      const double enc = time([&] {
        DFFT_CUDA(dfft::detail::cuda::encode_box_async(a, local, sh.box, order, b, Codec::fp32, true, s));
      });
      const double dec = time([&] {
        DFFT_CUDA(dfft::detail::cuda::decode_box_async(b, order, a, local, sh.box, Codec::fp32, true, s));
      });
      const double pack = time([&] { dev.copy_box_async(a, local, b, packed, sh.box, elem, s); });
      const double unpack = time([&] { dev.copy_box_async(b, packed, a, local, sh.box, elem, s); });
      auto gbs = [&](double per_value, double ms) { return ms > 0 ? values * per_value / ms * 1e-6 : 0.0; };
      std::printf("%-28s %9.1f %11.3f %11.3f %11.3f %11.3f %10.0f %10.0f %10.0f %10.0f\n", sh.name.c_str(),
                  values * elem * 1e-6, enc, dec, pack, unpack, gbs(24, enc), gbs(24, dec), gbs(32, pack),
                  gbs(32, unpack));
    }
    dev.release(a);
    dev.release(b);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu-codec-bench: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return 0;
}
