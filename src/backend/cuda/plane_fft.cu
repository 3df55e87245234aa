// SPDX-License-Identifier: MIT
// The plane kernel (plane_fft_core.hpp has the algorithm and why): a persistent grid of thread
// block clusters, each walking planes; within a plane its blocks share the rows and then the
// columns, with the cluster's barrier between the two.
#include <cooperative_groups.h>

#include <algorithm>

#include "backend/cuda/plane_fft.hpp"
#include "backend/cuda/plane_fft_core.hpp"
#include "backend/cuda/quadrant.cuh"

namespace dfft::detail::cuda {

namespace {

namespace cg = cooperative_groups;
using column_fft::Cplx;
namespace pf = plane_fft;

// The M-point DFTs of the batch of rows in shared memory, in place there.
template <class T, int L, int C>
__device__ void batch_dft(Cplx<T>* sh, int conj, double factor) {
  using S = pf::Shared<L, C>;
  constexpr int R1 = column_fft::r1_of(L - 1), R2 = column_fft::r2_of(L - 1);
  const column_fft::Geom b = pf::batch_geom<C>(conj, factor);
  const int c = threadIdx.x % C, t = threadIdx.x / C;
  const Quadrant q;
  column_fft::pass_one<T, R1, R2, C>(sh + S::region, sh + S::row_tile, sh + S::tw_rows, b, 0, c, t, q);
  __syncthreads();
  column_fft::pass_two<T, R1, R2, C>(sh + S::row_tile, sh + S::region, b, 0, c, t, q);
  __syncthreads();
}

// The column DFTs of the plane at `cplx` whose tiles fall to block `rank` of `blocks`.
template <class T, int L, int C, bool Uncached>
__device__ void columns(Cplx<T>* cplx, const pf::Geom& g, int conj, double factor, int rank, int blocks, Cplx<T>* sh) {
  using S = pf::Shared<L, C>;
  constexpr int R1 = column_fft::r1_of(L), R2 = column_fft::r2_of(L);
  const column_fft::Geom cg_ = pf::column_geom<L>(g, conj, factor);
  const int c = threadIdx.x % C, t = threadIdx.x / C;
  const Quadrant q;
  for (int tile = rank; tile < pf::column_tiles<L, C>(); tile += blocks) {
    column_fft::pass_one<T, R1, R2, C, Uncached>(cplx, sh + S::region, sh + S::tw_cols, cg_, tile, c, t, q);
    __syncthreads();
    column_fft::pass_two<T, R1, R2, C>(sh + S::region, cplx, cg_, tile, c, t, q);
    __syncthreads();
  }
}

template <class T, int L, bool Forward>
__global__ void __launch_bounds__(pf::threads<T>()) plane_fft_kernel(T* real, Cplx<T>* cplx, pf::Geom g) {
  constexpr int C = pf::columns<T>();
  extern __shared__ __align__(16) unsigned char raw[];
  auto* sh = reinterpret_cast<Cplx<T>*>(raw);
  pf::fill_tables<T, L, C>(sh, threadIdx.x, blockDim.x);
  __syncthreads();
  cg::cluster_group cluster = cg::this_cluster();
  const int blocks = static_cast<int>(cluster.num_blocks()), rank = static_cast<int>(cluster.block_rank());
  const std::int64_t first = blockIdx.x / blocks, step = gridDim.x / blocks;
  for (std::int64_t p = first; p < g.planes; p += step) {
    T* rp = real + p * g.real_plane;
    Cplx<T>* cp = cplx + p * g.cplx_plane;
    if constexpr (Forward) {
      constexpr int Threads = pf::threads<T>();
      Cplx<T> v[pf::per_thread<L, C, Threads>()];
      if (rank < pf::row_batches<L, C>()) pf::fetch_real_rows<T, L, C, Threads>(rp, g, rank * C, v, threadIdx.x);
      for (int j = rank; j < pf::row_batches<L, C>(); j += blocks) {
        pf::put_rows<T, L, C, Threads>(v, sh, threadIdx.x);
        __syncthreads();
        if (j + blocks < pf::row_batches<L, C>()) pf::fetch_real_rows<T, L, C, Threads>(rp, g, (j + blocks) * C, v, threadIdx.x);
        batch_dft<T, L, C>(sh, 1, 1.0);
        pf::store_spectra<T, L, C>(sh, cp, g, j * C, threadIdx.x, blockDim.x);
        __syncthreads();
      }
      cluster.sync();  // every row of the plane written (release/acquire at cluster scope)
      columns<T, L, C, true>(cp, g, 1, g.factor, rank, blocks, sh);
    } else {
      columns<T, L, C, false>(cp, g, -1, 1.0, rank, blocks, sh);
      cluster.sync();
      for (int j = rank; j < pf::row_batches<L, C>(); j += blocks) {
        pf::load_spectra<T, L, C, pf::threads<T>()>(cp, g, j * C, sh, threadIdx.x);
        __syncthreads();
        batch_dft<T, L, C>(sh, -1, g.factor);
        pf::store_real_rows<T, L, C>(sh, rp, g, j * C, threadIdx.x, blockDim.x);
        __syncthreads();
      }
    }
  }
}

template <class T, int L, bool Forward>
cudaError_t launch_one(T* real, Cplx<T>* cplx, const pf::Geom& g, const PlaneLaunch& how, cudaStream_t s) {
  constexpr std::size_t smem = pf::Shared<L, pf::columns<T>()>::elems * sizeof(Cplx<T>);
  auto* k = plane_fft_kernel<T, L, Forward>;
  cudaError_t e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  if (e == cudaSuccess) e = cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  if (e != cudaSuccess) return e;
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = static_cast<unsigned>(how.cluster);
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  cfg.blockDim = dim3(pf::threads<T>());
  cfg.dynamicSmemBytes = smem;
  cfg.stream = s;
  // The cluster size asked for, or the largest this GPU co-schedules for the kernel if smaller.
  int widest = 0, most = 0;
  cfg.gridDim = dim3(static_cast<unsigned>(how.cluster));
  if ((e = cudaOccupancyMaxPotentialClusterSize(&widest, k, &cfg)) != cudaSuccess) return e;
  if (widest < 1) return cudaErrorInvalidConfiguration;
  const int cluster = std::min(how.cluster, widest);
  attr[0].val.clusterDim.x = static_cast<unsigned>(cluster);
  cfg.gridDim = dim3(static_cast<unsigned>(cluster));
  if ((e = cudaOccupancyMaxActiveClusters(&most, k, &cfg)) != cudaSuccess) return e;
  if (most < 1) return cudaErrorInvalidConfiguration;
  const std::int64_t clusters = std::min<std::int64_t>({g.planes, how.clusters > 0 ? how.clusters : most, most});
  cfg.gridDim = dim3(static_cast<unsigned>(clusters * cluster));
  return cudaLaunchKernelEx(&cfg, k, real, cplx, g);
}

template <class T, bool Forward>
cudaError_t by_length(void* real, void* cplx, const pf::Geom& g, int log2n, const PlaneLaunch& how, cudaStream_t s) {
  static_assert(pf::kMinLog2 == 8 && pf::kMaxLog2 == 10, "one case per length built");
  auto* r = static_cast<T*>(real);
  auto* c = static_cast<Cplx<T>*>(cplx);
  switch (log2n) {
    case 8: return launch_one<T, 8, Forward>(r, c, g, how, s);
    case 9: return launch_one<T, 9, Forward>(r, c, g, how, s);
    case 10: return launch_one<T, 10, Forward>(r, c, g, how, s);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace

cudaError_t launch_plane_fft(void* real, void* cplx, const plane_fft::Geom& g, int log2n, bool is_double, bool forward,
                             const PlaneLaunch& how, cudaStream_t s) {
  if (g.planes == 0) return cudaSuccess;
  if (is_double)
    return forward ? by_length<double, true>(real, cplx, g, log2n, how, s) : by_length<double, false>(real, cplx, g, log2n, how, s);
  return forward ? by_length<float, true>(real, cplx, g, log2n, how, s) : by_length<float, false>(real, cplx, g, log2n, how, s);
}

std::int64_t plane_fft_shared_bytes(int log2n, bool is_double) {
  auto bytes = [](auto shared, std::size_t elem) { return static_cast<std::int64_t>(decltype(shared)::elems * elem); };
  switch (log2n) {
    case 8: return is_double ? bytes(pf::Shared<8, pf::columns<double>()>{}, 16) : bytes(pf::Shared<8, pf::columns<float>()>{}, 8);
    case 9: return is_double ? bytes(pf::Shared<9, pf::columns<double>()>{}, 16) : bytes(pf::Shared<9, pf::columns<float>()>{}, 8);
    case 10: return is_double ? bytes(pf::Shared<10, pf::columns<double>()>{}, 16) : bytes(pf::Shared<10, pf::columns<float>()>{}, 8);
    default: return -1;
  }
}

}  // namespace dfft::detail::cuda
