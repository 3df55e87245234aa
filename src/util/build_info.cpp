// SPDX-License-Identifier: MIT
#include "dfft/build_info.hpp"

#include <fftw3.h>
#include <mpi.h>

#include "backend/cpu/fftw_wisdom.hpp"
#include "backend/device.hpp"
#include "dfft/tune.hpp"
#include "transport/stage.hpp"
#include "util/check.hpp"

namespace dfft {

std::string mpi_library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  DFFT_MPI(MPI_Get_library_version(text, &len));
  // Open MPI counts the terminating NUL in `len`.
  const std::string s(text, static_cast<std::size_t>(len > 0 ? len : 0));
  return s.substr(0, s.find_first_of(std::string("\n\0", 2)));
}

BuildInfo build_info() {
  BuildInfo b;
  b.version = DFFT_VERSION_STRING;
#if defined(DFFT_HAS_CUDA)
  b.cuda = true;
#endif
#if defined(DFFT_HAS_NCCL)
  b.nccl = true;
  b.nccl_version = detail::nccl_library_version();
#endif
  b.mpi_library = mpi_library_version();
  b.mpi_cuda_aware = detail::mpi_is_cuda_aware();
  b.fftw_version = fftw_version;
  const Options defaults;
  b.wisdom_dir = detail::wisdom_dir(defaults);
  b.wisdom_file = default_wisdom_file();
  b.fftw_wisdom_file = detail::fftw_wisdom_path(defaults, true);
  b.fftwf_wisdom_file = detail::fftw_wisdom_path(defaults, false);
  return b;
}

}  // namespace dfft
