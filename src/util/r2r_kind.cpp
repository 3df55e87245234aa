// SPDX-License-Identifier: MIT
// The DCT/DST kinds as (sine?, type) pairs, and FFTW's DFT-based real kinds beside them:
// inverses and logical sizes in one place, for the planner, the normalisation and both backends.
#include "util/check.hpp"

namespace dfft {

int r2r_type(R2R k) {
  switch (k) {
    case R2R::none: case R2R::r2hc: case R2R::hc2r: case R2R::dht: return 0;
    case R2R::dct1: case R2R::dst1: return 1;
    case R2R::dct2: case R2R::dst2: return 2;
    case R2R::dct3: case R2R::dst3: return 3;
    case R2R::dct4: case R2R::dst4: return 4;
  }
  return 0;
}

bool r2r_is_sine(R2R k) {
  return k == R2R::dst1 || k == R2R::dst2 || k == R2R::dst3 || k == R2R::dst4;
}

bool r2r_is_fftw_only(R2R k) { return k == R2R::r2hc || k == R2R::hc2r || k == R2R::dht; }

R2R r2r_kind(bool sine, int type) {
  static constexpr R2R cosines[] = {R2R::none, R2R::dct1, R2R::dct2, R2R::dct3, R2R::dct4};
  static constexpr R2R sines[] = {R2R::none, R2R::dst1, R2R::dst2, R2R::dst3, R2R::dst4};
  if (type < 0 || type > 4) detail::fail("DCT/DST types are 1 to 4, got ", type);
  return sine ? sines[type] : cosines[type];
}

R2R r2r_inverse(R2R k) {
  if (k == R2R::r2hc) return R2R::hc2r;
  if (k == R2R::hc2r) return R2R::r2hc;
  if (k == R2R::dht) return R2R::dht;
  const int t = r2r_type(k);
  return r2r_kind(r2r_is_sine(k), t == 2 ? 3 : t == 3 ? 2 : t);
}

std::int64_t r2r_logical_size(R2R k, std::int64_t n) {
  if (k == R2R::none || r2r_is_fftw_only(k)) return n;
  if (r2r_type(k) == 1) return 2 * (r2r_is_sine(k) ? n + 1 : n - 1);
  return 2 * n;
}

}  // namespace dfft
