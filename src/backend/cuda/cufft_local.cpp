// SPDX-License-Identifier: MIT
// Local FFTs with cuFFT's advanced data layout (cufftMakePlanMany64); the layout mapping itself
// is in cufft_layout.cpp. Loops over extra batch axes are spread over side streams, each with
// its own plan (a plan's work area serves one stream at a time). When the orders cannot be
// matched, the step goes through temporaries in a compatible order (box copies before and/or
// after): correct first, and never produced by today's planner.
#include <algorithm>
#include <cstdlib>
#include <string>

#include "backend/cuda/column_fft.hpp"
#include "backend/cuda/cuda_device.hpp"
#include "backend/cuda/cufft_layout.hpp"
#include "backend/cuda/plane_fft.hpp"
#include "backend/cuda/r2r.hpp"
#include "backend/cuda/store_callbacks.hpp"

namespace dfft::detail {

namespace {

cufftType type_of(FftDesc::Kind k, bool dbl) {
  switch (k) {
    case FftDesc::Kind::r2c: return dbl ? CUFFT_D2Z : CUFFT_R2C;
    case FftDesc::Kind::c2r: return dbl ? CUFFT_Z2D : CUFFT_C2R;
    default: return dbl ? CUFFT_Z2Z : CUFFT_C2C;
  }
}

constexpr std::size_t kLoopStreams = 4;

// Owners that clean up even when the constructor of CufftLocal throws half way.
struct Handles {
  CudaDevice* dev = nullptr;
  std::vector<cufftHandle> v;
  ~Handles() {
    for (auto h : v) {
      if (dev) dev->detach_fft_work(h);
      live_released(Live::cufft_plan, cufftDestroy(h));
    }
  }
};
struct DevMem {
  CudaDevice* dev = nullptr;
  void* p = nullptr;
  ~DevMem() {
    if (p) dev->release(p);
  }
};

// Whether an FFT step whose cuFFT plan runs on layout `fft` needs a temporary for the step's
// own layout `given` (a copy that reorders or unpads).
bool relayout(const Layout& fft, const Layout& given) { return fft.order != given.order || fft.padded != given.padded; }

class CufftLocal final : public LocalFft {
 public:
  CufftLocal(const FftDesc& d, CudaDevice& dev) : d_(d), dev_(dev) {
    if (d.real || has_r2r_axis(d)) fail_internal("a DCT/DST step reached the cuFFT step");
    for (int a = 0; a < d.in.box.dims(); ++a)
      if (d.in.box.extent(a) == 0 || d.out.box.extent(a) == 0) return;  // nothing local
    if (d.axes.size() > 3)
      unsupported("cuFFT transforms at most 3 axes at once; this step transforms ", d.axes.size());
    const std::size_t cplx = d.is_double ? 16 : 8;
    in_elem_ = d.kind == FftDesc::Kind::r2c ? cplx / 2 : cplx;
    out_elem_ = d.kind == FftDesc::Kind::c2r ? cplx / 2 : cplx;
    choose_layouts();
    dev_.activate();
    // The normalisation goes into cuFFT's stores where it writes the step's output itself (not
    // a temporary that a copy then reorders), or into its loads where it reads the step's input
    // itself.
    scales_ = d.scale != 1 && !(d.scale_on_load ? tmp_in_.p : tmp_out_.p) && store_callbacks_available();
    const std::size_t nplans = std::min(kLoopStreams, map_.loops.size());
    plans_.dev = &dev_;
    for (std::size_t i = 0; i < nplans; ++i) {
      cufftHandle h;
      DFFT_LIVE(Live::cufft_plan, DFFT_CUFFT(cufftCreate(&h)));
      plans_.v.push_back(h);
      if (scales_) set_scale_callback(h, type_of(d.kind, d.is_double), d.scale, d.scale_on_load);
      // The work area comes from the device's shared slots (CudaDevice::attach_fft_work): a
      // plan's FFTs run one after another, so one area per slot serves them all.
      DFFT_CUFFT(cufftSetAutoAllocation(h, 0));
      std::size_t work = 0;
      DFFT_CUFFT(cufftMakePlanMany64(h, static_cast<int>(map_.n.size()), map_.n.data(),
                                     map_.inembed.data(), map_.istride, map_.idist,
                                     map_.onembed.data(), map_.ostride, map_.odist,
                                     type_of(d.kind, d.is_double), map_.batch, &work));
      dev_.attach_fft_work(h, i, work);
      cudaStream_t s = nplans == 1 ? dev_.stream() : dev_.side_stream(static_cast<int>(i));
      DFFT_CUFFT(cufftSetStream(h, s));
      streams_.push_back(s);
      if (nplans > 1) done_.push_back(std::make_unique<Event>());
    }
    if (nplans > 1) start_ = std::make_unique<Event>();
  }

  std::int64_t work_bytes() const override { return work_; }
  bool scales() const override { return scales_; }

  void execute(void* in, void* out) override {
    if (plans_.v.empty()) return;
    dev_.activate();
    const cudaStream_t main = dev_.stream();
    void* fin = in;
    void* fout = out;
    if (tmp_in_.p) {
      dev_.copy_box_async(in, d_.in, tmp_in_.p, fft_in_, d_.in.box, in_elem_, main);
      fin = tmp_in_.p;
    }
    if (tmp_out_.p) fout = tmp_out_.p;
    if (plans_.v.size() == 1) {
      run(0, fin, fout, map_.loops[0]);
    } else {
      start_->record(main);
      for (auto s : streams_) DFFT_CUDA(cudaStreamWaitEvent(s, start_->get(), 0));
      for (std::size_t j = 0; j < map_.loops.size(); ++j)
        run(j % plans_.v.size(), fin, fout, map_.loops[j]);
      for (std::size_t i = 0; i < plans_.v.size(); ++i) {
        done_[i]->record(streams_[i]);
        DFFT_CUDA(cudaStreamWaitEvent(main, done_[i]->get(), 0));
      }
    }
    if (tmp_out_.p)
      dev_.copy_box_async(tmp_out_.p, fft_out_, out, d_.out, d_.out.box, out_elem_, main);
  }

 private:
  // Direct when possible; otherwise through a temporary on the output side, the input side,
  // or both (the last always maps: FFT axes fastest, in the step's own axis order).
  void choose_layouts() {
    auto chosen = dfft::detail::choose_layouts(d_);
    map_ = std::move(chosen.map);
    fft_in_ = chosen.layouts[0];
    fft_out_ = chosen.layouts[1];
    tmp_in_.dev = tmp_out_.dev = &dev_;
    if (relayout(fft_in_, d_.in)) {
      tmp_in_.p = dev_.alloc(static_cast<std::size_t>(d_.in.box.count()) * in_elem_);
      work_ += d_.in.box.count() * static_cast<std::int64_t>(in_elem_);
    }
    if (relayout(fft_out_, d_.out)) {
      tmp_out_.p = dev_.alloc(static_cast<std::size_t>(d_.out.box.count()) * out_elem_);
      work_ += d_.out.box.count() * static_cast<std::int64_t>(out_elem_);
    }
  }

  void run(std::size_t p, void* in, void* out, std::pair<std::int64_t, std::int64_t> off) {
    auto* i = static_cast<char*>(in) + off.first * static_cast<std::int64_t>(in_elem_);
    auto* o = static_cast<char*>(out) + off.second * static_cast<std::int64_t>(out_elem_);
    const cufftHandle h = plans_.v[p];
    switch (type_of(d_.kind, d_.is_double)) {
      case CUFFT_R2C: DFFT_CUFFT(cufftExecR2C(h, (cufftReal*)i, (cufftComplex*)o)); break;
      case CUFFT_C2R: DFFT_CUFFT(cufftExecC2R(h, (cufftComplex*)i, (cufftReal*)o)); break;
      case CUFFT_D2Z: DFFT_CUFFT(cufftExecD2Z(h, (cufftDoubleReal*)i, (cufftDoubleComplex*)o)); break;
      case CUFFT_Z2D: DFFT_CUFFT(cufftExecZ2D(h, (cufftDoubleComplex*)i, (cufftDoubleReal*)o)); break;
      case CUFFT_C2C:
        DFFT_CUFFT(cufftExecC2C(h, (cufftComplex*)i, (cufftComplex*)o, direction()));
        break;
      case CUFFT_Z2Z:
        DFFT_CUFFT(cufftExecZ2Z(h, (cufftDoubleComplex*)i, (cufftDoubleComplex*)o, direction()));
        break;
    }
  }
  int direction() const { return d_.kind == FftDesc::Kind::backward ? CUFFT_INVERSE : CUFFT_FORWARD; }

  FftDesc d_;
  CudaDevice& dev_;
  std::size_t in_elem_ = 0, out_elem_ = 0;
  CufftMapping map_;
  Layout fft_in_, fft_out_;
  DevMem tmp_in_, tmp_out_;
  bool scales_ = false;  // the plans apply d_.scale in a store callback
  Handles plans_;
  std::int64_t work_ = 0;  // the relayout buffers, bytes (cuFFT's work areas are the device's)
  std::vector<cudaStream_t> streams_;
  std::vector<std::unique_ptr<Event>> done_;
  std::unique_ptr<Event> start_;
};

}  // namespace

std::size_t CudaDevice::fft_launches(const FftDesc& d) const {
  if (d.in.box.empty() || d.out.box.empty()) return 0;
  if (has_r2r_axis(d)) return 1;  // pre/post-processing kernels around it are not counted
  return dfft::detail::choose_layouts(d).map.loops.size();
}

Device::FftBytes CudaDevice::fft_bytes_estimate(const FftDesc& d) {
  if (d.in.box.empty() || d.out.box.empty() || has_r2r_axis(d) || d.real || d.axes.size() > 3) return {};
  const auto chosen = dfft::detail::choose_layouts(d);
  const auto& m = chosen.map;
  std::int64_t bytes = 0;
  if (relayout(chosen.layouts[0], d.in)) bytes += d.in.box.count() * static_cast<std::int64_t>(elem_in(d));
  if (relayout(chosen.layouts[1], d.out)) bytes += d.out.box.count() * static_cast<std::int64_t>(elem_out(d));
  activate();
  cufftHandle h = 0;
  DFFT_CUFFT(cufftCreate(&h));
  std::size_t work = 0;
  auto n = m.n, inembed = m.inembed, onembed = m.onembed;
  const cufftResult r = cufftGetSizeMany64(h, static_cast<int>(n.size()), n.data(), inembed.data(), m.istride, m.idist,
                                           onembed.data(), m.ostride, m.odist, type_of(d.kind, d.is_double), m.batch, &work);
  cufftDestroy(h);
  DFFT_CUFFT(r);
  return {bytes, static_cast<std::int64_t>(work) * static_cast<std::int64_t>(std::min(kLoopStreams, m.loops.size()))};
}

std::int64_t CudaDevice::shared_fft_work_bytes() const {
  std::int64_t b = 0;
  for (const auto& w : fft_work_) b += static_cast<std::int64_t>(w.bytes);
  return b;
}

void CudaDevice::attach_fft_work(cufftHandle h, std::size_t slot, std::size_t bytes) {
  if (fft_work_.size() <= slot) fft_work_.resize(slot + 1);
  FftWorkSlot& w = fft_work_[slot];
  if (bytes > w.bytes) {
    // Handles already on the slot may have work queued: the old area goes once that work is
    // done. The plan's FFTs run on its main stream or on side streams the main stream waits for.
    activate();
    DFFT_CUDA(cudaStreamSynchronize(stream_));
    for (auto s : side_)
      if (s) DFFT_CUDA(cudaStreamSynchronize(s));
    void* p = alloc(bytes);
    for (cufftHandle u : w.users) DFFT_CUFFT(cufftSetWorkArea(u, p));
    if (w.p) release(w.p);
    w.p = p;
    w.bytes = bytes;
  }
  if (bytes > 0) DFFT_CUFFT(cufftSetWorkArea(h, w.p));
  w.users.push_back(h);
}

void CudaDevice::detach_fft_work(cufftHandle h) noexcept {
  for (auto& w : fft_work_) w.users.erase(std::remove(w.users.begin(), w.users.end(), h), w.users.end());
}

bool CudaDevice::own_fft_applies(const FftDesc& d) const { return column_fft_applies(d, *this); }

std::unique_ptr<LocalFft> CudaDevice::make_fft(const FftDesc& d, void* scratch_in, void* scratch_out) {
  activate();
  if (d.engine == FftDesc::Engine::own) {
    if (!column_fft_applies(d, *this)) fail_internal("an FFT step asked for the column kernel, which does not apply to it");
    return make_column_fft(d, *this);
  }
  const bool timed = d.effort != Effort::estimate && scratch_in && scratch_out;
  if (d.engine == FftDesc::Engine::automatic) {
    const EnginePolicy policy = engine_policy("DFFT_PLANE_FFT");  // docs/environment.md
    if (policy != EnginePolicy::never && plane_fft_applies(d, *this)) {
      auto plane = [&] { return make_plane_fft(d, *this); };
      if (policy == EnginePolicy::always) return plane();
      if (timed)
        return timed_cuda_fft(d, *this, scratch_in, scratch_out, "plane",
                              [&] { return make_fft_without_plane(d, scratch_in, scratch_out); }, plane);
    }
  }
  return make_fft_without_plane(d, scratch_in, scratch_out);
}

std::unique_ptr<LocalFft> CudaDevice::make_fft_without_plane(const FftDesc& d, void* scratch_in, void* scratch_out) {
  if (d.engine == FftDesc::Engine::automatic) {
    const EnginePolicy policy = engine_policy("DFFT_COLUMN_FFT");  // docs/environment.md
    const bool timed = d.effort != Effort::estimate && scratch_in && scratch_out;
    auto library = [&]() -> std::unique_ptr<LocalFft> { return std::make_unique<CufftLocal>(d, *this); };
    if (policy != EnginePolicy::never && column_fft_applies(d, *this)) {
      if (policy == EnginePolicy::always) return make_column_fft(d, *this);
      if (timed) return timed_cuda_fft(d, *this, scratch_in, scratch_out, "column", library, [&] { return make_column_fft(d, *this); });
    } else if (policy != EnginePolicy::never) {
      if (const auto split = column_split(d, *this)) {
        auto own = [&] { return make_split_fft(*split, *this, scratch_in, scratch_out); };
        if (policy == EnginePolicy::always) return own();
        if (timed) return timed_cuda_fft(d, *this, scratch_in, scratch_out, "column", library, own);
      }
    }
  }
  if (has_r2r_axis(d)) {
    // Its cuFFT steps are not the last writes of the output: the caller scales.
    FftDesc plain = d;
    plain.scale = 1;
    return make_cuda_r2r(plain, *this);  // r2r_local.cpp
  }
  return std::make_unique<CufftLocal>(d, *this);
}

}  // namespace dfft::detail
