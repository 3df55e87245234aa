// SPDX-License-Identifier: MIT
// FFT/exchange overlap on the CUDA backend: FFT slices on the main stream, exchanges on the
// communication lane (second stream, communication thread). Overlapped plans equal plain ones
// to rounding and the serial reference, for every decomposition and the device methods, with
// slice counts 2, 3 and more slices than rows; online tuning settles and stays correct.
#include <complex>
#include <vector>

#include "dfft/validate.hpp"
#include "gpu_util.hpp"

namespace dfft_gpu {
namespace {

using dfft::Decomposition;
using dfft::Method;

class GpuOverlap : public GpuTest {};

template <class T>
double rel(const std::vector<T>& a, const std::vector<T>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    num = std::max(num, static_cast<double>(std::abs(a[i] - b[i])));
    den = std::max(den, static_cast<double>(std::abs(b[i])));
  }
  return max_over_ranks(num / (den > 0 ? den : 1));
}

// Forward and inverse of one plan on device buffers; results downloaded.
template <class T>
void run(dfft::Plan<T>& p, const std::vector<T>& in, std::vector<std::complex<T>>& out,
         std::vector<T>& back) {
  const std::size_t ib = in.size() * sizeof(T), ob = out.size() * sizeof(std::complex<T>);
  void* din = p.allocate(ib);
  void* dout = p.allocate(ob);
  void* dback = p.allocate(ib);
  p.upload(din, in.data(), ib);
  p.forward(static_cast<const T*>(din), static_cast<std::complex<T>*>(dout));
  p.inverse(static_cast<const std::complex<T>*>(dout), static_cast<T*>(dback));
  p.download(out.data(), dout, ob);
  p.download(back.data(), dback, ib);
  p.deallocate(din);
  p.deallocate(dout);
  p.deallocate(dback);
}

template <class T>
void compare(Decomposition dec, std::vector<Method> ms, const std::vector<std::int64_t>& shape, int slices) {
  dfft::Options o;
  o.backend = dfft::Backend::cuda;
  o.decomposition = dec;
  o.methods = ms;
  Outcome made = run_collective([&] { dfft::Plan<T> probe(MPI_COMM_WORLD, shape, o); });
  if (made.ranks_with_error) {  // e.g. nccl with two ranks on one GPU: refused clearly
    SUCCEED() << "refused: " << made.what;
    return;
  }
  dfft::Plan<T> plain(MPI_COMM_WORLD, shape, o);
  o.overlap = slices;
  dfft::Plan<T> ov(MPI_COMM_WORLD, shape, o);
  std::vector<T> in(static_cast<std::size_t>(plain.input_count()));
  for (std::size_t i = 0; i < in.size(); ++i)
    in[i] = static_cast<T>(std::sin(0.37 * static_cast<double>(i) + world_rank()));
  std::vector<std::complex<T>> want(static_cast<std::size_t>(plain.output_count())), got(want.size());
  std::vector<T> back_want(in.size()), back_got(in.size());
  run(plain, in, want, back_want);
  for (int rep = 0; rep < 3; ++rep) {  // repeated: buffers and events reused across calls
    run(ov, in, got, back_got);
    const double tol = std::is_same_v<T, double> ? 1e-12 : 2e-5;
    EXPECT_LE(rel(got, want), tol) << to_string(dec) << " " << to_string(ms[0]) << " slices " << slices;
    EXPECT_LE(rel(back_got, back_want), tol) << "inverse " << to_string(dec) << " " << to_string(ms[0]);
  }
  EXPECT_LE(max_over_ranks(dfft::validate::reference_error(ov, MPI_COMM_WORLD)), ref_tol<T>())
      << to_string(dec) << " " << to_string(ms[0]) << " slices " << slices;
}

TEST_F(GpuOverlap, EqualsPlainEveryDecompositionAndMethod) {
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil})
    for (auto m : {Method::nccl, Method::cuda_ipc, Method::a2a_sync, Method::p2p_sync,
                   Method::p2p_streams, Method::p2p_pipelined, Method::onesided})
      for (int slices : {2, 3, 64}) {
        compare<double>(dec, {m}, {17, 12, 10}, slices);
        compare<float>(dec, {m}, {15, 14, 9}, slices);
      }
}

TEST_F(GpuOverlap, LargerSizeSlabAndPencil) {
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::pencil})
    for (auto m : {Method::nccl, Method::cuda_ipc}) compare<float>(dec, {m}, {96, 80, 72}, 4);
}

// Tapered slices (DFFT_SLICE_TAPER=1: first and last slice half-sized) with the device-direct
// methods, 3, 4 and more slices than rows.
TEST_F(GpuOverlap, TaperedSlicesEqualPlain) {
  ASSERT_EQ(setenv("DFFT_SLICE_TAPER", "1", 1), 0);
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil})
    for (auto m : {Method::nccl, Method::cuda_ipc, Method::p2p_pipelined})
      for (int slices : {3, 4, 64}) {
        compare<double>(dec, {m}, {17, 12, 10}, slices);
        compare<float>(dec, {m}, {96, 80, 72}, slices);
      }
  unsetenv("DFFT_SLICE_TAPER");
}

// DFFT_OVERLAP_QUEUE=1: cuda-ipc and nccl queue every slice's exchange on the device
// (Transport::enqueue) and the communication thread never waits for the GPU; same results.
TEST_F(GpuOverlap, QueuedSlicesEqualPlain) {
  ASSERT_EQ(setenv("DFFT_OVERLAP_QUEUE", "1", 1), 0);
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil})
    for (auto m : {Method::nccl, Method::cuda_ipc})
      for (int slices : {2, 3, 64}) {
        compare<double>(dec, {m}, {17, 12, 10}, slices);
        compare<float>(dec, {m}, {96, 80, 72}, slices);
      }
  unsetenv("DFFT_OVERLAP_QUEUE");
}

TEST_F(GpuOverlap, AdaptSettlesAndStaysCorrect) {
  dfft::Options o;
  o.backend = dfft::Backend::cuda;
  o.decomposition = Decomposition::slab_2d1d;
  o.methods = {Method::a2a_sync};
  const std::vector<std::int64_t> shape{32, 30, 28};
  dfft::Plan<double> plain(MPI_COMM_WORLD, shape, o);
  o.adapt = true;
  dfft::Plan<double> p(MPI_COMM_WORLD, shape, o);
  std::vector<double> in(static_cast<std::size_t>(plain.input_count()));
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = std::cos(0.11 * static_cast<double>(i));
  std::vector<std::complex<double>> want(static_cast<std::size_t>(plain.output_count())), got(want.size());
  std::vector<double> bw(in.size()), bg(in.size());
  run(plain, in, want, bw);
  int calls = 0;
  while (p.adapting() && calls < 200) {
    run(p, in, got, bg);
    EXPECT_LE(rel(got, want), 1e-12) << "slices " << p.overlap_slices();
    calls += 2;
  }
  EXPECT_FALSE(p.adapting());
}

}  // namespace
}  // namespace dfft_gpu
