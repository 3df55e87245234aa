// SPDX-License-Identifier: MIT
// FFTW-MPI's data distributions as dfft layouts: the block rule of FFTW's MPI interface (a block
// of ceil(n/P) rows per rank by default, trailing ranks possibly empty), its transposed and padded
// real arrays and its interleaved `howmany` vectors, described once so that local_size_* and the
// plans cannot disagree. Pure functions of the problem and the rank: no MPI, no FFTW.
#pragma once

#include <cstdint>
#include <vector>

#include "dfft/types.hpp"

namespace dfft::fftw_mpi {

/// One rank's slice of an axis cut in blocks of `block` (FFTW's block rule).
struct Range {
  std::int64_t start = 0, count = 0;
};

/// FFTW's default block: ceil(n / ranks), at least 1.
std::int64_t default_block(std::int64_t n, int ranks);
/// The slice of rank `rank` of an axis of n cut into blocks of `block`: [min(n, r b), min(n, (r+1) b)).
Range block_range(std::int64_t n, std::int64_t block, int rank);
/// Whether `ranks` ranks hold every block of an axis of n cut into blocks of `block`.
bool blocks_fit(std::int64_t n, std::int64_t block, int ranks);

/// The transform of an FFTW-MPI plan, as dfft sees it.
enum class Kind { dft, r2c, c2r, r2r };

/// What an FFTW-MPI plan call describes: the logical sizes (real sizes for r2c and c2r), the
/// interleaved vector length, the block sizes given for the distributed axis of each side (0:
/// FFTW's default) and the layout flags.
struct Problem {
  Kind kind = Kind::dft;
  std::vector<std::int64_t> n;
  std::int64_t howmany = 1;
  std::int64_t block_in = 0, block_out = 0;
  bool transposed_in = false, transposed_out = false;
  bool backward = false;  // dft: FFTW_BACKWARD (a 1-D transform's blocks depend on it)
};

/// Whether `p` is a distributed one-dimensional DFT (dfft::Fft1d's blocks, not the block rule).
bool is_distributed_1d(const Problem& p, int ranks);

/// One side (input or output array) of a plan on one rank: the dfft layout of the caller's local
/// array, over the side's global shape (the complex shape of an r2c's spectrum, n/2+1 on the last
/// axis; with howmany > 1 one more, fastest axis of howmany elements).
struct Side {
  std::vector<std::int64_t> shape;
  Layout layout;
  bool real = false;  // real numbers (r2c input, c2r output, r2r), else complex
  /// Elements of the side's type this rank's array holds, padding included.
  std::int64_t elements() const { return layout.alloc_count(); }
};

/// The input or output side of `p` on `rank` of `ranks`. The distributed axis is 0, or 1 for a
/// transposed side of a multidimensional transform; real sides of r2c and c2r are padded to
/// 2 (n/2+1) on the last axis, as FFTW's MPI interface requires in and out of place.
Side input_side(const Problem& p, int rank, int ranks);
Side output_side(const Problem& p, int rank, int ranks);

/// Whether every block of both sides lands on a rank (FFTW returns no plan otherwise).
bool distribution_fits(const Problem& p, int ranks);

/// Elements (of the complex type for dft, r2c and c2r, counted as FFTW-MPI's local_size_* count
/// them; of the real type for r2r) this rank must allocate for either array of a plan of `p`:
/// the larger of its two sides, at least `howmany` (FFTW never answers zero).
std::int64_t local_alloc(const Problem& p, int rank, int ranks);

}  // namespace dfft::fftw_mpi
