// SPDX-License-Identifier: MIT
// Redistribution between two box sets without transforming (heFFTe's reshape): every rank
// gives the layout it holds and the layout it wants; the boxes of each set must tile the same
// global array. Uses the same transports as the FFT plans.
#pragma once

#include <mpi.h>

#include <complex>
#include <memory>

#include "dfft/types.hpp"

namespace dfft {

class ReshapeImpl;

/// T: float, double, std::complex<float> or std::complex<double>.
template <class T>
class Reshape {
 public:
  /// `backend` cuda: `in`/`out` of execute() are device pointers of GPU `device` (-1: local rank
  /// modulo visible devices), moved by the CUDA backend's transports (any method of a plan).
  Reshape(MPI_Comm comm, const Layout& in, const Layout& out, Method method = Method::a2a_sync,
          std::int64_t max_message_bytes = (std::int64_t{1} << 31) - 4096,
          Backend backend = Backend::cpu, int device = -1);
  ~Reshape();
  Reshape(Reshape&&) noexcept;
  Reshape& operator=(Reshape&&) noexcept;
  /// Collective. `in` holds this rank's input layout, `out` receives its output layout.
  void execute(const T* in, T* out);
  /// Phase times of the last execute() (pack, comm, unpack).
  const StageTiming& timing() const;

 private:
  std::unique_ptr<ReshapeImpl> impl_;
};

extern template class Reshape<float>;
extern template class Reshape<double>;
extern template class Reshape<std::complex<float>>;
extern template class Reshape<std::complex<double>>;

}  // namespace dfft
