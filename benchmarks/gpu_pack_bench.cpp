// SPDX-License-Identifier: MIT
// gpu-pack-bench: the copy kernel (CudaDevice::copy_box_async) against the copy engines
// (cudaMemcpyAsync / 2DAsync / 3DAsync, CudaDevice::copy_box_dma_async) for the partition shapes
// of packing and unpacking, on one GPU. The shapes follow the thesis' classification by how
// many axes of the local array a block cuts:
//   1-D partition: cut along the slowest axis only: one contiguous run      (cudaMemcpy)
//   2-D partition: cut along the slowest and the middle axis: a run per plane (cudaMemcpy2D)
//   3-D partition: cut along every axis: short runs, rows of planes          (cudaMemcpy3D)
//   transposed:    the block written in another memory order (Realigned's 1-D partitions
//                  and the pencil exchanges): the copy engines cannot, only the kernel.
// Every block is copied from a local array into a packed buffer (pack) and back (unpack), for
// P = 2 and 4 pieces per cut axis. Prints a table: block bytes, median time of each way and its
// bandwidth (block bytes read + written / time). Usage: gpu-pack-bench [N] [reps] (default 512 20).
#include <cuda_runtime.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "backend/cuda/cuda_device.hpp"
#include "backend/cuda/check.hpp"
#include "gpu_bench_util.hpp"

namespace {

using dfft::Box;
using dfft::Layout;
using dfft::detail::CudaDevice;

struct Shape {
  std::string name;
  Box block;
  Layout packed;  // the packed block's layout (memory order of the destination)
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 512;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 20;
  if (!gpubench::gpu_present("gpu-pack-bench")) {
    MPI_Finalize();
    return 0;
  }
  try {
    CudaDevice dev(MPI_COMM_SELF, -1);
    const std::size_t elem = 8;  // complex float
    // The local array: the full n x n x (n/2+1) complex grid of an r2c transform on one rank.
    const std::int64_t nz = n / 2 + 1;
    const Layout local{{{0, 0, 0}, {n, n, nz}}, {0, 1, 2}, {}};
    const std::size_t bytes = static_cast<std::size_t>(local.alloc_count()) * elem;
    void* a = dev.alloc(bytes);
    void* b = dev.alloc(bytes);
    DFFT_CUDA(cudaMemset(a, 0, bytes));
    std::vector<Shape> shapes;
    for (std::int64_t p : {2, 4}) {
      const std::string tag = " P=" + std::to_string(p);
      const Box one{{0, 0, 0}, {n / p, n, nz}};
      const Box two{{0, 0, 0}, {n / p, n / p, nz}};
      const Box three{{0, 0, 0}, {n / p, n / p, nz / p}};
      shapes.push_back({"1-D partition" + tag, one, {one, {0, 1, 2}, {}}});
      shapes.push_back({"2-D partition" + tag, two, {two, {0, 1, 2}, {}}});
      shapes.push_back({"3-D partition" + tag, three, {three, {0, 1, 2}, {}}});
      shapes.push_back({"2-D, transposed" + tag, two, {two, {2, 0, 1}, {}}});
    }
    const cudaStream_t s = dev.stream();
    std::printf("gpu-pack-bench: %s, local array %lldx%lldx%lld complex float (%.2f GB), median of %d\n",
                dev.name().c_str(), static_cast<long long>(n), static_cast<long long>(n),
                static_cast<long long>(nz), static_cast<double>(bytes) * 1e-9, reps);
    std::printf("%-22s %-6s %10s %12s %12s %12s %12s %9s\n", "shape", "way", "block MB", "kernel ms",
                "engine ms", "kernel GB/s", "engine GB/s", "faster");
    for (const auto& sh : shapes)
      for (int way = 0; way < 2; ++way) {  // 0: pack (local -> packed), 1: unpack
        const Layout& from = way == 0 ? local : sh.packed;
        const Layout& to = way == 0 ? sh.packed : local;
        const void* src = way == 0 ? a : b;
        void* dst = way == 0 ? b : a;
        auto time = [&](bool engine) -> double {
          return gpubench::time_ms(s, reps, [&] {
            if (engine) return dev.copy_box_dma_async(src, from, dst, to, sh.block, elem, s);
            dev.copy_box_async(src, from, dst, to, sh.block, elem, s);
            return true;
          });
        };
        const double k = time(false), d = time(true);
        const double mb = static_cast<double>(sh.block.count()) * elem * 1e-6;
        auto bw = [&](double ms) { return ms > 0 ? 2 * mb / ms : 0.0; };  // MB/ms = GB/s
        char dms[32] = "-", dbw[32] = "-";
        if (d > 0) {
          std::snprintf(dms, sizeof dms, "%.3f", d);
          std::snprintf(dbw, sizeof dbw, "%.0f", bw(d));
        }
        std::printf("%-22s %-6s %10.1f %12.3f %12s %12.0f %12s %9s\n", sh.name.c_str(), way ? "unpack" : "pack",
                    mb, k, dms, bw(k), dbw, d <= 0 ? "kernel*" : (d < k ? "engine" : "kernel"));
      }
    std::printf("(kernel*: the copy engines cannot do this shape)\n");
    dev.release(a);
    dev.release(b);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu-pack-bench: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return 0;
}
