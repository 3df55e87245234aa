// CPU backend: fftw_malloc memory, FFTW guru64 plans that read and write any memory order.
#include <fftw3.h>

#include <cstring>

#include "backend/cpu/copy_box.hpp"
#include "backend/device.hpp"
#include "util/check.hpp"

namespace dfft::detail {

namespace {

// One set of FFTW entry points per precision.
template <class T>
struct Fftw;
template <>
struct Fftw<double> {
  using plan = fftw_plan;
  using cpx = fftw_complex;
  static plan dft(int r, const fftw_iodim64* d, int hr, const fftw_iodim64* h, void* i, void* o,
                  int sign, unsigned f) {
    return fftw_plan_guru64_dft(r, d, hr, h, (cpx*)i, (cpx*)o, sign, f);
  }
  static plan r2c(int r, const fftw_iodim64* d, int hr, const fftw_iodim64* h, void* i, void* o,
                  unsigned f) {
    return fftw_plan_guru64_dft_r2c(r, d, hr, h, (double*)i, (cpx*)o, f);
  }
  static plan c2r(int r, const fftw_iodim64* d, int hr, const fftw_iodim64* h, void* i, void* o,
                  unsigned f) {
    return fftw_plan_guru64_dft_c2r(r, d, hr, h, (cpx*)i, (double*)o, f);
  }
  static void exec(plan p, FftDesc::Kind k, void* i, void* o) {
    if (k == FftDesc::Kind::r2c) fftw_execute_dft_r2c(p, (double*)i, (cpx*)o);
    else if (k == FftDesc::Kind::c2r) fftw_execute_dft_c2r(p, (cpx*)i, (double*)o);
    else fftw_execute_dft(p, (cpx*)i, (cpx*)o);
  }
  static void destroy(plan p) { fftw_destroy_plan(p); }
  static int alignment(void* p) { return fftw_alignment_of((double*)p); }
};
template <>
struct Fftw<float> {
  using plan = fftwf_plan;
  using cpx = fftwf_complex;
  static plan dft(int r, const fftw_iodim64* d, int hr, const fftw_iodim64* h, void* i, void* o,
                  int sign, unsigned f) {
    return fftwf_plan_guru64_dft(r, d, hr, h, (cpx*)i, (cpx*)o, sign, f);
  }
  static plan r2c(int r, const fftw_iodim64* d, int hr, const fftw_iodim64* h, void* i, void* o,
                  unsigned f) {
    return fftwf_plan_guru64_dft_r2c(r, d, hr, h, (float*)i, (cpx*)o, f);
  }
  static plan c2r(int r, const fftw_iodim64* d, int hr, const fftw_iodim64* h, void* i, void* o,
                  unsigned f) {
    return fftwf_plan_guru64_dft_c2r(r, d, hr, h, (cpx*)i, (float*)o, f);
  }
  static void exec(plan p, FftDesc::Kind k, void* i, void* o) {
    if (k == FftDesc::Kind::r2c) fftwf_execute_dft_r2c(p, (float*)i, (cpx*)o);
    else if (k == FftDesc::Kind::c2r) fftwf_execute_dft_c2r(p, (cpx*)i, (float*)o);
    else fftwf_execute_dft(p, (cpx*)i, (cpx*)o);
  }
  static void destroy(plan p) { fftwf_destroy_plan(p); }
  static int alignment(void* p) { return fftwf_alignment_of((float*)p); }
};

template <class T>
class FftwLocal final : public LocalFft {
 public:
  FftwLocal(const FftDesc& d, void* si, void* so) : desc_(d), scratch_in_(si), scratch_out_(so) {
    const auto& in = d.in;
    for (int a = 0; a < in.box.dims(); ++a)
      if (in.box.extent(a) == 0 || d.out.box.extent(a) == 0) return;  // nothing local to do
    auto is = d.in.strides(), os = d.out.strides();
    std::vector<bool> fft_axis(in.box.dims(), false);
    for (int a : d.axes) {
      fft_axis[a] = true;
      // Logical length: the real extent for the halved axis.
      std::int64_t n = d.kind == FftDesc::Kind::c2r ? d.out.box.extent(a) : in.box.extent(a);
      dims_.push_back({n, is[a], os[a]});
    }
    // Batch axes, slowest first as laid out in the output, so FFTW walks memory forwards.
    for (int a : d.out.order)
      if (!fft_axis[a]) howmany_.push_back({in.box.extent(a), is[a], os[a]});
    unsigned flags = d.effort == Effort::measure ? FFTW_MEASURE : FFTW_ESTIMATE;
    plan_ = make(flags, si, so);
    if (!plan_) fail("FFTW could not plan ", describe());
    align_in_ = Fftw<T>::alignment(si);
    align_out_ = Fftw<T>::alignment(so);
  }
  ~FftwLocal() override {
    if (plan_) Fftw<T>::destroy(plan_);
    if (unaligned_) Fftw<T>::destroy(unaligned_);
  }
  void execute(void* in, void* out) override {
    if (!plan_) return;
    auto p = plan_;
    if (Fftw<T>::alignment(in) != align_in_ || Fftw<T>::alignment(out) != align_out_) {
      // A user array with other alignment: a SIMD-free plan that works at any address. Planned
      // with ESTIMATE on the scratch buffers, so planning never touches the user's data.
      if (!unaligned_) unaligned_ = make(FFTW_ESTIMATE | FFTW_UNALIGNED, scratch_in_, scratch_out_);
      if (!unaligned_) fail("FFTW could not plan unaligned ", describe());
      p = unaligned_;
    }
    Fftw<T>::exec(p, desc_.kind, in, out);
  }

 private:
  typename Fftw<T>::plan make(unsigned flags, void* i, void* o) {
    const int r = static_cast<int>(dims_.size()), h = static_cast<int>(howmany_.size());
    switch (desc_.kind) {
      case FftDesc::Kind::r2c: return Fftw<T>::r2c(r, dims_.data(), h, howmany_.data(), i, o, flags);
      case FftDesc::Kind::c2r:
        return Fftw<T>::c2r(r, dims_.data(), h, howmany_.data(), i, o, flags | FFTW_DESTROY_INPUT);
      case FftDesc::Kind::forward:
        return Fftw<T>::dft(r, dims_.data(), h, howmany_.data(), i, o, FFTW_FORWARD, flags);
      case FftDesc::Kind::backward:
        return Fftw<T>::dft(r, dims_.data(), h, howmany_.data(), i, o, FFTW_BACKWARD, flags);
    }
    return nullptr;
  }
  std::string describe() const {
    std::string s = "fft of rank " + std::to_string(dims_.size()) + " (n =";
    for (auto& d : dims_) (s += ' ') += std::to_string(d.n);
    return s + ")";
  }

  FftDesc desc_;
  void *scratch_in_, *scratch_out_;
  std::vector<fftw_iodim64> dims_, howmany_;
  typename Fftw<T>::plan plan_ = nullptr, unaligned_ = nullptr;
  int align_in_ = 0, align_out_ = 0;
};

class CpuDevice final : public Device {
 public:
  std::string name() const override { return "cpu"; }
  bool on_device() const override { return false; }
  void* alloc(std::size_t bytes) override {
    void* p = fftw_malloc(bytes);
    if (!p) fail("out of host memory allocating ", bytes, " bytes");
    return p;
  }
  void release(void* p) noexcept override { fftw_free(p); }
  std::unique_ptr<LocalFft> make_fft(const FftDesc& d, void* si, void* so) override {
    if (d.is_double) return std::make_unique<FftwLocal<double>>(d, si, so);
    return std::make_unique<FftwLocal<float>>(d, si, so);
  }
  void copy_box(const void* src, const Layout& sl, void* dst, const Layout& dl, const Box& box,
                std::size_t elem) override {
    host_copy_box(src, sl, dst, dl, box, elem);
  }
  void upload(void* dst, const void* src, std::size_t bytes) override { std::memcpy(dst, src, bytes); }
  void download(void* dst, const void* src, std::size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }
  void scale(void* data, std::int64_t n, double f, bool is_double) override {
    if (is_double) {
      auto* p = static_cast<double*>(data);
      for (std::int64_t i = 0; i < n; ++i) p[i] *= f;
    } else {
      auto* p = static_cast<float*>(data);
      const float ff = static_cast<float>(f);
      for (std::int64_t i = 0; i < n; ++i) p[i] *= ff;
    }
  }
};

}  // namespace

std::unique_ptr<Device> make_cpu_device() { return std::make_unique<CpuDevice>(); }

}  // namespace dfft::detail
