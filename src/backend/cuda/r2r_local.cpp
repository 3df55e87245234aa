// SPDX-License-Identifier: MIT
// A CUDA FFT step with DCT/DST axes. The periodic axes run first, from the step's input to its
// output, through the ordinary cuFFT step (c2c, r2c or c2r); then each DCT/DST axis runs in
// place on the output (the first one from the input when there is no periodic axis): pre kernel
// into a work buffer, one batched cuFFT transform (backend/r2r_via_fft.hpp says which, of what length),
// post kernel out. The pre kernel has read everything before the post kernel writes (same stream),
// so in place is safe. One axis at a time keeps the cuFFT plans 1-D and their batch layout
// trivial whatever the step's memory orders.
#include <algorithm>
#include <vector>

#include "backend/cuda/cuda_device.hpp"
#include "backend/cuda/live_counts.hpp"
#include "backend/cuda/r2r.hpp"

namespace dfft::detail {

bool has_r2r_axis(const FftDesc& d) {
  if (d.r2r.empty()) return false;
  return std::any_of(d.axes.begin(), d.axes.end(), [&](int a) { return d.r2r[a] != R2R::none; });
}

r2r::LineGeom make_line_geom(const Layout& src, const Layout& dst, int axis, bool real, R2R kind) {
  r2r::LineGeom g;
  const std::int64_t m = real ? 1 : 2;  // reals per element
  const auto ss = src.strides(), ds = dst.strides();
  g.parts = m;
  g.n = src.box.extent(axis);
  g.xs = m * ss[axis];
  g.ys = m * ds[axis];
  // The planner refuses these first (check_r2r); a line geometry of one would run a DCT of type 0.
  if (r2r_is_fftw_only(kind)) unsupported("r2r kind ", to_string(kind), " on the CUDA backend");
  g.trig = r2r_is_sine(kind) ? r2r::kSin : r2r::kCos;
  g.type = r2r_type(kind);
  g.lines = m;
  for (int a : src.order) {  // slowest first: the fastest batch axis varies fastest over lines
    if (a == axis || src.box.extent(a) == 1) continue;
    if (g.dims == r2r::kMaxLineDims)
      unsupported("DCT/DST on the CUDA backend: more than ", r2r::kMaxLineDims, " batch axes");
    g.ext[g.dims] = src.box.extent(a);
    g.is[g.dims] = m * ss[a];
    g.os[g.dims] = m * ds[a];
    g.lines *= src.box.extent(a);
    ++g.dims;
  }
  // Interleaved work buffers unless the transformed axis is the fastest one in memory.
  g.rows = g.xs == m || g.lines == m;
  return g;
}

R2rSchedule schedule_r2r(const FftDesc& d) {
  R2rSchedule s;
  for (int a = 0; a < d.in.box.dims(); ++a)
    if (d.in.box.extent(a) == 0 || d.out.box.extent(a) == 0) return s;  // nothing local
  for (int a : d.axes)
    if (d.r2r[a] == R2R::none) s.periodic.push_back(a);
  if (d.real && !s.periodic.empty()) fail_internal("periodic axes in a real-data DCT/DST step");
  const bool halved = d.kind == FftDesc::Kind::r2c || d.kind == FftDesc::Kind::c2r;
  if (halved && s.periodic.empty()) fail_internal("an r2c/c2r step without periodic axes");
  // After a c2r the data are real.
  const bool real = d.real || d.kind == FftDesc::Kind::c2r;
  bool from_in = s.periodic.empty();
  for (int a : d.axes) {
    if (d.r2r[a] == R2R::none) continue;
    s.lines.push_back(make_line_geom(from_in ? d.in : d.out, d.out, a, real, d.r2r[a]));
    from_in = false;
  }
  return s;
}

namespace {

struct Plans {
  std::vector<cufftHandle> v;
  ~Plans() {
    for (auto h : v) live_released(Live::cufft_plan, cufftDestroy(h));
  }
};
struct Work {
  CudaDevice* dev = nullptr;
  void* p = nullptr;
  ~Work() {
    if (p) dev->release(p);
  }
};

class CudaR2r final : public LocalFft {
 public:
  CudaR2r(const FftDesc& d, CudaDevice& dev) : dev_(dev), dbl_(d.is_double) {
    const R2rSchedule sched = schedule_r2r(d);
    if (!sched.periodic.empty()) {
      FftDesc periodic = d;
      periodic.axes = sched.periodic;
      periodic.r2r.clear();
      first_ = dev_.make_fft(periodic, nullptr, nullptr);
    }
    std::int64_t rbytes = 0, cbytes = 0;
    const std::int64_t real_bytes = dbl_ ? 8 : 4;
    for (const r2r::LineGeom& g : sched.lines) {
      Axis ax;
      ax.g = g;
      if (r2r::needs_fft(g)) {
        ax.plan = make_plan(g);
        rbytes = std::max(rbytes, g.lines * r2r::real_length(g) * real_bytes);
        cbytes = std::max(cbytes, g.lines * r2r::complex_length(g) * 2 * real_bytes);
      }
      axes_.push_back(ax);
    }
    real_.dev = cplx_.dev = &dev_;
    if (rbytes > 0) real_.p = dev_.alloc(static_cast<std::size_t>(rbytes));
    if (cbytes > 0) cplx_.p = dev_.alloc(static_cast<std::size_t>(cbytes));
    work_ += rbytes + cbytes;
  }

  std::int64_t work_bytes() const override { return work_ + (first_ ? first_->work_bytes() : 0); }

  void execute(void* in, void* out) override {
    if (axes_.empty()) return;
    dev_.activate();
    const void* src = in;
    if (first_) {
      first_->execute(in, out);
      src = out;
    }
    const cudaStream_t s = dev_.stream();
    for (const Axis& ax : axes_) {
      run_axis(ax, src, out, s);
      src = out;
    }
  }

 private:
  struct Axis {
    r2r::LineGeom g;
    int plan = -1;  // index into plans_.v; -1 for length 1 (no FFT)
  };

  // Types I/II: real to complex; III: complex to real; IV: complex to complex, in place.
  int make_plan(const r2r::LineGeom& g) {
    const r2r::WorkLayout w = r2r::work_layout(g);
    long long n[1] = {r2r::fft_length(g)};
    // Non-null embeds: use the strides.
    long long rembed[1] = {r2r::real_length(g)}, cembed[1] = {r2r::complex_length(g)};
    cufftType type;
    if (g.type == 4) type = dbl_ ? CUFFT_Z2Z : CUFFT_C2C;
    else if (g.type == 3) type = dbl_ ? CUFFT_Z2D : CUFFT_C2R;
    else type = dbl_ ? CUFFT_D2Z : CUFFT_R2C;
    cufftHandle h;
    DFFT_LIVE(Live::cufft_plan, DFFT_CUFFT(cufftCreate(&h)));
    plans_.v.push_back(h);
    std::size_t work = 0;
    if (g.type == 4)
      DFFT_CUFFT(cufftMakePlanMany64(h, 1, n, cembed, w.cstride, w.cdist, cembed, w.cstride,
                                     w.cdist, type, g.lines, &work));
    else if (g.type == 3)
      DFFT_CUFFT(cufftMakePlanMany64(h, 1, n, cembed, w.cstride, w.cdist, rembed, w.rstride,
                                     w.rdist, type, g.lines, &work));
    else
      DFFT_CUFFT(cufftMakePlanMany64(h, 1, n, rembed, w.rstride, w.rdist, cembed, w.cstride,
                                     w.cdist, type, g.lines, &work));
    work_ += static_cast<std::int64_t>(work);
    return static_cast<int>(plans_.v.size()) - 1;
  }

  void exec_fft(const Axis& ax) {
    const cufftHandle h = plans_.v[static_cast<std::size_t>(ax.plan)];
    auto* r = real_.p;
    auto* c = cplx_.p;
    if (ax.g.type == 4) {
      if (dbl_)
        DFFT_CUFFT(cufftExecZ2Z(h, static_cast<cufftDoubleComplex*>(c),
                                static_cast<cufftDoubleComplex*>(c), CUFFT_FORWARD));
      else
        DFFT_CUFFT(cufftExecC2C(h, static_cast<cufftComplex*>(c), static_cast<cufftComplex*>(c),
                                CUFFT_FORWARD));
    } else if (ax.g.type == 3) {
      if (dbl_)
        DFFT_CUFFT(cufftExecZ2D(h, static_cast<cufftDoubleComplex*>(c),
                                static_cast<cufftDoubleReal*>(r)));
      else
        DFFT_CUFFT(cufftExecC2R(h, static_cast<cufftComplex*>(c), static_cast<cufftReal*>(r)));
    } else if (dbl_) {
      DFFT_CUFFT(cufftExecD2Z(h, static_cast<cufftDoubleReal*>(r),
                              static_cast<cufftDoubleComplex*>(c)));
    } else {
      DFFT_CUFFT(cufftExecR2C(h, static_cast<cufftReal*>(r), static_cast<cufftComplex*>(c)));
    }
  }

  void run_axis(const Axis& ax, const void* src, void* dst, cudaStream_t s) {
    if (ax.plan < 0) {
      DFFT_CUDA(cuda::launch_r2r_length1(ax.g, src, dst, dbl_, s));
      return;
    }
    DFFT_CUFFT(cufftSetStream(plans_.v[static_cast<std::size_t>(ax.plan)], s));
    DFFT_CUDA(cuda::launch_r2r_pre(ax.g, src, r2r::pre_writes_real(ax.g) ? real_.p : cplx_.p,
                                   dbl_, s));
    exec_fft(ax);
    DFFT_CUDA(cuda::launch_r2r_post(ax.g, r2r::post_reads_real(ax.g) ? real_.p : cplx_.p, dst,
                                    dbl_, s));
  }

  CudaDevice& dev_;
  bool dbl_;
  std::unique_ptr<LocalFft> first_;
  std::vector<Axis> axes_;
  Plans plans_;
  std::int64_t work_ = 0;  // cuFFT work areas and the line buffers, bytes
  Work real_, cplx_;
};

}  // namespace

std::unique_ptr<LocalFft> make_cuda_r2r(const FftDesc& d, CudaDevice& dev) {
  return std::make_unique<CudaR2r>(d, dev);
}

}  // namespace dfft::detail
