// SPDX-License-Identifier: MIT
// CPU backend: fftw_malloc memory, FFTW guru64 plans that read and write any memory order.
#include <fftw3.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <cstring>
#include <fstream>
#include <limits>
#include <mutex>
#include <optional>
#include <sstream>

#include <unistd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "backend/cpu/copy_box.hpp"
#include "backend/cpu/fftw_wisdom.hpp"
#include "codec/codec.hpp"
#include "backend/device.hpp"
#include "backend/host_memory.hpp"
#include "backend/split_fft.hpp"
#include "backend/timed_fft.hpp"
#include "util/check.hpp"

namespace dfft::detail {

namespace {

unsigned planner_flags(const FftDesc& d) {
  return d.effort == Effort::estimate ? FFTW_ESTIMATE
         : d.effort == Effort::measure ? FFTW_MEASURE
                                        : FFTW_MEASURE | FFTW_WISDOM_ONLY;
}

// A plan FFTW did not make: under Effort::wisdom_only because it has no wisdom for the problem
// (a refusal the caller may expect: Unsupported), otherwise a failure of the library.
[[noreturn]] void planning_failed(const FftDesc& d, const char* call, const std::string& what) {
  if (d.effort == Effort::wisdom_only)
    unsupported("effort wisdom-only: FFTW has no wisdom (at the measure level) for ", what,
                "; plan it once with effort measure and keep FFTW's wisdom (fftw_export_wisdom*, Options::fftw_wisdom)");
  fail_library(LibraryError::Library::fftw, call, -1, "FFTW could not plan ", what);
}

// Threaded FFTW plans (Options::threads); the caller holds fftw_planner_mutex(). The planner's thread
// count is a global setting of FFTW's, so it is set together with the planning call it is for.
// FFTW's threads are initialised before the first plan even without threads: another library in
// the process (mpi4py-fft, pyFFTW) that calls fftw_plan_with_nthreads first would otherwise make
// FFTW initialise them itself, which runs fftw_cleanup() and leaves every plan dfft holds invalid.
void fftw_plan_threads(int n) {
  static bool ready = false;
  if (!ready) {
    if (!fftw_init_threads()) fail_library(LibraryError::Library::fftw, "fftw_init_threads", 0, "FFTW could not initialise its threads");
    if (!fftwf_init_threads()) fail_library(LibraryError::Library::fftw, "fftwf_init_threads", 0, "FFTW could not initialise its threads");
    ready = true;
  }
  fftw_plan_with_nthreads(n);
  fftwf_plan_with_nthreads(n);
}

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
  static plan r2r(int r, const fftw_iodim64* d, int hr, const fftw_iodim64* h, void* i, void* o,
                  const fftw_r2r_kind* k, unsigned f) {
    return fftw_plan_guru64_r2r(r, d, hr, h, (double*)i, (double*)o, k, f);
  }
  static void exec_r2r(plan p, void* i, void* o) { fftw_execute_r2r(p, (double*)i, (double*)o); }
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
  static plan r2r(int r, const fftw_iodim64* d, int hr, const fftw_iodim64* h, void* i, void* o,
                  const fftw_r2r_kind* k, unsigned f) {
    return fftwf_plan_guru64_r2r(r, d, hr, h, (float*)i, (float*)o, k, f);
  }
  static void exec_r2r(plan p, void* i, void* o) { fftwf_execute_r2r(p, (float*)i, (float*)o); }
};

// d[i] = s[i] * f for i < n (s may be d): every normalisation of the CPU backend.
template <class T>
void scaled_copy(const T* s, T* d, std::int64_t n, T f) {
  for (std::int64_t i = 0; i < n; ++i) d[i] = s[i] * f;
}

// Bytes (input and output together) of the batch members one execution of a blocked FFT
// covers: about half a core's L2 cache, so that the second pass of a multi-dimensional FFT
// (FFTW's rank >= 2 plans run the last axis over the whole batch, then the other axes) reads
// what the first wrote from cache instead of memory, and a normalisation that follows reads it
// from there as well. The copying FFT's blocks that go through a buffer take half the core's L2
// as the system reports it instead (gather_block_bytes()).
constexpr std::int64_t kBlockBytes = std::int64_t{1} << 20;

// The block of a copying FFT that gathers through a buffer: half the core's L2 cache as the
// system reports it (kBlockBytes where it does not). On a core with 512 KiB of L2, 128^3 c2c on
// one rank, the gathering x-FFT took 13.0 ms with blocks of 1 MiB and 11.1 ms with 256 KiB; the
// blocks copied into the output were better at 1 MiB there (256^3 r2c on 2 ranks: the inverse's
// FFT phase 56-59 ms against 58-60).
std::int64_t gather_block_bytes() {
  static const std::int64_t bytes = [] {
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return l2 > 0 ? static_cast<std::int64_t>(l2) / 2 : kBlockBytes;
  }();
  return bytes;
}

// DFFT_FFT_BLOCK (docs/environment.md): unset: blocked by kBlockBytes; 0: one FFTW call over the
// whole batch; N > 0: N batch members per call. For measurements: not part of the plan's
// parameters that the ranks compare.
std::int64_t block_override() {
  const char* v = std::getenv("DFFT_FFT_BLOCK");
  if (!v || !*v) return -1;
  return std::max<std::int64_t>(0, std::atoll(v));
}

// DFFT_STREAM_STORES (docs/environment.md): unset: streaming stores where a copying FFT's output
// is at least four times the core's L2 cache (at least 4 MiB where the system does not say);
// 0: never; 1: always (the tests' small arrays take the path that way).
bool stream_output(std::int64_t bytes) {
  const char* v = std::getenv("DFFT_STREAM_STORES");
  if (v && *v) return std::atoi(v) != 0;
  static const std::int64_t at = [] {
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return std::max<std::int64_t>(std::int64_t{4} << 20, 4 * static_cast<std::int64_t>(std::max(l2, 0L)));
  }();
  return bytes >= at;
}

// Copies `bytes` with stores that bypass the cache where the CPU has them (SSE2): an output
// far larger than the cache would be read into it before being written (read for ownership)
// and then evicted unread; streamed, a pass moves its data twice instead of three times.
// The x-FFT of 256^3 c2c on one core of the 2-core machine, gathered through a buffer: 105 ms
// stored as usual, 71-74 ms streamed (blocks of 64 columns). stream_fence() orders the stores
// before anything else reads them.
void stream_copy(void* to, const void* from, std::size_t bytes) {
#if defined(__SSE2__)
  auto* d = static_cast<char*>(to);
  const auto* s = static_cast<const char*>(from);
  const std::size_t head = std::min(bytes, (16 - reinterpret_cast<std::uintptr_t>(d) % 16) % 16);
  std::memcpy(d, s, head);
  std::size_t i = head;
  for (; i + 16 <= bytes; i += 16)
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + i), _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i)));
  std::memcpy(d + i, s + i, bytes - i);
#else
  std::memcpy(to, from, bytes);
#endif
}

void stream_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

// Whether FFTW's plan of `d` runs block by block, copying (FftwLocal's copying execution): a
// c2c FFT of one axis whose output has its inner batch, every axis faster than the FFT's, packed
// below it (the slab's x-FFT, in FFTW-MPI's layout and in its transposed one, whose y planes are
// the outer batch). Each block of columns is gathered from the input, which may lie in another
// order (runs of the fastest inner axis must be contiguous there), into a packed buffer that
// stays in cache, transformed there and stored. A rank with nothing local says yes, so that the
// ranks agree. Known before anything is planned: the planner leaves out plans such a step never
// runs.
bool copying_shape(const FftDesc& d) {
  const bool c2c = d.kind == FftDesc::Kind::forward || d.kind == FftDesc::Kind::backward;
  if (!c2c || d.axes.size() != 1 || block_override() == 0 || !(d.in.box == d.out.box)) return false;
  for (int a = 0; a < d.in.box.dims(); ++a)
    if (d.in.box.extent(a) == 0) return true;
  const auto is = d.in.strides(), os = d.out.strides();
  const int axis = d.axes[0];
  std::int64_t span = 1;  // complex elements of the inner batch
  bool inner = true;
  for (auto a = d.out.order.rbegin(); a != d.out.order.rend(); ++a) {
    if (*a == axis) {
      if (os[*a] != span) return false;
      inner = false;
    } else if (inner) {
      if (os[*a] != span || (span == 1 && is[*a] != 1)) return false;
      span *= d.in.box.extent(*a);
    }
  }
  return span >= 2;
}

template <class T>
class FftwLocal final : public LocalFft {
 public:
  // `dev` allocates the copying execution's block buffers (live Buffers, counted by
  // Plan::memory()); without one, no copying execution.
  FftwLocal(const FftDesc& d, void* si, void* so, int threads, WorkPool* pool = nullptr, Device* dev = nullptr)
      : desc_(d), scratch_in_(si), scratch_out_(so), threads_(threads), pool_(pool), dev_(dev) {
    const auto& in = d.in;
    for (int a = 0; a < in.box.dims(); ++a)
      if (in.box.extent(a) == 0 || d.out.box.extent(a) == 0) {
        // Nothing local to do, the copying execution included (the ranks agree on it).
        copying_ = dev && copying_shape(d);
        return;
      }
    local_ = true;
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
      if (!fft_axis[a]) howmany_.push_back({in.box.extent(a), is[a], os[a]}), batch_axes_.push_back(a);
    choose_block();
    align_in_ = Fftw<T>::alignment(si);
    align_out_ = Fftw<T>::alignment(so);
    plan_copying();
    // An FFT that copies runs block by block however it is executed: FFTW's plan of the whole
    // batch would be planned (under measure, timed) for nothing.
    if (copying_) return;
    // Blocks of an out-of-place FFT whose input and output lie alike are copied into the
    // output and transformed there in place: FFTW times a block's plan on one block in cache,
    // and out of place it could choose a plan that is fast there and slow over an array that is
    // not (c2c 256^3 on one rank, the inverse's last 2-D FFT: 1070 ms out of place against 130
    // ms for the same FFT in place; 2-core machine).
    copy_block_ = si != so && block_ < whole_batch() && d.kind != FftDesc::Kind::r2c &&
                  d.kind != FftDesc::Kind::c2r && dense_alike();
    // Out of place, with an output far larger than the cache and dense blocks (nothing of the
    // caller's between them): each block is transformed into a buffer of its own size, in cache,
    // and streamed to the output from there (stream_copy), so the output is written without
    // being read first.
    stage_ = dev_ && si != so && block_ < whole_batch() && dense_out() &&
             stream_output(d.out.box.count() * out_elem());
    if (stage_) {
      const int parts = parallel_blocks_ ? pool_->size() : 1;
      for (int t = 0; t < parts; ++t) stage_bufs_.emplace_back(*dev_, static_cast<std::size_t>(block_ * out_step_));
    }
    void* po = stage_ ? stage_bufs_[0].get() : so;
    void* pi = copy_block_ ? po : si;
    plan_ = make(planner_flags(d), pi, po);
    if (!plan_) planning_failed(d, "fftw_plan_guru64", describe());
    if (rest_ > 0) {
      tail_ = make(planner_flags(d), pi, po, rest_);
      if (!tail_) planning_failed(d, "fftw_plan_guru64", describe());
    }
  }
  ~FftwLocal() override {
    std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    for (auto p : {plan_, tail_, unaligned_, copy_plan_, copy_tail_, copy_unaligned_})
      if (p) Fftw<T>::destroy(p);
  }
  void execute(void* in, void* out) override { copying_ ? execute_copying(in, out, 1) : run(in, out, true); }
  void execute_unscaled(void* in, void* out) override { copying_ ? execute_copying(in, out, 1) : run(in, out, false); }
  bool scales() const override { return fused_scale_; }
  bool copies() const override { return copying_; }
  bool streams() const override { return stage_; }
  std::int64_t work_bytes() const override {
    return (copy_bufs_.empty() ? 0 : static_cast<std::int64_t>(copy_bufs_.size()) * dims_[0].n * copy_v_ * 2 * sizeof(T)) +
           static_cast<std::int64_t>(stage_bufs_.size()) * block_ * out_step_;
  }
  void execute_copying(const void* src, void* dst, double factor) override {
    if (!copying_) fail_internal("execute_copying on an FFT that does not copy");
    if (!local_) return;
    const std::int64_t n = dims_[0].n, row = dims_[0].os;  // complex elements between rows
    const T f = static_cast<T>(factor);
    const T* s = static_cast<const T*>(src);
    T* d = static_cast<T*>(dst);
    if (s == d && !copy_in_place_) fail_internal("a copying FFT between two orders executed in place");
    auto move = [&](const T* from, T* to, std::int64_t count) {
      if (factor == 1) std::memcpy(to, from, static_cast<std::size_t>(2 * count) * sizeof(T));
      else scaled_copy(from, to, 2 * count, f);
    };
    const std::int64_t per_plane = row / copy_v_ + (copy_rest_ > 0 ? 1 : 0), blocks = outer_planes() * per_plane;
    // Block k: rows [0, n) of columns [v, v + count) of an outer plane, gathered (and scaled)
    // into its place in dst (copy_direct_) or into `buf` as n rows of copy_v_ columns, then
    // transformed there (and stored from `buf`). In src, columns are gathered a run of the
    // fastest inner axis at a time where the inner batch lies in another order.
    auto block = [&](std::int64_t k, T* buf, bool transform) {
      const std::int64_t p = k / per_plane, c = k % per_plane;
      const bool tail = copy_rest_ > 0 && c == per_plane - 1;
      const std::int64_t v = c * copy_v_, count = tail ? copy_rest_ : copy_v_;
      const std::int64_t at_out = plane_offset(p, false), at_in = plane_offset(p, true);
      T* work = copy_direct_ ? d + 2 * (at_out + v) : buf;  // its rows copy_ld_ apart
      if (!(copy_direct_ && s == d && factor == 1))
        for (std::int64_t r = 0; r < n; ++r) {
          T* to = work + 2 * r * copy_ld_;
          const T* from = s + 2 * (at_in + r * dims_[0].is);
          if (copy_inner_.empty()) {
            move(from + 2 * v, to, count);
            continue;
          }
          for (std::int64_t x = v; x < v + count;) {
            const std::int64_t run = std::min(copy_inner_[0].n - x % copy_inner_[0].n, v + count - x);
            std::int64_t off = 0, rest = x;
            for (const auto& h : copy_inner_) off += (rest % h.n) * h.is, rest /= h.n;
            move(from + 2 * off, to + 2 * (x - v), run);
            x += run;
          }
        }
      if (!transform) return;
      Fftw<T>::exec(tail ? copy_tail_ : copy_plan_, desc_.kind, work, work);
      if (copy_direct_) return;
      const auto bytes = static_cast<std::size_t>(2 * count) * sizeof(T);
      for (std::int64_t r = 0; r < n; ++r) {
        T* to = d + 2 * (at_out + r * row + v);
        const T* from = buf + 2 * r * copy_v_;
        if (stream_) stream_copy(to, from, bytes);
        else std::memcpy(to, from, bytes);
      }
    };
    auto buffer = [&](int t) { return copy_bufs_.empty() ? nullptr : static_cast<T*>(copy_bufs_[t].get()); };
    if (copy_direct_ && Fftw<T>::alignment(d) != copy_align_) {
      // A caller's array of another alignment than the plans were made at: the whole gather
      // first, then one FFT that works at any address, in place on the output's layout (planned
      // with ESTIMATE, which reads no array).
      for (std::int64_t k = 0; k < blocks; ++k) block(k, nullptr, false);
      if (!copy_unaligned_) {
        std::lock_guard<std::mutex> lock(fftw_planner_mutex());
        fftw_plan_threads(threads_);
        auto dims = dims_, h = howmany_;
        for (auto* x : {&dims, &h})
          for (auto& io : *x) io.is = io.os;
        copy_unaligned_ = Fftw<T>::dft(1, dims.data(), static_cast<int>(h.size()), h.data(), scratch_out_, scratch_out_,
                                       desc_.kind == FftDesc::Kind::forward ? FFTW_FORWARD : FFTW_BACKWARD,
                                       FFTW_ESTIMATE | FFTW_UNALIGNED);
        if (!copy_unaligned_)
          fail_library(LibraryError::Library::fftw, "fftw_plan_guru64_dft", -1, "FFTW could not plan unaligned ", describe());
      }
      Fftw<T>::exec(copy_unaligned_, desc_.kind, d, d);
      return;
    }
    if (copy_parts_ > 1) {
      // Part t takes blocks t, t + parts, ... with buffer t.
      pool_->run(copy_parts_, [&](int t) {
        for (std::int64_t k = t; k < blocks; k += copy_parts_) block(k, buffer(t), true);
        if (stream_) stream_fence();
      });
      return;
    }
    for (std::int64_t k = 0; k < blocks; ++k) block(k, buffer(0), true);
    if (stream_) stream_fence();
  }

 private:
  void run(void* in, void* out, bool scale) {
    if (!local_) return;
    // Blocks copied into the output are transformed there: the input's alignment does not matter;
    // blocks transformed in a buffer are streamed to the output at any alignment.
    if ((!copy_block_ && Fftw<T>::alignment(in) != align_in_) || (!stage_ && Fftw<T>::alignment(out) != align_out_)) {
      // A user array with other alignment: a SIMD-free plan that works at any address. Planned
      // with ESTIMATE, which reads no array: the scratch buffers may hold this step's data.
      if (!unaligned_) unaligned_ = make(FFTW_ESTIMATE | FFTW_UNALIGNED, scratch_in_, scratch_out_, whole_batch());
      if (!unaligned_) fail_library(LibraryError::Library::fftw, "fftw_plan_guru64", -1, "FFTW could not plan unaligned ", describe());
      Fftw<T>::exec(unaligned_, desc_.kind, in, out);
      if (scale && fused_scale_) scale_members(out, 0, whole_batch());
      return;
    }
    auto* i = static_cast<char*>(in);
    auto* o = static_cast<char*>(out);
    const std::int64_t full = whole_batch() / block_;
    // Block k: its plan, first member and member count; the tail block comes last.
    auto block = [&](std::int64_t k, char* buf) {
      const bool tail = k == full;
      const std::int64_t m = k * block_, count = tail ? rest_ : block_;
      if (stage_) {
        // The buffer holds members [m, m + count) in the output's layout.
        const auto bytes = static_cast<std::size_t>(count * out_step_);
        if (copy_block_) std::memcpy(buf, i + m * in_step_, bytes);
        Fftw<T>::exec(tail ? tail_ : plan_, desc_.kind, copy_block_ ? buf : i + m * in_step_, buf);
        if (scale && fused_scale_) scale_members(buf, 0, count);
        stream_copy(o + m * out_step_, buf, bytes);
        return;
      }
      if (copy_block_) {
        if (i != o) std::memcpy(o + m * out_step_, i + m * in_step_, static_cast<std::size_t>(count * out_step_));
        Fftw<T>::exec(tail ? tail_ : plan_, desc_.kind, o + m * out_step_, o + m * out_step_);
      } else {
        Fftw<T>::exec(tail ? tail_ : plan_, desc_.kind, i + m * in_step_, o + m * out_step_);
      }
      if (scale && fused_scale_) scale_members(out, m, count);  // still in cache
    };
    const std::int64_t blocks = full + (tail_ ? 1 : 0);
    auto buffer = [&](int t) { return stage_ ? static_cast<char*>(stage_bufs_[t].get()) : nullptr; };
    if (parallel_blocks_ && stage_) {
      // Part t takes blocks t, t + parts, ... with buffer t.
      const int parts = static_cast<int>(stage_bufs_.size());
      pool_->run(parts, [&](int t) {
        for (std::int64_t k = t; k < blocks; k += parts) block(k, buffer(t));
        stream_fence();
      });
      return;
    }
    if (parallel_blocks_) {
      pool_->run(static_cast<int>(blocks), [&](int k) { block(k, nullptr); });
      return;
    }
    for (std::int64_t k = 0; k < blocks; ++k) block(k, buffer(0));
    if (stage_) stream_fence();
  }

  // Whether the slowest batch axis is the output's slowest axis and every member fills its step
  // densely: a block of members is then one run of memory with nothing of the caller's in it
  // (no padding or halo cells).
  bool dense_out() const {
    if (howmany_.empty()) return false;
    std::vector<std::pair<std::int64_t, std::int64_t>> inner;  // stride and extent in the output
    for (std::size_t k = 0; k < dims_.size(); ++k) inner.emplace_back(dims_[k].os, desc_.out.box.extent(desc_.axes[k]));
    for (std::size_t k = 1; k < howmany_.size(); ++k) inner.emplace_back(howmany_[k].os, howmany_[k].n);
    std::sort(inner.begin(), inner.end());
    std::int64_t dense = 1;
    for (const auto& [stride, extent] : inner) {
      if (stride != dense) return false;
      dense *= extent;
    }
    return howmany_[0].os == dense;
  }

  std::int64_t whole_batch() const { return howmany_.empty() ? 1 : howmany_[0].n; }
  // Whether the input and the output lie alike and the output's blocks of members are dense
  // (dense_out: nothing of the caller's between members that a copy would write).
  bool dense_alike() const {
    for (const auto& x : dims_) if (x.is != x.os) return false;
    for (const auto& h : howmany_) if (h.is != h.os) return false;
    return dense_out();
  }
  // Elements from the start of one run of the FFT's fastest axis in `l` (the input's or the
  // output's layout) to its end: the axis' extent there times its stride.
  std::int64_t fastest_run(const Layout& l, bool input) const {
    std::int64_t run = 0, best = std::numeric_limits<std::int64_t>::max();
    for (std::size_t k = 0; k < desc_.axes.size(); ++k) {
      const int a = desc_.axes[k];
      const std::int64_t stride = std::abs(input ? dims_[k].is : dims_[k].os);
      if (stride < best) best = stride, run = l.box.extent(a) * stride;
    }
    return run;
  }
  std::int64_t in_elem() const { return desc_.kind == FftDesc::Kind::r2c ? sizeof(T) : 2 * sizeof(T); }
  std::int64_t out_elem() const { return desc_.kind == FftDesc::Kind::c2r ? sizeof(T) : 2 * sizeof(T); }

  // Blocks the slowest batch axis of the output where the FFT has two or more axes (a one-axis
  // FFT passes over its data once: nothing to keep in cache). Every block starts at the same
  // alignment as the first, so the SIMD plan serves all of them.
  void choose_block() {
    block_ = whole_batch();
    if (dims_.size() < 2 || howmany_.empty() || block_ < 2) return;
    // A batch interleaved inside the runs of the FFT's fastest axis (FFTW-MPI's howmany vectors:
    // the batch axis fastest) gains nothing from blocks: a block of a few members spans the
    // whole array. A batch between the FFT's axes whose members own whole runs of the fastest
    // axis (a slab's planes written in the transposed order, y before x) gains as a batch
    // outside them does: a block's rows are contiguous runs, and its passes stay in cache.
    if (std::abs(howmany_[0].is) < fastest_run(desc_.in, true) || std::abs(howmany_[0].os) < fastest_run(desc_.out, false))
      return;
    std::int64_t member = in_elem() + out_elem();
    for (auto& d : dims_) member *= d.n;
    const std::int64_t forced = block_override();
    if (forced == 0) return;
    std::int64_t b = forced > 0 ? forced : std::max<std::int64_t>(1, kBlockBytes / member);
    if (b >= block_) return;
    in_step_ = howmany_[0].is * in_elem();
    out_step_ = howmany_[0].os * out_elem();
    // 64 bytes: a multiple of every SIMD alignment FFTW plans for.
    while (b < block_ && ((b * in_step_) % 64 != 0 || (b * out_step_) % 64 != 0)) ++b;
    if (b >= block_) return;
    rest_ = block_ % b;
    if (rest_ > 0 && ((block_ - rest_) * in_step_ % 64 != 0 || (block_ - rest_) * out_step_ % 64 != 0)) {
      rest_ = 0;
      return;
    }
    block_ = b;
    // The normalisation of a direction's last FFT, applied to each block while it is in cache.
    fused_scale_ = desc_.scale != 1 && batch_axes_[0] != desc_.out.order.back();
    // With a team of threads and at least a block for each, the blocks are spread over the team,
    // each block one single-threaded FFTW call: FFTW's threaded plan of one block would split a
    // cache-sized piece of work over every thread and wait for all of them, block after block.
    const std::int64_t blocks = block_ > 0 ? whole_batch() / block_ + (rest_ > 0 ? 1 : 0) : 0;
    parallel_blocks_ = pool_ && pool_->size() > 1 && blocks >= pool_->size() && blocks <= (std::int64_t{1} << 30);
  }

  // Multiplies batch members [m, m + count) of the output by desc_.scale, one run of the
  // output's fastest axis at a time (padding and halo cells are the caller's: not written).
  void scale_members(void* out, std::int64_t m, std::int64_t count) const {
    const Layout& l = desc_.out;
    const int dims = l.box.dims();
    const auto st = l.strides();
    const int fast = l.order.back();
    const std::int64_t reals = desc_.kind == FftDesc::Kind::c2r ? 1 : 2;
    const int axis = batch_axes_[0];
    std::vector<std::int64_t> idx(static_cast<std::size_t>(dims), 0), hi(static_cast<std::size_t>(dims));
    for (int a = 0; a < dims; ++a) hi[a] = l.box.extent(a);
    idx[axis] = m;
    hi[axis] = m + count;
    const std::int64_t run = l.box.extent(fast) * reals;
    const T f = static_cast<T>(desc_.scale);
    for (;;) {
      std::int64_t off = 0;
      for (int a = 0; a < dims; ++a) off += idx[a] * st[a];
      T* p = static_cast<T*>(out) + off * reals;
      scaled_copy(p, p, run, f);
      int k = dims - 2;
      for (; k >= 0; --k) {
        const int a = l.order[static_cast<std::size_t>(k)];
        if (++idx[a] < hi[a]) break;
        idx[a] = a == axis ? m : 0;
      }
      if (k < 0) return;
    }
  }

  // `members`: batch members of the slowest batch axis one execution covers (block_ by default).
  typename Fftw<T>::plan make(unsigned flags, void* i, void* o, std::int64_t members = 0) {
    std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    const std::int64_t n = members > 0 ? members : block_;
    fftw_plan_threads(parallel_blocks_ && n < whole_batch() ? 1 : threads_);
    std::vector<fftw_iodim64> h = howmany_;
    if (!h.empty()) h[0].n = n;
    const int r = static_cast<int>(dims_.size()), nh = static_cast<int>(h.size());
    switch (desc_.kind) {
      case FftDesc::Kind::r2c: return Fftw<T>::r2c(r, dims_.data(), nh, h.data(), i, o, flags);
      case FftDesc::Kind::c2r:
        return Fftw<T>::c2r(r, dims_.data(), nh, h.data(), i, o, flags | FFTW_DESTROY_INPUT);
      case FftDesc::Kind::forward:
        return Fftw<T>::dft(r, dims_.data(), nh, h.data(), i, o, FFTW_FORWARD, flags);
      case FftDesc::Kind::backward:
        return Fftw<T>::dft(r, dims_.data(), nh, h.data(), i, o, FFTW_BACKWARD, flags);
    }
    return nullptr;
  }
  // The copying execution (execute_copying) of an FFT of copying_shape(): each plane of the
  // outer batch cut into blocks of columns of about kBlockBytes (gather_block_bytes() through a
  // buffer), each transformed by FFTW's
  // in-place FFT of `copy_v_` adjacent columns. Where the input holds a block's columns in rows
  // as the output does and every outer plane starts at the output's alignment, the block is
  // copied into its place in the output and transformed there (copy_direct_); else it is
  // gathered into a packed buffer of its own (one per thread of the team), whose rows are one
  // block wide, transformed there and stored. A plan made in place (one scratch array) copies
  // only where the input and the output lie in one order.
  void plan_copying() {
    if (!dev_ || !copying_shape(desc_)) return;
    copy_in_place_ = true;
    for (const auto& x : dims_) copy_in_place_ = copy_in_place_ && x.is == x.os;
    for (const auto& h : howmany_) copy_in_place_ = copy_in_place_ && h.is == h.os;
    if (scratch_in_ == scratch_out_ && !copy_in_place_) return;
    std::int64_t span = 1;  // complex elements of the inner batch: the members below the rows
    bool same = true;
    for (const auto& h : howmany_)
      if (h.os < dims_[0].os) {
        span *= h.n;
        same = same && h.is == h.os;
        copy_inner_.insert(copy_inner_.begin(), h);  // fastest first
      } else {
        outer_.push_back(h);
      }
    if (same) copy_inner_.clear();  // the input's rows hold the block's columns contiguously
    const std::int64_t elem = 2 * static_cast<std::int64_t>(sizeof(T)), step = 64 / elem;
    // A block transformed in the output reads that memory before writing it; through a buffer
    // the output is only written, and where it far exceeds the cache, with streaming stores.
    stream_ = stream_output(desc_.out.box.count() * elem);
    copy_direct_ = same && !stream_;
    for (const auto& h : outer_)
      if (h.n > 1 && h.os * elem % 64 != 0) copy_direct_ = false;
    const std::int64_t forced = block_override();
    std::int64_t v = forced > 0 ? forced : (copy_direct_ ? kBlockBytes : gather_block_bytes()) / (dims_[0].n * elem);
    v = std::max(step, v - v % step);  // every row of the buffer at the first one's alignment
    if (v >= span) v = span;
    copy_v_ = v;
    copy_rest_ = span % v;
    const std::int64_t blocks = outer_planes() * (span / v + (copy_rest_ > 0 ? 1 : 0));
    const bool parallel = pool_ && pool_->size() > 1 && blocks >= pool_->size();
    copy_parts_ = parallel ? pool_->size() : 1;
    const std::size_t bytes = static_cast<std::size_t>(dims_[0].n * v * elem);
    if (!copy_direct_)
      for (int t = 0; t < copy_parts_; ++t) copy_bufs_.emplace_back(*dev_, bytes);
    T* b = copy_direct_ ? static_cast<T*>(scratch_out_) : static_cast<T*>(copy_bufs_[0].get());
    copy_align_ = Fftw<T>::alignment(b);
    copy_ld_ = copy_direct_ ? span : v;
    auto plan = [&](std::int64_t count) {
      std::lock_guard<std::mutex> lock(fftw_planner_mutex());
      fftw_plan_threads(parallel ? 1 : threads_);
      const fftw_iodim64 dim{dims_[0].n, copy_ld_, copy_ld_}, batch{count, 1, 1};
      auto p = Fftw<T>::dft(1, &dim, 1, &batch, b, b, desc_.kind == FftDesc::Kind::forward ? FFTW_FORWARD : FFTW_BACKWARD,
                            planner_flags(desc_));
      if (!p) planning_failed(desc_, "fftw_plan_guru64_dft", describe() + " in blocks of columns");
      return p;
    };
    copy_plan_ = plan(v);
    if (copy_rest_ > 0) copy_tail_ = plan(copy_rest_);
    copying_ = true;
  }

  std::string describe() const {
    std::string s = "fft of rank " + std::to_string(dims_.size()) + " (n =";
    for (auto& d : dims_) (s += ' ') += std::to_string(d.n);
    return s + ")";
  }

  FftDesc desc_;
  void *scratch_in_, *scratch_out_;
  int threads_;
  std::vector<fftw_iodim64> dims_, howmany_;
  std::vector<int> batch_axes_;  // the global axis of each howmany_ entry
  // Batch members of howmany_[0] per FFTW call, the remainder's count, and the byte steps
  // between consecutive members in the input and the output.
  std::int64_t block_ = 1, rest_ = 0, in_step_ = 0, out_step_ = 0;
  bool fused_scale_ = false;
  bool copy_block_ = false;  // out of place: each block copied into the output, transformed there
  bool stage_ = false;       // out of place: each block transformed in a buffer, streamed to the output
  std::vector<Buffer> stage_bufs_;  // one block's buffer per part
  WorkPool* pool_;
  bool parallel_blocks_ = false;  // blocks run on pool_'s threads, each by a single-threaded plan
  typename Fftw<T>::plan plan_ = nullptr, tail_ = nullptr, unaligned_ = nullptr;
  int align_in_ = 0, align_out_ = 0;
  // The copying execution (plan_copying): columns per block, the last block's columns, the
  // block geometry, its buffers and plans.
  bool copying_ = false;
  bool local_ = false;  // this rank holds part of the FFT's data
  std::int64_t copy_v_ = 0, copy_rest_ = 0;
  std::vector<fftw_iodim64> outer_;  // the outer batch (slowest first): planes of the copying FFT
  std::vector<fftw_iodim64> copy_inner_;  // the inner batch, fastest first, if the input's order differs
  bool copy_in_place_ = false;            // the input and the output lie in one order
  Device* dev_;
  std::vector<Buffer> copy_bufs_;  // one packed block buffer per part
  int copy_parts_ = 1, copy_align_ = 0;
  bool copy_direct_ = false;    // blocks are copied into the output and transformed there
  bool stream_ = false;         // blocks gathered through a buffer are stored with stream_copy
  std::int64_t copy_ld_ = 0;    // complex elements between a block's rows where it is transformed
  typename Fftw<T>::plan copy_unaligned_ = nullptr;
  std::int64_t outer_planes() const {
    std::int64_t p = 1;
    for (const auto& h : outer_) p *= h.n;
    return p;
  }
  // Complex elements from the array's start to outer plane p (p counted slowest axis first), in
  // the input or the output.
  std::int64_t plane_offset(std::int64_t p, bool input) const {
    std::int64_t off = 0;
    for (auto h = outer_.rbegin(); h != outer_.rend(); ++h) {
      off += (p % h->n) * (input ? h->is : h->os);
      p /= h->n;
    }
    return off;
  }
  typename Fftw<T>::plan copy_plan_ = nullptr, copy_tail_ = nullptr;
};

fftw_r2r_kind fftw_kind(R2R k) {
  // FFTW's DFT-based real kinds have no DCT/DST type: FFTW's guru r2r runs them as they are.
  if (k == R2R::r2hc) return FFTW_R2HC;
  if (k == R2R::hc2r) return FFTW_HC2R;
  if (k == R2R::dht) return FFTW_DHT;
  static constexpr fftw_r2r_kind cosines[] = {FFTW_REDFT00, FFTW_REDFT10, FFTW_REDFT01, FFTW_REDFT11};
  static constexpr fftw_r2r_kind sines[] = {FFTW_RODFT00, FFTW_RODFT10, FFTW_RODFT01, FFTW_RODFT11};
  const int t = r2r_type(k);
  if (t == 0) fail_internal("a periodic axis has no FFTW r2r kind");
  return (r2r_is_sine(k) ? sines : cosines)[t - 1];
}

// A step with DCT/DST axes. Its periodic axes go first, by a complex (or r2c / c2r) FFT from
// `in` to `out`; the DCT/DST axes then run as one FFTW r2r plan, in place on `out` (or
// from `in` to `out` when there is no periodic axis). Complex data are transformed as two real
// arrays, real and imaginary parts (r2r is linear): one more batch dimension of extent 2.
template <class T>
class FftwR2r final : public LocalFft {
 public:
  FftwR2r(const FftDesc& d, void* si, void* so, int threads) : scratch_out_(so), threads_(threads) {
    for (int a = 0; a < d.in.box.dims(); ++a)
      if (d.in.box.extent(a) == 0) return;  // nothing local to do
    FftDesc periodic = d;
    periodic.axes.clear();
    std::vector<bool> trig(d.in.box.dims(), false);
    for (int a : d.axes) {
      if (d.r2r[a] == R2R::none) periodic.axes.push_back(a);
      else trig[a] = true;
    }
    if (!periodic.axes.empty()) first_ = std::make_unique<FftwLocal<T>>(periodic, si, so, threads);
    const Layout& src = first_ ? d.out : d.in;
    scratch_in_ = first_ ? so : si;
    // Reals per element of the output (c2r: the periodic part has made the data real).
    const bool real = d.real || d.kind == FftDesc::Kind::c2r;
    const std::int64_t m = real ? 1 : 2;
    auto is = src.strides(), os = d.out.strides();
    for (int a : d.axes)
      if (trig[a]) {
        dims_.push_back({src.box.extent(a), m * is[a], m * os[a]});
        kinds_.push_back(fftw_kind(d.r2r[a]));
      }
    for (int a : d.out.order)
      if (!trig[a]) howmany_.push_back({src.box.extent(a), m * is[a], m * os[a]});
    if (!real) howmany_.push_back({2, 1, 1});
    plan_ = make(planner_flags(d));
    if (!plan_) planning_failed(d, "fftw_plan_guru64_r2r", "an r2r transform of rank " + std::to_string(dims_.size()));
    align_in_ = Fftw<T>::alignment(scratch_in_);
    align_out_ = Fftw<T>::alignment(scratch_out_);
  }
  ~FftwR2r() override {
    std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    if (plan_) Fftw<T>::destroy(plan_);
    if (unaligned_) Fftw<T>::destroy(unaligned_);
  }
  void execute(void* in, void* out) override {
    if (!plan_) return;
    if (first_) {
      first_->execute(in, out);
      in = out;
    }
    auto p = plan_;
    if (Fftw<T>::alignment(in) != align_in_ || Fftw<T>::alignment(out) != align_out_) {
      if (!unaligned_) unaligned_ = make(FFTW_ESTIMATE | FFTW_UNALIGNED);
      if (!unaligned_) fail_library(LibraryError::Library::fftw, "fftw_plan_guru64_r2r", -1, "FFTW could not plan an unaligned r2r transform");
      p = unaligned_;
    }
    Fftw<T>::exec_r2r(p, in, out);
  }

 private:
  typename Fftw<T>::plan make(unsigned flags) {
    std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    fftw_plan_threads(threads_);
    return Fftw<T>::r2r(static_cast<int>(dims_.size()), dims_.data(),
                        static_cast<int>(howmany_.size()), howmany_.data(), scratch_in_,
                        scratch_out_, kinds_.data(), flags);
  }

  std::unique_ptr<FftwLocal<T>> first_;
  void *scratch_in_ = nullptr, *scratch_out_;
  int threads_;
  std::vector<fftw_iodim64> dims_, howmany_;
  std::vector<fftw_r2r_kind> kinds_;
  typename Fftw<T>::plan plan_ = nullptr, unaligned_ = nullptr;
  int align_in_ = 0, align_out_ = 0;
};

bool has_r2r_axis(const FftDesc& d) {
  for (int a : d.axes)
    if (!d.r2r.empty() && d.r2r[a] != R2R::none) return true;
  return false;
}

// A step of three or more FFT axes (the whole array on one rank) has no batch along which
// FftwLocal could block it: FFTW runs it as passes over the whole array, each from memory. The
// split (split_fft.hpp) runs the FFT of all but the slowest axis, whose batch is then that axis
// and so runs in cache-sized blocks, and the slowest axis alone in place. Which is faster depends
// on the size and the machine (one rank of a 16-core Xeon host: the split's forward 111-124
// against 139-149 ms at 256^3, and slower than the one plan at 512^3), so it is timed. Not for
// two axes: the rest would be one axis, and the two passes over memory are what the blocked
// two-axis plan saves.
struct CpuSplit {
  FftDesc rest, column;
  bool column_first;  // c2r: the complex pass over the slowest axis before the c2r of the rest
};

std::optional<CpuSplit> cpu_split(const FftDesc& d) {
  if (d.axes.size() < 3 || d.real || has_r2r_axis(d) || d.in.order != d.out.order) return std::nullopt;
  const bool c2r = d.kind == FftDesc::Kind::c2r;
  const Layout& spectral = c2r ? d.in : d.out;
  const int slow = slowest_fft_axis(d.axes, spectral.order);
  if ((c2r || d.kind == FftDesc::Kind::r2c) && slow == d.axes.back()) return std::nullopt;  // the halved axis
  CpuSplit s{d, d, c2r};
  s.rest.axes.erase(std::find(s.rest.axes.begin(), s.rest.axes.end(), slow));
  s.rest.engine = FftDesc::Engine::library;
  s.column.kind = d.kind == FftDesc::Kind::backward || c2r ? FftDesc::Kind::backward : FftDesc::Kind::forward;
  s.column.axes = {slow};
  s.column.in = s.column.out = spectral;
  s.column.scale = 1;  // the rest applies it, in its blocks
  s.column.engine = FftDesc::Engine::library;
  return s;
}

// Seconds of one execution on the plan's scratch buffers, the best of two after a warm-up; the
// input is zeroed before each (a c2r spends it, and planners leave anything in the buffers).
double seconds_on_scratch(LocalFft& f, const FftDesc& d, void* si, void* so) {
  const auto bytes = static_cast<std::size_t>(d.in.alloc_count()) * elem_in(d);
  double best = std::numeric_limits<double>::infinity();
  for (int rep = 0; rep < 3; ++rep) {
    std::memset(si, 0, bytes);
    const auto t0 = std::chrono::steady_clock::now();
    f.execute(si, so);
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (rep > 0) best = std::min(best, t);
  }
  return best;
}

// Options::threads: FFTW's threads for the local FFTs, and a team of the same size for copies
// and codecs (none for one thread: the serial code, unchanged).
class CpuDevice final : public Device {
 public:
  explicit CpuDevice(int threads)
      : threads_(threads), pool_(threads > 1 ? std::make_unique<WorkPool>(threads) : nullptr) {}
  std::string name() const override { return "cpu"; }
  bool on_device() const override { return false; }
  int threads() const override { return threads_; }
  void* alloc(std::size_t bytes) override {
    void* p = fftw_malloc(bytes);
    if (!p) fail_alloc("fftw_malloc", ENOMEM, static_cast<std::int64_t>(bytes), "out of host memory allocating ", bytes, " bytes");
    return p;
  }
  void release(void* p) noexcept override { fftw_free(p); }
  std::int64_t available_bytes() const override {
    const HostMemory m = host_memory();
    return m.cgroup_available >= 0 && (m.mem_available == 0 || m.cgroup_available < m.mem_available)
               ? m.cgroup_available
               : m.mem_available;
  }
  std::unique_ptr<LocalFft> make_fft(const FftDesc& d, void* si, void* so) override {
    if (has_r2r_axis(d)) {
      if (d.is_double) return std::make_unique<FftwR2r<double>>(d, si, so, threads_);
      return std::make_unique<FftwR2r<float>>(d, si, so, threads_);
    }
    const auto split = d.engine == FftDesc::Engine::library ? std::nullopt : cpu_split(d);
    if (!split) return plain(d, si, so);
    const EnginePolicy policy = engine_policy("DFFT_FFT_SPLIT");  // docs/environment.md
    auto own = [&] { return make_split(*split, si, so); };
    if (d.engine == FftDesc::Engine::own || policy == EnginePolicy::always)
      if (auto f = own()) return f;
    if (policy == EnginePolicy::timed && d.effort != Effort::estimate && si && so)
      return faster_fft(fft_problem_key(*this, d) + " split", "FFTW", [&] { return plain(d, si, so); }, own,
                        [&](LocalFft& f) { return seconds_on_scratch(f, d, si, so); });
    return plain(d, si, so);
  }
  bool own_fft_applies(const FftDesc& d) const override { return cpu_split(d).has_value(); }
  bool fft_copies(const FftDesc& d) const override {
    return !has_r2r_axis(d) && copying_shape(d);  // make_fft's FftwLocal (cpu_split needs three axes)
  }
  void copy_box(const void* src, const Layout& sl, void* dst, const Layout& dl, const Box& box,
                std::size_t elem) override {
    host_copy_box(src, sl, dst, dl, box, elem, pool_.get());
  }
  void encode_box(const void* src, const Layout& sl, const Box& box, const std::vector<int>& order,
                  void* dst, Codec c, bool is_double) override {
    host_encode_box(src, sl, box, order, dst, c, is_double, pool_.get());
  }
  void decode_box(const void* src, const std::vector<int>& order, void* dst, const Layout& dl,
                  const Box& box, Codec c, bool is_double) override {
    host_decode_box(src, order, dst, dl, box, c, is_double, pool_.get());
  }
  void upload(void* dst, const void* src, std::size_t bytes) override { std::memcpy(dst, src, bytes); }
  void download(void* dst, const void* src, std::size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }
  void zero(void* data, std::size_t bytes) override { std::memset(data, 0, bytes); }
  // A multiply on the way costs a copy loop nothing it would not spend on memory anyway.
  bool scale_copy(const void* src, void* dst, std::int64_t n, double f, bool is_double) override {
    if (is_double) scaled_copy(static_cast<const double*>(src), static_cast<double*>(dst), n, f);
    else scaled_copy(static_cast<const float*>(src), static_cast<float*>(dst), n, static_cast<float>(f));
    return true;
  }
  void scale(void* data, std::int64_t n, double f, bool is_double) override { scale_copy(data, data, n, f, is_double); }

 private:
  std::unique_ptr<LocalFft> plain(const FftDesc& d, void* si, void* so) {
    if (d.is_double) return std::make_unique<FftwLocal<double>>(d, si, so, threads_, pool_.get(), this);
    return std::make_unique<FftwLocal<float>>(d, si, so, threads_, pool_.get(), this);
  }
  // Null where FFTW cannot plan one of the passes: the step then runs as one plan.
  std::unique_ptr<LocalFft> make_split(const CpuSplit& s, void* si, void* so) {
    void* spectral = s.column_first ? si : so;  // the column pass runs in place there
    try {
      auto rest = plain(s.rest, si, so);
      auto column = plain(s.column, spectral, spectral);
      const std::string r = "over (" + axes_text(s.rest.axes) + ")",
                        c = "over (" + axes_text(s.column.axes) + ") in place";
      return std::make_unique<SplitFft>(std::move(rest), std::move(column), s.column_first,
                                        "FFTW " + (s.column_first ? c + ", then " + r : r + ", then " + c));
    } catch (const LibraryError&) {
      return nullptr;
    }
  }

  int threads_;
  std::unique_ptr<WorkPool> pool_;
};

}  // namespace

void Device::encode_box(const void*, const Layout&, const Box&, const std::vector<int>&, void*, Codec c,
                        bool) {
  unsupported("codec ", to_string(c), " is not implemented on the ", name(), " backend");
}
void Device::decode_box(const void*, const std::vector<int>&, void*, const Layout&, const Box&, Codec c,
                        bool) {
  unsupported("codec ", to_string(c), " is not implemented on the ", name(), " backend");
}

namespace {
// Host clock marks: on the CPU work is done when the call that queued it returns.
class HostMarks final : public Marks {
 public:
  explicit HostMarks(int n) : t_(static_cast<std::size_t>(n)) {}
  void record(int slot) override { t_.at(static_cast<std::size_t>(slot)) = std::chrono::steady_clock::now(); }
  void stream_wait(int) override {}
  void host_wait(int) override {}
  double seconds(int from, int to) override {
    return std::chrono::duration<double>(t_.at(static_cast<std::size_t>(to)) -
                                         t_.at(static_cast<std::size_t>(from))).count();
  }

 private:
  std::vector<std::chrono::steady_clock::time_point> t_;
};
}  // namespace

std::unique_ptr<Marks> Device::make_marks(int n) { return std::make_unique<HostMarks>(n); }

std::string fft_problem_key(const Device& dev, const FftDesc& d) {
  std::ostringstream k;
  k << dev.name() << ' ' << dev.ordinal() << ' ' << dev.threads() << ' ' << d.is_double << ' '
    << static_cast<int>(d.kind) << ' ' << (d.scale != 1) << ' ' << d.scale_on_load << " axes";
  for (int a : d.axes) k << ' ' << a;
  for (const Layout* l : {&d.in, &d.out}) {
    // Extents, allocated extents and offsets; whether it is padded at all (a layout padded to
    // its own extents has other candidates than a dense one: not row-major for the grouped c2r).
    k << " |" << (l->padded.empty() ? " dense" : " padded");
    for (int a = 0; a < l->box.dims(); ++a)
      k << ' ' << l->box.extent(a) << ':' << l->alloc_extent(a) << '@' << l->offset_on(a);
    k << " order";
    for (int a : l->order) k << ' ' << a;
  }
  return k.str();
}

void Device::nccl_prepare(MPI_Comm) { unsupported("method nccl needs the CUDA backend (device memory, one GPU per rank)"); }

void Device::nccl_send_recv(MPI_Comm, const std::vector<Message>&, const std::vector<Message>&) {
  unsupported("method nccl needs the CUDA backend (device memory, one GPU per rank)");
}

std::unique_ptr<Device> make_cpu_device(int threads) { return std::make_unique<CpuDevice>(threads); }

}  // namespace dfft::detail
