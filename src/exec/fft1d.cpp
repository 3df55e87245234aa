// SPDX-License-Identifier: MIT
// Distributed 1-D FFT by the four-step algorithm: n = n0 * n1 seen as an n0 x n1 array, FFTs
// along its columns, twiddles, FFTs along its rows, with dfft::Reshape doing every transpose.
#include "dfft/fft1d.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <sstream>
#include <type_traits>
#include <vector>

#include "backend/cpu/fftw_wisdom.hpp"
#include "backend/cpu/work_pool.hpp"
#include "backend/device.hpp"
#include "dfft/option_fields.hpp"
#include "dfft/reshape.hpp"
#include "util/check.hpp"

namespace dfft {

namespace detail::fft1d {

struct Split {
  std::int64_t n0 = 1, n1 = 1;
};

// Every element crosses the network once per transpose whatever the split, so the split decides
// balance: the largest block a rank holds in any of the four distributions (rows of n0, of n1,
// in and out) is kept smallest; among equals the one nearest sqrt(n), then the larger n0, so
// that a prime n keeps its input spread over the ranks.
Split choose_split(std::int64_t n, int ranks) {
  const auto ceil_div = [](std::int64_t a, std::int64_t b) { return (a + b - 1) / b; };
  Split best{n, 1};
  std::int64_t best_cost = std::numeric_limits<std::int64_t>::max(), best_gap = 0;
  for (std::int64_t d = 1; d <= n / d; ++d) {
    if (n % d) continue;
    for (std::int64_t n0 : {n / d, d}) {
      const std::int64_t n1 = n / n0;
      const std::int64_t cost = std::max(ceil_div(n0, ranks) * n1, ceil_div(n1, ranks) * n0);
      const std::int64_t gap = n0 > n1 ? n0 - n1 : n1 - n0;
      if (cost < best_cost || (cost == best_cost && (gap < best_gap || (gap == best_gap && n0 > best.n0)))) {
        best = {n0, n1};
        best_cost = cost;
        best_gap = gap;
      }
    }
  }
  return best;
}

// Every rank must build the same plan: a mismatch would deadlock in the first exchange.
void check_agreement(MPI_Comm comm, const std::vector<std::int64_t>& mine, const char* names) {
  std::vector<std::int64_t> lo(mine.size()), hi(mine.size());
  const int count = static_cast<int>(mine.size());
  DFFT_MPI(MPI_Allreduce(mine.data(), lo.data(), count, MPI_INT64_T, MPI_MIN, comm));
  DFFT_MPI(MPI_Allreduce(mine.data(), hi.data(), count, MPI_INT64_T, MPI_MAX, comm));
  if (lo != hi) fail("Fft1d: ranks disagree on ", names, " (every rank must pass the same values)");
}

}  // namespace detail::fft1d

// The four-step plan's input is A[j0][j1] cut in rows of j0, its output Y[k1][k0] in rows of k1
// (plan_four_step): both contiguous blocks of the natural order.
Fft1dBlocks fft1d_blocks(std::int64_t n, int ranks, int rank) {
  if (ranks <= 1) return {0, n, 0, n};
  const auto s = detail::fft1d::choose_split(n, ranks);
  const Box rows = detail::box_part(Box{{0}, {s.n0}}, 0, ranks, rank);
  const Box cols = detail::box_part(Box{{0}, {s.n1}}, 0, ranks, rank);
  return {rows.lo[0] * s.n1, rows.extent(0) * s.n1, cols.lo[0] * s.n0, cols.extent(0) * s.n0};
}

template <class T>
class Fft1dImpl {
 public:
  using complex = std::complex<T>;

  Fft1dImpl(MPI_Comm comm, std::int64_t n, std::int64_t howmany, const Options& opt)
      : n_(n), h_(howmany), opt_(opt) {
    using namespace detail;
    DFFT_MPI(MPI_Comm_rank(comm, &rank_));
    DFFT_MPI(MPI_Comm_size(comm, &ranks_));
    // Agreement first, so that the refusals below are the same on every rank.
    std::vector<std::int64_t> mine{n, howmany, static_cast<std::int64_t>(sizeof(T)),
                                   static_cast<std::int64_t>(opt.norm), static_cast<std::int64_t>(opt.effort),
                                   static_cast<std::int64_t>(opt.backend), opt.threads,
                                   static_cast<std::int64_t>(opt.methods.size()), opt.max_message_bytes,
                                   static_cast<std::int64_t>(opt.r2r.size()), static_cast<std::int64_t>(opt.padding.size()),
                                   static_cast<std::int64_t>(opt.axes.size()), opt.batch,
                                   static_cast<std::int64_t>(opt.codec), opt.user_workspace};
    for (auto m : opt.methods) mine.push_back(static_cast<std::int64_t>(m));
    fft1d::check_agreement(comm, mine, "n, howmany, precision or options");
    if (n < 1) fail("Fft1d: n must be >= 1, got ", n);
    if (howmany < 1) fail("Fft1d: howmany must be >= 1, got ", howmany);
    if (n > std::numeric_limits<std::int64_t>::max() / howmany)
      fail("Fft1d: n * howmany = ", n, " * ", howmany, " overflows 64-bit indices");
    if (opt.backend == Backend::cuda) unsupported("Fft1d runs on the CPU backend only; the CUDA backend has no 1-D plan yet");
    if (!opt.r2r.empty() || !opt.padding.empty() || !opt.axes.empty())
      fail("Fft1d: r2r, padding and axes are not options of a 1-D complex FFT; leave them empty");
    if (opt.batch != 1) fail("Fft1d: batch must be 1 (pass howmany for several transforms), got ", opt.batch);
    if (opt.codec != Codec::none) fail("Fft1d: compressed exchanges (codec) are not available for 1-D plans");
    if (opt.user_workspace) fail("Fft1d: user_workspace is not available for 1-D plans (the plan holds its buffers)");
    if (opt.methods.size() > 1) fail("Fft1d: methods takes at most one method (used for all three exchanges), got ", opt.methods.size());
    method_ = opt.methods.empty() ? Method::a2a_sync : opt.methods[0];

    dev_ = make_cpu_device(resolve_threads(opt.threads, comm));
    FftwWisdomFile wisdom(fftw_wisdom_path(opt, is_double), is_double);
    blocks_ = fft1d_blocks(n_, ranks_, rank_);
    if (ranks_ == 1)
      plan_one_rank();
    else
      plan_four_step(comm);
    wisdom.save();
  }

  std::int64_t size() const { return n_; }
  std::int64_t howmany() const { return h_; }
  std::int64_t input_start() const { return blocks_.input_start; }
  std::int64_t input_count() const { return blocks_.input_count; }
  std::int64_t output_start() const { return blocks_.output_start; }
  std::int64_t output_count() const { return blocks_.output_count; }
  std::int64_t local_alloc() const { return std::max(input_count(), output_count()) * h_; }

  void execute(const complex* in, complex* out, bool inverse) {
    if (!runs(inverse))
      detail::fail("this plan runs the ", to_string(opt_.directions), " direction only (Options::directions)");
    const int d = inverse ? 1 : 0;
    if (ranks_ == 1) {
      // One in-place plan serves in == out and in != out alike (FFTW plans are one or the other).
      if (in != out && n_ * h_ > 0) std::memcpy(out, in, static_cast<std::size_t>(n_ * h_) * sizeof(complex));
      run_fft(*fft1_[d], out, factor_[d], n_ * h_);
      return;
    }
    auto* a = static_cast<complex*>(cols_buf_.get());
    auto* b = static_cast<complex*>(rows_buf_.get());
    if (!inverse) {
      reshape_[0]->execute(in, a);
      run_fft(*fft0_[0], a, 1, 0);
      twiddle(a, false);
      reshape_[1]->execute(a, b);
      run_fft(*fft1_[0], b, factor_[0], mid_.alloc_count());
      reshape_[2]->execute(b, out);
    } else {
      // The forward steps undone in reverse order, so that inverse(forward(x)) is x in place.
      reshape_[3]->execute(in, b);
      run_fft(*fft1_[1], b, 1, 0);
      reshape_[4]->execute(b, a);
      twiddle(a, true);
      run_fft(*fft0_[1], a, factor_[1], cols_.alloc_count());
      reshape_[5]->execute(a, out);
    }
  }

  std::string describe() const {
    std::ostringstream s;
    s << "1-D c2c FFT of n = " << n_ << (h_ > 1 ? detail::concat(" (", h_, " interleaved transforms)") : std::string())
      << ", " << (is_double ? "double" : "float") << ", " << ranks_ << " rank" << (ranks_ > 1 ? "s" : "")
      << ", norm " << to_string(opt_.norm) << ", FFTW " << get_option(opt_, "effort")
      << ", " << dev_->threads() << " thread" << (dev_->threads() > 1 ? "s" : "") << " per rank\n";
    if (ranks_ == 1) {
      s << "one rank: one FFTW plan of length " << n_ << ", run in place in the output array\n";
    } else {
      s << "four-step: n = n0 * n1 = " << s_.n0 << " * " << s_.n1 << "; input j = j0 * n1 + j1 by rows of j0, "
        << "output k = k0 + n0 * k1 by rows of k1\n"
        << "  reshape[" << to_string(method_) << "] to columns (j1 spread), FFTs of length " << s_.n0
        << " along j0, twiddles exp(-+2 pi i j1 k0 / n)\n"
        << "  reshape[" << to_string(method_) << "] to rows of k0, FFTs of length " << s_.n1 << " along j1 -> k1\n"
        << "  reshape[" << to_string(method_) << "] to rows of k1 (natural order)\n"
        << "inverse: the same steps backwards, from the output blocks to the input blocks\n";
    }
    s << "this rank: input [" << input_start() << ", " << input_start() + input_count() << "), output ["
      << output_start() << ", " << output_start() + output_count() << "), local_alloc " << local_alloc() << "\n";
    return s.str();
  }

 private:
  static constexpr bool is_double = std::is_same_v<T, double>;

  detail::FftDesc fft_desc(const Layout& l, int axis, bool inverse) const {
    detail::FftDesc d{};
    d.kind = inverse ? detail::FftDesc::Kind::backward : detail::FftDesc::Kind::forward;
    d.axes = {axis};
    d.in = d.out = l;
    d.is_double = is_double;
    d.effort = opt_.effort;
    return d;
  }

  // The normalisation, applied by the last FFT as it stores where it can; `factor` 1 (whichever
  // norm leaves this direction unscaled) costs nothing.
  void run_fft(detail::LocalFft& f, complex* data, double factor, std::int64_t count) {
    f.execute(data, data);
    if (factor != 1 && !f.scales()) dev_->scale(data, 2 * count, factor, is_double);
  }

  bool runs(bool inverse) const {
    return runs_direction(opt_.directions, inverse);
  }
  double norm(bool inverse) const {
    Options o;  // only the norm matters for one periodic axis
    o.transform = Transform::c2c;
    o.norm = opt_.norm;
    return norm_factor(o, {n_}, inverse);
  }

  void plan_one_rank() {
    using namespace detail;
    s_ = {n_, 1};
    in_ = Layout{Box{{0, 0, 0}, {n_, 1, h_}}, {0, 1, 2}, {}};
    out_ = Layout{Box{{0, 0, 0}, {n_, 1, h_}}, {1, 0, 2}, {}};
    rows_buf_ = Buffer(*dev_, static_cast<std::size_t>(n_ * h_) * sizeof(complex));
    for (int d = 0; d < 2; ++d) {
      if (!runs(d == 1)) continue;
      factor_[d] = norm(d == 1);
      auto desc = fft_desc(in_, 0, d == 1);
      desc.scale = factor_[d];
      fft1_[d] = dev_->make_fft(desc, rows_buf_.get(), rows_buf_.get());
    }
  }

  void plan_four_step(MPI_Comm comm) {
    using namespace detail;
    s_ = fft1d::choose_split(n_, ranks_);
    // Global index space (j0 or k0, j1 or k1, v): the input is A[j0][j1][v], the output
    // Y[k1][k0][v] (memory order 1, 0, 2), so both blocks are contiguous in natural order.
    const Box all{{0, 0, 0}, {s_.n0, s_.n1, h_}};
    in_ = Layout{box_part(all, 0, ranks_, rank_), {0, 1, 2}, {}};
    // Each FFT runs along the fastest axis of its array: the reshapes do the transposes.
    cols_ = Layout{box_part(all, 1, ranks_, rank_), {1, 2, 0}, {}};
    mid_ = Layout{box_part(all, 0, ranks_, rank_), {0, 2, 1}, {}};
    out_ = Layout{box_part(all, 1, ranks_, rank_), {1, 0, 2}, {}};
    using R = Reshape<complex>;
    const Layout* chain[] = {&in_, &cols_, &mid_, &out_, &mid_, &cols_, &in_};
    for (int i = 0; i < 6; ++i)
      reshape_[i] = std::make_unique<R>(comm, *chain[i], *chain[i + 1], method_, opt_.max_message_bytes);
    cols_buf_ = Buffer(*dev_, static_cast<std::size_t>(cols_.alloc_count()) * sizeof(complex));
    rows_buf_ = Buffer(*dev_, static_cast<std::size_t>(mid_.alloc_count()) * sizeof(complex));
    // Planning under measure overwrites the plan's own buffers, never the caller's arrays.
    collectively(comm, "Fft1d planning", [&] {
      for (int d = 0; d < 2; ++d) {
        if (!runs(d == 1)) continue;  // Options::directions: only what the plan runs is made
        factor_[d] = norm(d == 1);
        // The normalisation rides on the direction's last FFT: along j1 forward, j0 inverse.
        auto d0 = fft_desc(cols_, 0, d == 1), d1 = fft_desc(mid_, 1, d == 1);
        (d == 0 ? d1 : d0).scale = factor_[d];
        fft0_[d] = dev_->make_fft(d0, cols_buf_.get(), cols_buf_.get());
        fft1_[d] = dev_->make_fft(d1, rows_buf_.get(), rows_buf_.get());
      }
      make_twiddles();
    });
  }

  // w[j1][k0] = exp(-2 pi i j1 k0 / n) for this rank's columns j1. j1 * k0 < n0 * n1 = n is an
  // exact integer, so the angle is 2 pi m / n with m exact, evaluated in long double: the
  // error stays at the rounding of the result whatever n is (a product of rounded angles
  // or a recurrence would grow with n).
  void make_twiddles() {
    const std::int64_t c0 = cols_.box.lo[1], cols = cols_.box.extent(1), n0 = s_.n0;
    tw_.resize(static_cast<std::size_t>(cols * n0));
    const long double step = -2 * std::numbers::pi_v<long double> / static_cast<long double>(n_);
    for (std::int64_t c = 0; c < cols; ++c)
      for (std::int64_t k0 = 0; k0 < n0; ++k0) {
        const std::int64_t m = ((c0 + c) * k0) % n_;
        const long double a = step * static_cast<long double>(m);
        tw_[static_cast<std::size_t>(c * n0 + k0)] = complex(static_cast<T>(std::cos(a)), static_cast<T>(std::sin(a)));
      }
  }

  // The columns array is (j1, v, k0) from slowest to fastest.
  void twiddle(complex* a, bool inverse) const {
    const std::int64_t cols = cols_.box.extent(1), n0 = s_.n0;
    for (std::int64_t c = 0; c < cols; ++c) {
      const complex* w = tw_.data() + c * n0;
      for (std::int64_t v = 0; v < h_; ++v) {
        complex* x = a + (c * h_ + v) * n0;
        if (inverse)
          for (std::int64_t k = 0; k < n0; ++k) x[k] *= std::conj(w[k]);
        else
          for (std::int64_t k = 0; k < n0; ++k) x[k] *= w[k];
      }
    }
  }

  std::int64_t n_, h_;
  Options opt_;
  int rank_ = 0, ranks_ = 1;
  Method method_ = Method::a2a_sync;
  detail::fft1d::Split s_;
  Fft1dBlocks blocks_;
  Layout in_, cols_, mid_, out_;
  std::unique_ptr<detail::Device> dev_;
  // Forward: input -> columns -> rows of k0 -> output; inverse: the same chain backwards.
  std::unique_ptr<Reshape<complex>> reshape_[6];
  detail::Buffer cols_buf_, rows_buf_;
  // FFTs along j0 (columns array) and along j1 (rows array); [0] forward, [1] inverse.
  std::unique_ptr<detail::LocalFft> fft0_[2], fft1_[2];
  double factor_[2] = {1, 1};
  std::vector<complex> tw_;
};

template <class T>
Fft1d<T>::Fft1d(MPI_Comm comm, std::int64_t n, std::int64_t howmany, const Options& opt)
    : impl_(std::make_unique<Fft1dImpl<T>>(comm, n, howmany, opt)) {}
template <class T>
Fft1d<T>::~Fft1d() = default;
template <class T>
Fft1d<T>::Fft1d(Fft1d&&) noexcept = default;
template <class T>
Fft1d<T>& Fft1d<T>::operator=(Fft1d&&) noexcept = default;
template <class T>
std::int64_t Fft1d<T>::size() const { return impl_->size(); }
template <class T>
std::int64_t Fft1d<T>::howmany() const { return impl_->howmany(); }
template <class T>
std::int64_t Fft1d<T>::input_start() const { return impl_->input_start(); }
template <class T>
std::int64_t Fft1d<T>::input_count() const { return impl_->input_count(); }
template <class T>
std::int64_t Fft1d<T>::output_start() const { return impl_->output_start(); }
template <class T>
std::int64_t Fft1d<T>::output_count() const { return impl_->output_count(); }
template <class T>
std::int64_t Fft1d<T>::local_alloc() const { return impl_->local_alloc(); }
template <class T>
void Fft1d<T>::forward(const complex* in, complex* out) { impl_->execute(in, out, false); }
template <class T>
void Fft1d<T>::inverse(const complex* in, complex* out) { impl_->execute(in, out, true); }
template <class T>
std::string Fft1d<T>::describe() const { return impl_->describe(); }

template class Fft1d<float>;
template class Fft1d<double>;

}  // namespace dfft
