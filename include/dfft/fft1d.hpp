// SPDX-License-Identifier: MIT
// Distributed 1-D complex FFT (docs/fft1d.md): one long transform of length n, or `howmany`
// interleaved ones, spread over the ranks of a communicator as FFTW-MPI's 1-D plans spread it
// (contiguous natural-order blocks in and out). CPU backend.
#pragma once

#include <mpi.h>

#include <complex>
#include <cstdint>
#include <memory>
#include <string>

#include "dfft/types.hpp"

namespace dfft {

template <class T>
class Fft1dImpl;

/// The contiguous blocks of the natural-order input and output that a distributed 1-D plan of
/// length n on `ranks` ranks gives rank `rank` (Fft1d's input_start() ... output_count()), known
/// without making the plan: how FFTW-MPI's local_size_1d answers before any plan exists.
struct Fft1dBlocks {
  std::int64_t input_start = 0, input_count = 0, output_start = 0, output_count = 0;
};
Fft1dBlocks fft1d_blocks(std::int64_t n, int ranks, int rank);

/// T: float or double. Collective construction, forward() and inverse() over `comm`.
template <class T>
class Fft1d {
 public:
  using complex = std::complex<T>;
  /// c2c transforms of length `n`; `howmany` of them interleaved: element j of transform v at
  /// index j * howmany + v (FFTW-MPI's layout). Every rank passes the same n, howmany and
  /// options (else InvalidArgument on every rank). Options used: norm, effort, fftw_wisdom,
  /// fftw_wisdom_dir, threads, methods (empty or one CPU method, for all three exchanges),
  /// max_message_bytes. Refused: backend cuda (Unsupported); r2r, padding, axes, batch != 1,
  /// a codec, user_workspace (InvalidArgument). Every other field is ignored.
  Fft1d(MPI_Comm comm, std::int64_t n, std::int64_t howmany = 1, const Options& opt = {});
  ~Fft1d();
  Fft1d(Fft1d&&) noexcept;
  Fft1d& operator=(Fft1d&&) noexcept;

  std::int64_t size() const;     // n
  std::int64_t howmany() const;
  /// This rank's block of forward()'s input (and inverse()'s output), in indices of the length-n
  /// space: elements [input_start(), input_start() + input_count()) of every transform, stored
  /// as (j - input_start()) * howmany + v. Blocks of ranks 0, 1, ... follow one another; some
  /// may be empty.
  std::int64_t input_start() const;
  std::int64_t input_count() const;
  /// This rank's block of forward()'s output X[k] (and inverse()'s input), natural order,
  /// stored the same way.
  std::int64_t output_start() const;
  std::int64_t output_count() const;
  /// Complex elements each of the arrays passed to forward()/inverse() must hold on this rank
  /// (howmany included): max(input_count(), output_count()) * howmany; 0 on a rank with nothing.
  std::int64_t local_alloc() const;
  /// Collective. X[k] = sum_j x[j] exp(-2 pi i j k / n), scaled as Options::norm says, from the
  /// input blocks to the output blocks; in == out allowed. Any alignment.
  void forward(const complex* in, complex* out);
  /// Collective. x[j] = sum_k X[k] exp(+2 pi i j k / n), scaled as Options::norm says, from the
  /// output blocks to the input blocks (forward()'s steps backwards), so that under any norm
  /// inverse(forward(x)) is x on the same arrays; in == out allowed.
  void inverse(const complex* in, complex* out);
  /// The factorisation, distributions, exchanges and local FFTs, for logs.
  std::string describe() const;

 private:
  std::unique_ptr<Fft1dImpl<T>> impl_;
};

extern template class Fft1d<float>;
extern template class Fft1d<double>;

}  // namespace dfft
