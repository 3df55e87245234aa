// SPDX-License-Identifier: MIT
// The inverse's c2r when it reads the caller's array (a plan whose inverse starts with its one
// multi-dimensional c2r, as on one rank). FFTW's and cuFFT's multi-dimensional c2r overwrite
// their input, and the caller's input is const. Copying it first costs a full pass over the
// spectrum; splitting the transform instead
// (a complex inverse FFT over the leading axes from the input into the workspace, then the
// c2r of the remaining axes from there, which may destroy it) reads the input once, as part of
// the work. Which split is fastest depends on the size and the library, so an FFT planned with
// Effort::measure or above times them all. The inverse's normalisation is one more pass over
// the output; on the CPU the split that leaves only the last axis for the c2r runs that c2r in
// groups of lines small enough to stay in cache and scales each group there, saving the pass; on
// a GPU the copy scales the spectrum while it copies it (copy_spectrum), saving it too.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend/device.hpp"

namespace dfft::detail {

class KeepInputC2r {
 public:
  virtual ~KeepInputC2r() = default;
  /// `scratch`: a work buffer of the plan (the input's layout fits it); `in` stays as it was.
  /// `factor`: the normalisation the caller applies to `out` afterwards (1: none). Returns true
  /// where this FFT applied it already.
  virtual bool execute(const void* in, void* scratch, void* out, double factor) = 0;
  /// Bytes of FFT-library work area beyond the plan's one-step c2r (cuFFT's).
  virtual std::int64_t work_bytes() const = 0;
  /// "copy" or "c2c(AXES) then c2r(AXES)": what describe() reports.
  virtual std::string name() const = 0;
  /// Each candidate's time where this FFT chose by timing ("copy 10.6 ms; ..."), else empty.
  virtual std::string timings() const = 0;
};

/// Copies the caller's spectrum `in` (layout `l`, complex elements) into `to` (same layout) before
/// a c2r that overwrites its input; where the device copies through a kernel anyway (a GPU) and
/// the layout has no padding, multiplies by `factor` on the way, as the c2r is linear. Returns
/// whether it applied `factor` (always true when `factor` is 1).
bool copy_spectrum(Device& dev, const void* in, const Layout& l, void* to, bool is_double, double factor);

/// Whether `c2r` can run its last axis in groups of lines (the candidate after r axes): on the
/// CPU, with row-major layouts whose last axis is the halved one.
bool keep_input_can_group(const Device& dev, const FftDesc& c2r);

/// One way of keeping the input: `split` 0 is the copy, 1 <= k < r the split after k axes;
/// `grouped`: the c2r of the last axis in groups of lines (where keep_input_can_group);
/// `scale_first`: the c2c applies FftDesc::scale instead of the c2r; `scale_on_load`: as it
/// reads its input, not as it stores (FftDesc::scale_on_load); `copying`: the c2c of the slowest
/// axis copies the input into the workspace block by block and transforms each block there
/// while in cache, normalising on the way (LocalFft::execute_copying; the CPU's).
struct KeepInputCandidate {
  int split = 0;
  bool grouped = false;
  bool scale_first = false;
  bool scale_on_load = false;
  bool copying = false;
};

/// The candidates for `c2r` on `dev`, the copy first; empty where there is nothing to choose
/// (one axis, DCT/DST axes).
std::vector<KeepInputCandidate> keep_input_candidates(const Device& dev, const FftDesc& c2r);

/// `c2r`: the step's inverse FFT description; `whole`: its one-step c2r (kept by the caller).
/// `a`, `b`: the plan's two work buffers, each large enough for either layout, written while
/// the candidates are planned and timed. `choice`: -1 decides (by timing under Effort::measure
/// and above, the copy under estimate); k >= 0 forces keep_input_candidates(dev, c2r)[k].
/// `factor`: the normalisation the plan's inverse applies (candidates are timed with it).
/// Returns nullptr where there is nothing to choose (one axis, DCT/DST axes).
std::unique_ptr<KeepInputC2r> make_keep_input_c2r(Device& dev, const FftDesc& c2r, LocalFft& whole,
                                                  void* a, void* b, double factor = 1,
                                                  int choice = -1);

}  // namespace dfft::detail
