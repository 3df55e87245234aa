// SPDX-License-Identifier: MIT
#include "dfft/validate.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>
#include <vector>

#include "plan/axes.hpp"
#include "util/check.hpp"

namespace dfft::validate {

namespace {

using cd = std::complex<double>;

// Visit every element of `l` in memory order with its index in the `dims`-dimensional array and its
// local offset. A batched plan's layouts carry the batch as leading axes: every member of the batch
// is visited with the same array index, so each is checked against the one reference.
template <class F>
void for_each_index(const Layout& l, std::size_t dims, F&& f) {
  const int d = l.box.dims();
  if (l.box.empty()) return;
  const auto skip = static_cast<std::ptrdiff_t>(static_cast<std::size_t>(d) - std::min<std::size_t>(dims, d));
  std::vector<std::int64_t> idx = l.box.lo, at(idx.begin() + skip, idx.end());
  while (true) {
    std::copy(idx.begin() + skip, idx.end(), at.begin());
    f(at, l.offset_of(idx));  // padded layouts (user boxes, in-place r2c) have gaps
    int k = d - 1;
    for (; k >= 0; --k) {
      int a = l.order[k];
      if (++idx[a] < l.box.hi[a]) break;
      idx[a] = l.box.lo[a];
    }
    if (k < 0) return;
  }
}

std::int64_t linear(const std::vector<std::int64_t>& idx, const std::vector<std::int64_t>& shape) {
  std::int64_t i = 0;
  for (std::size_t a = 0; a < shape.size(); ++a) i = i * shape[a] + idx[a];
  return i;
}

// Host copies of the plan's input and output arrays, moved to/from plan memory on demand.
// `r2c`: real input (r2c and r2r plans); r2r plans also have a real output (`real_out`).
template <class T>
struct Arrays {
  Plan<T>& plan;
  bool r2c, r2r;
  std::vector<T> real_in, real_out;
  std::vector<std::complex<T>> cin, out;
  void *d_in = nullptr, *d_out = nullptr;
  std::size_t in_bytes, out_bytes;
  explicit Arrays(Plan<T>& p)
      : plan(p), r2c(p.options().transform != Transform::c2c), r2r(p.options().transform == Transform::r2r) {
    in_bytes = static_cast<std::size_t>(p.input_count()) * (r2c ? sizeof(T) : sizeof(std::complex<T>));
    out_bytes = static_cast<std::size_t>(p.output_count()) * (r2r ? sizeof(T) : sizeof(std::complex<T>));
    if (r2c) real_in.resize(p.input_count()); else cin.resize(p.input_count());
    if (r2r) real_out.resize(p.output_count()); else out.resize(p.output_count());
    d_in = p.allocate(std::max<std::size_t>(in_bytes, 1));
    d_out = p.allocate(std::max<std::size_t>(out_bytes, 1));
  }
  ~Arrays() {
    plan.deallocate(d_in);
    plan.deallocate(d_out);
  }
  void* host_in() { return r2c ? static_cast<void*>(real_in.data()) : static_cast<void*>(cin.data()); }
  void* host_out() { return r2r ? static_cast<void*>(real_out.data()) : static_cast<void*>(out.data()); }
  void forward() {
    plan.upload(d_in, host_in(), in_bytes);
    if (r2r) plan.forward(static_cast<T*>(d_in), static_cast<T*>(d_out));
    else if (r2c) plan.forward(static_cast<T*>(d_in), static_cast<std::complex<T>*>(d_out));
    else plan.forward(static_cast<std::complex<T>*>(d_in), static_cast<std::complex<T>*>(d_out));
    plan.download(host_out(), d_out, out_bytes);
  }
  void inverse() {
    plan.upload(d_out, host_out(), out_bytes);
    if (r2r) plan.inverse(static_cast<T*>(d_out), static_cast<T*>(d_in));
    else if (r2c) plan.inverse(static_cast<std::complex<T>*>(d_out), static_cast<T*>(d_in));
    else plan.inverse(static_cast<std::complex<T>*>(d_out), static_cast<std::complex<T>*>(d_in));
    plan.download(host_in(), d_in, in_bytes);
  }
  cd in_at(std::int64_t off) const {
    return r2c ? cd(real_in[off], 0) : cd(cin[off].real(), cin[off].imag());
  }
};

// Whether every axis is periodic: the serial reference and the Laplacian are periodic FFTs, which
// DCT/DST axes are not (their own checks: tests/features/r2r_test.cpp, the round trip).
bool periodic(const Options& o) {
  return std::all_of(o.r2r.begin(), o.r2r.end(), [](R2R k) { return k == R2R::none; });
}

double total(const std::vector<std::int64_t>& s) {
  double n = 1;
  for (auto v : s) n *= static_cast<double>(v);
  return n;
}

double rel_l2(double num, double den, MPI_Comm comm) {
  double loc[2] = {num, den}, glob[2];
  DFFT_MPI(MPI_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_SUM, comm));
  return glob[1] > 0 ? std::sqrt(glob[0] / glob[1]) : std::sqrt(glob[0]);
}

template <class T>
void fill_random(Arrays<T>& a, std::uint64_t seed) {
  const auto& shape = a.plan.shape();
  for_each_index(a.plan.input_layout(), a.plan.shape().size(), [&](const auto& idx, std::int64_t off) {
    auto i = static_cast<std::uint64_t>(linear(idx, shape));
    if (a.r2c) a.real_in[off] = static_cast<T>(random_value(i, seed));
    else a.cin[off] = {static_cast<T>(random_value(i, seed)), static_cast<T>(random_value(i, seed + 7))};
  });
}

}  // namespace

double random_value(std::uint64_t i, std::uint64_t seed) {
  // splitmix64
  std::uint64_t z = i * 0x9E3779B97F4A7C15ull + seed * 0xBF58476D1CE4E5B9ull + 0x94D049BB133111EBull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) / static_cast<double>(1ull << 52) - 1.0;
}

template <class T>
double reference_error(Plan<T>& plan, MPI_Comm comm, std::int64_t max_serial) {
  const auto& shape = plan.shape();
  if (total(shape) > static_cast<double>(max_serial) || !periodic(plan.options())) return not_run;
  Arrays<T> a(plan);
  fill_random(a, 1);
  a.forward();
  // Serial reference of the whole array on every rank, in double precision: FFTW's basic
  // interface on a natural-order array, sharing no code with dfft's planner or exchanges.
  const bool r2c = a.r2c;
  auto spec = plan.spectral_shape();
  const auto n_in = static_cast<std::size_t>(total(shape)), n_out = static_cast<std::size_t>(total(spec));
  std::vector<int> n(shape.begin(), shape.end());
  std::vector<double> rin;
  std::vector<cd> cin, ref(n_out);
  fftw_plan p;
  if (r2c) {
    rin.resize(n_in);
    for (std::size_t i = 0; i < n_in; ++i) rin[i] = static_cast<double>(static_cast<T>(random_value(i, 1)));
    p = fftw_plan_dft_r2c(static_cast<int>(n.size()), n.data(), rin.data(),
                          reinterpret_cast<fftw_complex*>(ref.data()), FFTW_ESTIMATE);
  } else {
    cin.resize(n_in);
    for (std::size_t i = 0; i < n_in; ++i)
      cin[i] = {static_cast<double>(static_cast<T>(random_value(i, 1))),
                static_cast<double>(static_cast<T>(random_value(i, 8)))};
    p = fftw_plan_dft(static_cast<int>(n.size()), n.data(), reinterpret_cast<fftw_complex*>(cin.data()),
                      reinterpret_cast<fftw_complex*>(ref.data()), FFTW_FORWARD, FFTW_ESTIMATE);
  }
  if (!p) detail::fail_library(LibraryError::Library::fftw, "fftw_plan_dft", -1, "FFTW could not plan the serial reference");
  fftw_execute(p);
  fftw_destroy_plan(p);
  const double scale = norm_factor(plan.options(), shape, false);
  double num = 0, den = 0;
  for_each_index(plan.output_layout(), plan.shape().size(), [&](const auto& idx, std::int64_t off) {
    cd r = ref[static_cast<std::size_t>(linear(idx, spec))] * scale;
    cd g(a.out[off].real(), a.out[off].imag());
    num += std::norm(g - r);
    den += std::norm(r);
  });
  return rel_l2(num, den, comm);
}

namespace {

// What inverse(forward(x)) multiplies x by: 1 for every norm but none (N, FFTW's convention).
double roundtrip_factor(const Options& opt, const std::vector<std::int64_t>& shape) {
  return norm_factor(opt, shape, false) * norm_factor(opt, shape, true) * detail::transform_size(shape, opt);
}

}  // namespace

template <class T>
double roundtrip_error(Plan<T>& plan, MPI_Comm comm) {
  Arrays<T> a(plan);
  fill_random(a, 2);
  std::vector<cd> orig(plan.input_count());
  for (std::size_t i = 0; i < orig.size(); ++i) orig[i] = a.in_at(static_cast<std::int64_t>(i));
  a.forward();
  a.inverse();
  const double f = roundtrip_factor(plan.options(), plan.shape());
  double num = 0, den = 0;
  for (std::size_t i = 0; i < orig.size(); ++i) {
    num += std::norm(a.in_at(static_cast<std::int64_t>(i)) - f * orig[i]);
    den += std::norm(f * orig[i]);  // relative to what the round trip should give (N x under norm none)
  }
  return rel_l2(num, den, comm);
}

template <class T>
double laplacian_error(Plan<T>& plan, MPI_Comm comm) {
  const auto& shape = plan.shape();
  const int d = static_cast<int>(shape.size());
  if (!periodic(plan.options())) return not_run;
  for (auto s : shape)
    if (s < 7) return not_run;  // modes up to 3 must sit below Nyquist
  const double tau = 2 * std::numbers::pi;
  // f = prod_a trig_a(m_a x_a) + cos(2 x_0 + x_1): band-limited, so the spectral Laplacian is
  // exact up to rounding; lap f = -sum m_a^2 * term1 - 5 * term2.
  auto term1 = [&](const std::vector<std::int64_t>& idx) {
    double v = 1;
    for (int ax = 0; ax < d; ++ax) {
      double x = tau * static_cast<double>(idx[ax]) / static_cast<double>(shape[ax]);
      double m = 1 + ax % 3;
      v *= ax % 2 ? std::cos(m * x) : std::sin(m * x);
    }
    return v;
  };
  auto term2 = [&](const std::vector<std::int64_t>& idx) {
    return std::cos(2 * tau * static_cast<double>(idx[0]) / static_cast<double>(shape[0]) +
                    tau * static_cast<double>(idx[1]) / static_cast<double>(shape[1]));
  };
  double msum = 0;
  for (int ax = 0; ax < d; ++ax) msum += (1 + ax % 3) * (1 + ax % 3);
  const cd z(1.0, plan.options().transform == Transform::r2c ? 0.0 : 0.5);
  Arrays<T> a(plan);
  for_each_index(plan.input_layout(), plan.shape().size(), [&](const auto& idx, std::int64_t off) {
    double f = term1(idx) + term2(idx);
    if (a.r2c) a.real_in[off] = static_cast<T>(f);
    else a.cin[off] = {static_cast<T>(f * z.real()), static_cast<T>(f * z.imag())};
  });
  a.forward();
  const auto spec = plan.spectral_shape();
  const bool r2c = a.r2c;
  for_each_index(plan.output_layout(), plan.shape().size(), [&](const auto& idx, std::int64_t off) {
    double k2 = 0;
    for (int ax = 0; ax < d; ++ax) {
      double k = static_cast<double>(idx[ax]);
      if (!(r2c && ax == d - 1) && idx[ax] > shape[ax] / 2) k -= static_cast<double>(shape[ax]);
      k2 += k * k;
    }
    a.out[off] *= static_cast<T>(-k2);
  });
  a.inverse();
  double num = 0, den = 0;
  for_each_index(plan.input_layout(), plan.shape().size(), [&](const auto& idx, std::int64_t off) {
    cd want = (-msum * term1(idx) - 5 * term2(idx)) * z * roundtrip_factor(plan.options(), plan.shape());
    cd got = a.in_at(off);
    num += std::norm(got - want);
    den += std::norm(want);
  });
  (void)spec;
  return rel_l2(num, den, comm);
}

template double reference_error(Plan<float>&, MPI_Comm, std::int64_t);
template double reference_error(Plan<double>&, MPI_Comm, std::int64_t);
template double roundtrip_error(Plan<float>&, MPI_Comm);
template double roundtrip_error(Plan<double>&, MPI_Comm);
template double laplacian_error(Plan<float>&, MPI_Comm);
template double laplacian_error(Plan<double>&, MPI_Comm);

}  // namespace dfft::validate
