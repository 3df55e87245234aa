// SPDX-License-Identifier: MIT
// The overlap suite's comparison, shared by the suite written for every backend (overlap_test.cpp)
// and the GPU-only overlap tests (tests/gpu): an overlapped plan (Options::overlap slices) against
// serial FFTW of the global arrays and the input, and besides against the plain plan of the same
// options (slices must round no worse than whole FFTs), forward and inverse, single or batched, on
// the backend under test (support/backend.hpp).
#pragma once

#include <sstream>

#include "features/feature_util.hpp"

namespace dfft_test {

struct OverlapCase {
  dfft::Decomposition dec;
  dfft::Variant var;
  dfft::Transform tr;
  bool dbl;
  dfft::Method method;
  std::vector<int> grid = {};  // empty: the plan's choice
};

inline std::string overlap_name(const OverlapCase& c) {
  std::ostringstream o;
  o << to_string(c.dec) << "_" << to_string(c.var) << "_" << to_string(c.tr) << (c.dbl ? "_double_" : "_float_")
    << to_string(c.method);
  std::string s = o.str();
  for (auto& ch : s)
    if (ch == '-') ch = '_';
  return s;
}

inline void PrintTo(const OverlapCase& c, std::ostream* os) { *os << overlap_name(c); }

inline dfft::Options overlap_options(const OverlapCase& c, int slices) {
  dfft::Options o = backend_options();
  o.effort = dfft::Effort::estimate;  // many plans: FFTW_MEASURE would dominate the run
  o.decomposition = c.dec;
  o.variant = c.var;
  o.transform = c.tr;
  o.methods = {c.method};
  o.grid = c.grid;
  o.overlap = slices;
  return o;
}

/// Sliced FFT plans may round differently from whole ones (cuFFT more than FFTW).
template <class T>
double overlap_tol() {
  if (std::is_same_v<T, double>) return on_cuda() ? 1e-12 : 1e-13;
  return on_cuda() ? 2e-5 : 2e-6;
}

/// Overlapped (slices) on `shape` against serial FFTW (forward) and the input (inverse), and
/// against the plain plan, batch 1 or more: array b of the batch holds the global signal of seed
/// b. On cuda the overlapped plan runs three times: its buffers and events are reused across calls.
template <class T, class In>
void compare_overlap(const OverlapCase& c, const Shape& shape, int slices, int batch) {
  using C = std::complex<T>;
  auto ov = make_plan<T>(shape, overlap_options(c, slices));
  // The plain plan on the overlapped plan's grid: the automatic choice weighs the slices and may
  // rank the grids otherwise, and the comparison is of one path with and without them.
  dfft::Options po = overlap_options(c, 1);
  if (ov && po.grid.empty()) po.grid = ov->grid();
  auto plain = make_plan<T>(shape, po);
  if (!plain || !ov) return;  // ranks share a GPU and the method cannot: make_plan skipped the test
  EXPECT_EQ(ov->overlap_slices(), slices);
  const auto ni = static_cast<std::size_t>(plain->input_count());
  const auto no = static_cast<std::size_t>(plain->output_count());
  const bool r2c = c.tr == dfft::Transform::r2c;
  std::vector<In> in_h(batch * ni);
  for (int b = 0; b < batch; ++b) {
    const auto one = make_local<In>(ov->input_layout(), shape, b);
    ASSERT_EQ(one.size(), ni);
    std::copy(one.begin(), one.end(), in_h.begin() + b * static_cast<std::ptrdiff_t>(ni));
  }
  Shape spec = shape;
  if (r2c) spec.back() = spec.back() / 2 + 1;
  std::vector<std::vector<cd>> serial;
  for (int b = 0; b < batch; ++b) serial.push_back(serial_forward(shape, global_signal(shape, b, r2c), r2c));
  DevArray<In> in(in_h), back_want(batch * ni), back_got(batch * ni);
  DevArray<C> want(batch * no), got(batch * no);
  if (batch > 1) {
    plain->prepare_batch(batch);
    ov->prepare_batch(batch);
  }
  auto run = [&](const dfft::Plan<T>& p, DevArray<C>& out, DevArray<In>& back) {
    if (batch == 1) {
      p.forward(in.get(), out.get());
      p.inverse(out.get(), back.get());
    } else {
      p.forward(batch, in.get(), out.get());
      p.inverse(batch, out.get(), back.get());
    }
  };
  run(*plain, want, back_want);
  const auto want_h = want.host(), back_want_h = back_want.host();
  for (int rep = 0; rep < (on_cuda() ? 3 : 1); ++rep) {
    run(*ov, got, back_got);
    const auto got_h = got.host(), back_got_h = back_got.host();
    for (int b = 0; b < batch; ++b)
      EXPECT_LE(rel_max(gather_padded(ov->output_layout(), spec, got_h.data() + b * no), serial[b]), ref_tol<T>())
          << "forward against serial FFTW, array " << b << ", slices " << slices << "\n" << ov->describe();
    // The default norm scales the inverse by 1/N: the input comes back.
    EXPECT_LE(local_rel(back_got_h, in_h), 10 * overlap_tol<T>()) << "inverse against the input, slices " << slices;
    EXPECT_LE(local_rel(got_h, want_h), overlap_tol<T>()) << "forward, slices " << slices << "\n" << ov->describe();
    EXPECT_LE(local_rel(back_got_h, back_want_h), overlap_tol<T>()) << "inverse, slices " << slices;
  }
}

}  // namespace dfft_test
