// SPDX-License-Identifier: MIT
// Padding (Options::padding): a local FFT whose padded axes are truncated after the forward
// transform, or zero-padded before the inverse one, where the data is local along them.
#pragma once

#include <memory>

#include "backend/device.hpp"

namespace dfft::detail {

/// `d` as the path's step gives it (its N-point side is d.out forward, d.in inverse); `wide`
/// that N-point side with the whole padded spectrum on the padded axes. scratch_in/out: the
/// plan's work buffers (large enough for `wide`), used while FFTW plans. halved_n: r2c, the
/// unpadded real size of the halved axis (its parity decides the Nyquist handling).
std::unique_ptr<LocalFft> make_padded_fft(Device& dev, const FftDesc& d, const Layout& wide,
                                          std::int64_t halved_n, void* scratch_in, void* scratch_out);

/// Bytes of device memory make_padded_fft's FFT holds (its spectrum buffer and Nyquist plane).
std::int64_t padded_fft_bytes(const FftDesc& d, const Layout& wide);

}  // namespace dfft::detail
