// SPDX-License-Identifier: MIT
// The column FFT kernel (column_fft_core.hpp has the algorithm). A thread block stays resident
// and walks tiles of columns, so that it fills its table of twiddles once; each tile is one
// read of its columns into registers, one exchange through shared memory, one scaled write.
#include <algorithm>

#include "backend/cuda/column_fft.hpp"
#include "backend/cuda/quadrant.cuh"

namespace dfft::detail::cuda {

namespace {

using column_fft::Cplx;
using column_fft::Geom;


// `Grouped`: the launch covers several groups of columns (Geom::outer > 1). A launch of one
// group has a kernel of its own without the group arithmetic: folded into one kernel, it made the
// one-group launch 6% (float) and 12% (double) slower at 1024 along x on an H200.
template <class T, int L, int C, bool Grouped>
__global__ void __launch_bounds__(C * column_fft::r2_of(L))
    column_fft_kernel(const Cplx<T>* in, Cplx<T>* out, Geom g, std::int64_t tiles) {
  constexpr int R1 = column_fft::r1_of(L), R2 = column_fft::r2_of(L), N = 1 << L;
  extern __shared__ __align__(16) unsigned char raw[];
  auto* sh = reinterpret_cast<Cplx<T>*>(raw);
  Cplx<T>* tw = sh + column_fft::tile_elems<R1, R2, C>();
  for (int m = threadIdx.x; m < N; m += blockDim.x) tw[m] = column_fft::twiddle<T>(m, N);
  __syncthreads();
  const int c = threadIdx.x % C, t = threadIdx.x / C;
  const Quadrant q;
  for (std::int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    if constexpr (Grouped) {
      std::int64_t group, within;
      column_fft::tile_in_group<C>(g, tile, group, within);
      column_fft::pass_one<T, R1, R2, C>(in + group * g.outer_istride, sh, tw, g, within, c, t, q);
      __syncthreads();
      column_fft::pass_two<T, R1, R2, C>(sh, out + group * g.outer_ostride, g, within, c, t, q);
    } else {
      column_fft::pass_one<T, R1, R2, C>(in, sh, tw, g, tile, c, t, q);
      __syncthreads();
      column_fft::pass_two<T, R1, R2, C>(sh, out, g, tile, c, t, q);
    }
    __syncthreads();  // the next tile's first pass overwrites the tile
  }
}

template <class T, int L, int C>
cudaError_t launch(const void* in, void* out, const Geom& g, cudaStream_t s) {
  constexpr int R1 = column_fft::r1_of(L), R2 = column_fft::r2_of(L), N = 1 << L;
  constexpr int threads = C * R2;
  constexpr std::size_t smem = (column_fft::tile_elems<R1, R2, C>() + N) * sizeof(Cplx<T>);
  static_assert(smem == column_fft::shared_bytes(L, C, sizeof(Cplx<T>)), "one count of the shared memory");
  auto* k = g.outer == 1 ? column_fft_kernel<T, L, C, false> : column_fft_kernel<T, L, C, true>;
  cudaError_t e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  if (e != cudaSuccess) return e;
  int dev = 0, sms = 0, per_sm = 0;
  if ((e = cudaGetDevice(&dev)) != cudaSuccess) return e;
  if ((e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess) return e;
  if ((e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, threads, smem)) != cudaSuccess) return e;
  if (per_sm < 1) return cudaErrorInvalidConfiguration;
  const std::int64_t tiles = column_fft::tile_count<C>(g);
  const auto blocks = static_cast<unsigned>(std::min<std::int64_t>(tiles, std::int64_t{sms} * per_sm));
  k<<<blocks, threads, smem, s>>>(static_cast<const Cplx<T>*>(in), static_cast<Cplx<T>*>(out), g, tiles);
  return cudaGetLastError();
}

template <class T, int C>
cudaError_t by_length(const void* in, void* out, const Geom& g, int log2n, cudaStream_t s) {
  static_assert(column_fft::kMinLog2 == 6 && column_fft::kMaxLog2 == 11, "one case per length built");
  switch (log2n) {
    case 6: return launch<T, 6, C>(in, out, g, s);
    case 7: return launch<T, 7, C>(in, out, g, s);
    case 8: return launch<T, 8, C>(in, out, g, s);
    case 9: return launch<T, 9, C>(in, out, g, s);
    case 10: return launch<T, 10, C>(in, out, g, s);
    case 11: return launch<T, 11, C>(in, out, g, s);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace

int column_fft_width(int log2n, bool is_double, std::int64_t max_shared) {
  const int elem = is_double ? 16 : 8;
  const int wide = is_double ? column_fft::wide_columns<double>() : column_fft::wide_columns<float>();
  const int narrow = is_double ? column_fft::narrow_columns<double>() : column_fft::narrow_columns<float>();
  for (int c : {wide, narrow})
    if (column_fft::shared_bytes(log2n, c, elem) <= max_shared) return c;
  return 0;
}

cudaError_t launch_column_fft(const void* in, void* out, const Geom& g, int log2n, bool is_double, int columns,
                              cudaStream_t s) {
  if (g.columns == 0 || g.outer == 0) return cudaSuccess;
  if (is_double) {
    if (columns == column_fft::wide_columns<double>())
      return by_length<double, column_fft::wide_columns<double>()>(in, out, g, log2n, s);
    if (columns == column_fft::narrow_columns<double>())
      return by_length<double, column_fft::narrow_columns<double>()>(in, out, g, log2n, s);
  } else {
    if (columns == column_fft::wide_columns<float>())
      return by_length<float, column_fft::wide_columns<float>()>(in, out, g, log2n, s);
    if (columns == column_fft::narrow_columns<float>())
      return by_length<float, column_fft::narrow_columns<float>()>(in, out, g, log2n, s);
  }
  return cudaErrorInvalidValue;
}

}  // namespace dfft::detail::cuda
