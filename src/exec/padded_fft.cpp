// SPDX-License-Identifier: MIT
#include "exec/padded_fft.hpp"

#include <algorithm>

#include "plan/geometry.hpp"
#include "util/check.hpp"

namespace dfft::detail {

namespace {

// Along a padded axis of n spectral points out of m, the kept modes are numpy's frequencies of
// an n-point FFT: 0 .. (n+1)/2-1 at the same index, -(n/2) .. -1 at index m-n/2 .. m-1 of the
// padded spectrum and (n+1)/2 .. n-1 of the truncated one. The halved r2c axis keeps 0 .. n-1.
struct Part {
  std::int64_t lo, hi, shift;  // [lo, hi) of the n-point side; padded index = index + shift
};

// `l` viewed so that index i of the view is index i + shift[a] of `l`.
Layout shifted(Layout l, const std::vector<std::int64_t>& shift) {
  for (int a = 0; a < l.box.dims(); ++a) {
    l.box.lo[a] -= shift[a];
    l.box.hi[a] -= shift[a];
  }
  return l;
}

std::int64_t elem_bytes(const FftDesc& d) { return d.is_double ? 16 : 8; }

bool is_inverse(const FftDesc& d) { return d.kind == FftDesc::Kind::c2r || d.kind == FftDesc::Kind::backward; }

// The step's axes whose extent the padding changes.
std::vector<int> padded_axes(const FftDesc& d, const Layout& wide) {
  const Layout& narrow = is_inverse(d) ? d.in : d.out;
  std::vector<int> v;
  for (int a : d.axes)
    if (narrow.box.extent(a) != wide.box.extent(a)) v.push_back(a);
  return v;
}

// Elements of the largest plane across a padded axis (the Nyquist planes).
std::int64_t max_plane(const FftDesc& d, const Layout& wide) {
  std::int64_t most = 1;
  for (int a : padded_axes(d, wide))
    most = std::max(most, wide.box.count() / std::max<std::int64_t>(1, wide.box.extent(a)));
  return most;
}

class PaddedFft final : public LocalFft {
 public:
  PaddedFft(Device& dev, const FftDesc& d, const Layout& wide, std::int64_t halved_n, void* si, void* so)
      : dev_(dev), inverse_(is_inverse(d)),
        narrow_(inverse_ ? d.in : d.out), wide_(wide), elem_(static_cast<std::size_t>(elem_bytes(d))) {
    FftDesc inner = d;
    (inverse_ ? inner.in : inner.out) = wide_;
    fft_ = dev.make_fft(inner, si, so);
    const bool r2c = d.kind == FftDesc::Kind::r2c || d.kind == FftDesc::Kind::c2r;
    axes_ = padded_axes(d, wide);
    for (int a : axes_) {
      const std::int64_t n = narrow_.box.extent(a), m = wide_.box.extent(a);
      if (r2c && a == d.axes.back()) {
        parts_.push_back({{0, n, 0}});
        halved_ = a;
        halved_even_ = halved_n % 2 == 0;
      } else {
        parts_.push_back({{0, (n + 1) / 2, 0}, {(n + 1) / 2, n, m - n}});
      }
    }
    buf_ = Buffer(dev, static_cast<std::size_t>(wide_.alloc_count()) * elem_);
    plane_ = Buffer(dev, static_cast<std::size_t>(max_plane(d, wide)) * elem_);
  }
  void execute(void* in, void* out) override {
    if (narrow_.box.empty()) return;  // nothing on this rank
    if (!inverse_) {
      fft_->execute(in, buf_.get());
      copy_parts(buf_.get(), out, false);
      return;
    }
    dev_.zero(buf_.get(), buf_.bytes());
    copy_parts(in, buf_.get(), true);
    split_nyquist();
    fft_->execute(buf_.get(), out);
  }

 private:
  // Every combination of one part per padded axis is one box copy.
  void copy_parts(const void* src, void* dst, bool to_wide) {
    std::vector<std::size_t> pick(axes_.size(), 0);
    while (true) {
      Box box = narrow_.box;
      std::vector<std::int64_t> shift(static_cast<std::size_t>(box.dims()), 0);
      for (std::size_t k = 0; k < axes_.size(); ++k) {
        const Part& p = parts_[k][pick[k]];
        box.lo[axes_[k]] = p.lo;
        box.hi[axes_[k]] = p.hi;
        shift[axes_[k]] = p.shift;
      }
      const Layout w = shifted(wide_, shift);
      if (!box.empty()) {
        if (to_wide) dev_.copy_box(src, narrow_, dst, w, box, elem_);
        else dev_.copy_box(src, w, dst, narrow_, box, elem_);
      }
      std::size_t k = 0;
      while (k < axes_.size() && ++pick[k] == parts_[k].size()) pick[k++] = 0;
      if (k == axes_.size()) break;
    }
  }
  // An even n's Nyquist mode stands for +n/2 and -n/2 at once; on the padded grid they are two
  // modes, each given half (the padded field stays real where the spectrum is Hermitian). On
  // the halved axis the -n/2 half is the implied conjugate: +n/2 is halved only.
  void split_nyquist() {
    for (std::size_t k = 0; k < axes_.size(); ++k) {
      const int a = axes_[k];
      const std::int64_t n = narrow_.box.extent(a), m = wide_.box.extent(a);
      if (a == halved_ ? !halved_even_ : n % 2 != 0) continue;
      const std::int64_t nyq = a == halved_ ? n - 1 : m - n / 2;  // where the mode sits now
      Box plane = wide_.box;
      plane.lo[a] = nyq;
      plane.hi[a] = nyq + 1;
      const Layout tmp{plane, natural_order(plane.dims()), {}};
      dev_.copy_box(buf_.get(), wide_, plane_.get(), tmp, plane, elem_);
      dev_.scale(plane_.get(), plane.count() * 2, 0.5, elem_ == 16);
      dev_.copy_box(plane_.get(), tmp, buf_.get(), wide_, plane, elem_);
      if (a == halved_) continue;
      std::vector<std::int64_t> shift(static_cast<std::size_t>(plane.dims()), 0);
      shift[a] = nyq - n / 2;  // the copy at +n/2
      Box pos = plane;
      pos.lo[a] = n / 2;
      pos.hi[a] = n / 2 + 1;
      dev_.copy_box(plane_.get(), shifted(tmp, shift), buf_.get(), wide_, pos, elem_);
    }
  }
  Device& dev_;
  bool inverse_;
  Layout narrow_, wide_;
  std::size_t elem_;
  std::unique_ptr<LocalFft> fft_;
  std::vector<int> axes_;                // padded axes of this step
  std::vector<std::vector<Part>> parts_;  // per padded axis
  int halved_ = -1;
  bool halved_even_ = false;  // the halved axis's unpadded real size is even
  Buffer buf_, plane_;
};

}  // namespace

std::unique_ptr<LocalFft> make_padded_fft(Device& dev, const FftDesc& d, const Layout& wide,
                                          std::int64_t halved_n, void* scratch_in, void* scratch_out) {
  // The inner FFT writes a padded buffer that a copy then trims: the caller scales.
  FftDesc plain = d;
  plain.scale = 1;
  return std::make_unique<PaddedFft>(dev, plain, wide, halved_n, scratch_in, scratch_out);
}

std::int64_t padded_fft_bytes(const FftDesc& d, const Layout& wide) {
  return (wide.alloc_count() + max_plane(d, wide)) * elem_bytes(d);
}

}  // namespace dfft::detail
