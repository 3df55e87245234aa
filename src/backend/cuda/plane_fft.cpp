// SPDX-License-Identifier: MIT
// An r2c or c2r step of two axes run by dfft's plane kernel (plane_fft.cu): the step's layouts
// described as cuFFT's would be (cufft_layout.hpp) must be one batch of square planes whose rows
// are contiguous. Which of it and cuFFT is faster is timed under Effort::measure (timed_fft.hpp).
#include "backend/cuda/plane_fft.hpp"

#include <cstdlib>
#include <string>

#include "backend/cuda/cuda_device.hpp"
#include "backend/cuda/cufft_layout.hpp"
#include "backend/cuda/r2r.hpp"

namespace dfft::detail {

namespace {

// log2 of a length the plane kernel is built for (a subset of the column kernel's), else -1.
int plane_log2(long long n) {
  const int l = column_fft::supported_log2(n);
  return l >= plane_fft::kMinLog2 && l <= plane_fft::kMaxLog2 ? l : -1;
}

// The launch geometry of `d` from its cuFFT description; planes 0 where the kernel cannot run it.
plane_fft::Geom geom_of(const FftDesc& d, const CufftMapping& m, int& log2n) {
  plane_fft::Geom g;
  log2n = -1;
  if ((d.kind != FftDesc::Kind::r2c && d.kind != FftDesc::Kind::c2r) || d.real || has_r2r_axis(d)) return g;
  if (!m.ok || m.n.size() != 2 || m.n[0] != m.n[1] || m.istride != 1 || m.ostride != 1 || m.loops.size() != 1) return g;
  log2n = plane_log2(m.n[0]);
  if (log2n < 0) return g;
  const bool fwd = d.kind == FftDesc::Kind::r2c;
  g.real_row = fwd ? m.inembed[1] : m.onembed[1];
  g.real_plane = fwd ? m.idist : m.odist;
  g.cplx_row = fwd ? m.onembed[1] : m.inembed[1];
  g.cplx_plane = fwd ? m.odist : m.idist;
  g.factor = d.scale;
  // Rows read and written as pairs of reals: an even row length keeps them aligned.
  if (g.real_row % 2 != 0 || g.real_plane % 2 != 0) return g;
  g.planes = m.batch;
  return g;
}

bool device_fits(const CudaDevice& dev, int log2n, bool is_double) {
  int major = 0, shared = 0;
  DFFT_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev.ordinal()));
  DFFT_CUDA(cudaDeviceGetAttribute(&shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev.ordinal()));
  return major >= 9 && cuda::plane_fft_shared_bytes(log2n, is_double) <= shared;
}

// DFFT_PLANE_LAUNCH="K" or "K,CLUSTERS" (docs/environment.md): the launch shape, for measurements.
cuda::PlaneLaunch launch_of(int log2n, bool is_double) {
  cuda::PlaneLaunch how{plane_cluster_size(log2n, is_double), 0};
  if (const char* v = std::getenv("DFFT_PLANE_LAUNCH"); v && *v) {
    char* end = nullptr;
    const long k = std::strtol(v, &end, 10);
    if (k >= 1 && k <= 16) how.cluster = static_cast<int>(k);
    if (end && *end == ',') how.clusters = std::strtoll(end + 1, nullptr, 10);
  }
  return how;
}

class PlaneFft final : public LocalFft {
 public:
  PlaneFft(const FftDesc& d, CudaDevice& dev)
      : dev_(dev), forward_(d.kind == FftDesc::Kind::r2c), is_double_(d.is_double),
        in_elem_(static_cast<std::int64_t>(elem_in(d))), out_elem_(static_cast<std::int64_t>(elem_out(d))) {
    const CufftMapping m = map_layouts(d, d.in, d.out);
    g_ = geom_of(d, m, log2n_);
    if (g_.planes == 0 || !device_fits(dev, log2n_, is_double_)) fail_internal("the plane kernel does not apply to this FFT step");
    in_off_ = m.loops[0].first;
    out_off_ = m.loops[0].second;
    how_ = launch_of(log2n_, is_double_);
    stream_ = dev.stream();
  }

  bool scales() const override { return true; }
  std::string engine() const override { return "dfft's plane kernel"; }

  void execute(void* in, void* out) override {
    dev_.activate();
    auto* i = static_cast<char*>(in) + in_off_ * in_elem_;
    auto* o = static_cast<char*>(out) + out_off_ * out_elem_;
    DFFT_CUDA(cuda::launch_plane_fft(forward_ ? i : o, forward_ ? o : i, g_, log2n_, is_double_, forward_, how_, stream_));
  }

 private:
  CudaDevice& dev_;
  bool forward_, is_double_;
  std::int64_t in_elem_, out_elem_;  // bytes of an input and of an output element
  plane_fft::Geom g_;
  int log2n_ = -1;
  std::int64_t in_off_ = 0, out_off_ = 0;
  cuda::PlaneLaunch how_;
  cudaStream_t stream_ = nullptr;
};

}  // namespace

int plane_cluster_size(int log2n, bool is_double) {
  const int c = is_double ? plane_fft::columns<double>() : plane_fft::columns<float>();
  const int rows = (1 << log2n) / c, tiles = ((1 << log2n) / 2 + 1 + c - 1) / c;
  auto efficiency = [&](int k) { return double(rows + tiles) / (k * ((rows + k - 1) / k + (tiles + k - 1) / k)); };
  // From 8 blocks a cluster: more clusters would hold more planes than the L2 keeps.
  int best = 8;
  for (int k = 9; k <= 16; ++k)
    if (efficiency(k) > efficiency(best)) best = k;
  for (int k = 16; k > best; --k)
    if (efficiency(k) >= 0.97 * efficiency(best)) return k;
  return best;
}

bool plane_fft_applies(const FftDesc& d, const CudaDevice& dev) {
  int log2n = -1;
  const plane_fft::Geom g = geom_of(d, map_layouts(d, d.in, d.out), log2n);
  return g.planes > 0 && device_fits(dev, log2n, d.is_double);
}

std::unique_ptr<LocalFft> make_plane_fft(const FftDesc& d, CudaDevice& dev) { return std::make_unique<PlaneFft>(d, dev); }

}  // namespace dfft::detail
