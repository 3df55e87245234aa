// SPDX-License-Identifier: MIT
// An FFT step run by dfft's column kernel (column_fft.cu): the layouts are described as cuFFT's
// would be (cufft_layout.hpp), and the kernel runs where that description is one axis whose
// batch members sit side by side in both arrays; its loops become launches (column_launches).
// Where a step could run on either, which is faster depends on the length, the strides and the
// GPU (one H200: the kernel ahead at 1024 along the slowest axis, cuFFT at 512 in double), so
// under Effort::measure both are timed once per problem in the process (timed_fft.hpp).
#include "backend/cuda/column_fft.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "backend/cuda/cuda_device.hpp"
#include "backend/cuda/cufft_layout.hpp"
#include "backend/cuda/r2r.hpp"
#include "backend/split_fft.hpp"
#include "backend/timed_fft.hpp"

namespace dfft::detail {

namespace {

bool is_complex_step(const FftDesc& d) {
  return (d.kind == FftDesc::Kind::forward || d.kind == FftDesc::Kind::backward) && !d.real && !has_r2r_axis(d);
}

// The description the kernel runs: the step's own layouts (no temporaries), one FFT axis of a
// built length, batch members adjacent on both sides and no further apart than a row.
bool runs_directly(const FftDesc& d, const CufftMapping& m) {
  return m.ok && m.n.size() == 1 && column_fft::supported_log2(m.n[0]) >= 0 && m.idist == 1 && m.odist == 1 &&
         m.batch <= m.istride && m.batch <= m.ostride && !d.in.box.empty() && !d.out.box.empty();
}

// Columns per block for this step on `dev`'s GPU (0: its shared memory holds no tile).
int width_on(const FftDesc& d, const CufftMapping& m, const CudaDevice& dev) {
  int max_shared = 0;
  DFFT_CUDA(cudaDeviceGetAttribute(&max_shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev.ordinal()));
  return cuda::column_fft_width(column_fft::supported_log2(m.n[0]), d.is_double, max_shared);
}

class ColumnFft final : public LocalFft {
 public:
  ColumnFft(const FftDesc& d, CudaDevice& dev) : dev_(dev) {
    const CufftMapping m = map_layouts(d, d.in, d.out);
    if (!is_complex_step(d) || !runs_directly(d, m) || (width_ = width_on(d, m, dev)) == 0)
      fail_internal("the column kernel does not apply to this FFT step");
    is_double_ = d.is_double;
    log2n_ = column_fft::supported_log2(m.n[0]);
    g_.columns = m.batch;
    g_.istride = m.istride;
    g_.ostride = m.ostride;
    g_.conj = d.kind == FftDesc::Kind::backward ? -1 : 1;
    g_.factor = d.scale;
    launches_ = column_launches(m);
    stream_ = dev.stream();  // as a cuFFT plan is bound to the stream it was planned on
  }

  bool scales() const override { return true; }
  std::string engine() const override { return "dfft's column kernel"; }

  void execute(void* in, void* out) override {
    dev_.activate();
    const std::int64_t elem = is_double_ ? 16 : 8;
    for (const ColumnLaunch& l : launches_) {
      column_fft::Geom g = g_;
      g.outer = l.count;
      g.outer_istride = l.istep;
      g.outer_ostride = l.ostep;
      DFFT_CUDA(cuda::launch_column_fft(static_cast<const char*>(in) + l.in * elem, static_cast<char*>(out) + l.out * elem,
                                        g, log2n_, is_double_, width_, stream_));
    }
  }

 private:
  CudaDevice& dev_;
  std::vector<ColumnLaunch> launches_;
  column_fft::Geom g_;
  int log2n_ = 0, width_ = 0;
  bool is_double_ = false;
  cudaStream_t stream_ = nullptr;
};

// Seconds of one execution on the plan's scratch buffers: the best of three after a warm-up.
double seconds(LocalFft& f, CudaDevice& dev, void* in, void* out) {
  Event e0(true), e1(true);
  const cudaStream_t s = dev.stream();
  f.execute(in, out);
  float best = std::numeric_limits<float>::infinity();
  for (int rep = 0; rep < 3; ++rep) {
    e0.record(s);
    f.execute(in, out);
    e1.record(s);
    DFFT_CUDA(cudaEventSynchronize(e1.get()));
    float ms = 0;
    DFFT_CUDA(cudaEventElapsedTime(&ms, e0.get(), e1.get()));
    best = std::min(best, ms);
  }
  return best * 1e-3;
}

}  // namespace

std::vector<ColumnLaunch> column_launches(const CufftMapping& m) {
  std::vector<ColumnLaunch> v;
  for (const auto& [i, o] : m.loops) {
    if (!v.empty()) {
      ColumnLaunch& b = v.back();
      if (b.count == 1) {
        b.istep = i - b.in;
        b.ostep = o - b.out;
        b.count = 2;
        continue;
      }
      if (i == b.in + b.count * b.istep && o == b.out + b.count * b.ostep) {
        ++b.count;
        continue;
      }
    }
    v.push_back({i, o, 1, 0, 0});
  }
  return v;
}

bool column_fft_applies(const FftDesc& d, const CudaDevice& dev) {
  if (!is_complex_step(d)) return false;
  const CufftMapping m = map_layouts(d, d.in, d.out);
  return runs_directly(d, m) && width_on(d, m, dev) > 0;
}

std::unique_ptr<LocalFft> make_column_fft(const FftDesc& d, CudaDevice& dev) {
  return std::make_unique<ColumnFft>(d, dev);
}

std::optional<ColumnSplit> column_split(const FftDesc& d, const CudaDevice& dev) {
  if (d.axes.size() < 2 || d.real || has_r2r_axis(d) || d.kind == FftDesc::Kind::c2r) return std::nullopt;
  // The FFT axis slowest in the output's memory order; an r2c's halved axis stays with cuFFT.
  const int slow = slowest_fft_axis(d.axes, d.out.order);
  if (d.kind == FftDesc::Kind::r2c && slow == d.axes.back()) return std::nullopt;
  ColumnSplit s{d, d};
  s.rest.axes.erase(std::find(s.rest.axes.begin(), s.rest.axes.end(), slow));
  s.rest.scale = 1;
  s.rest.scale_on_load = false;
  s.rest.engine = FftDesc::Engine::automatic;
  s.column.kind = d.kind == FftDesc::Kind::backward ? FftDesc::Kind::backward : FftDesc::Kind::forward;
  s.column.axes = {slow};
  s.column.in = d.out;
  s.column.scale_on_load = false;
  s.column.engine = FftDesc::Engine::own;
  if (!column_fft_applies(s.column, dev)) return std::nullopt;
  return s;
}

std::unique_ptr<LocalFft> make_split_fft(const ColumnSplit& s, CudaDevice& dev, void* scratch_in, void* scratch_out) {
  auto rest = dev.make_fft(s.rest, scratch_in, scratch_out);
  auto column = make_column_fft(s.column, dev);
  // The passes in order: "cuFFT over (2), then dfft's column kernel over (1), then ... over (0)".
  std::string name = rest->engine();
  if (name.find(", then ") == std::string::npos)
    name = (name.empty() ? std::string("cuFFT") : name) + " over (" + axes_text(s.rest.axes) + ")";
  name += ", then " + column->engine() + " over (" + std::to_string(s.column.axes[0]) + ")";
  return std::make_unique<SplitFft>(std::move(rest), std::move(column), false, name);
}

std::unique_ptr<LocalFft> timed_cuda_fft(const FftDesc& d, CudaDevice& dev, void* in, void* out, const std::string& choice,
                                         const FftMaker& library_fft, const FftMaker& own_fft) {
  return faster_fft(fft_problem_key(dev, d) + " " + choice, "cuFFT", library_fft, own_fft,
                    [&](LocalFft& f) { return seconds(f, dev, in, out); });
}

}  // namespace dfft::detail
