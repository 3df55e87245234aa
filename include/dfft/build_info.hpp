// SPDX-License-Identifier: MIT
// What this dfft was built with and what it finds at run time: the backends, the MPI, NCCL and
// FFTW libraries, and where the machine's wisdom files are (`python -m dfft` prints it).
#pragma once

#include <string>

namespace dfft {

struct BuildInfo {
  std::string version;            ///< dfft's version, "0.1.0"
  bool cuda = false;              ///< the cuda backend is built in (else only cpu)
  bool nccl = false;              ///< the nccl transport is built in
  std::string nccl_version;       ///< of the NCCL library loaded, "2.21.5"; empty without nccl
  std::string mpi_library;        ///< mpi_library_version()
  bool mpi_cuda_aware = false;    ///< the MPI library reports CUDA support (MPIX_Query_cuda_support)
  std::string fftw_version;       ///< FFTW's own, "fftw-3.3.10-sse2-avx"
  /// The directory of the files below: $DFFT_WISDOM_DIR, else $XDG_CACHE_HOME/dfft, else
  /// ~/.cache/dfft; every path is empty when no directory is known.
  std::string wisdom_dir;
  std::string wisdom_file;        ///< default_wisdom_file(): tuner wisdom and calibrations
  std::string fftw_wisdom_file;   ///< FFTW wisdom of double-precision plans
  std::string fftwf_wisdom_file;  ///< FFTW wisdom of single-precision plans
};

/// Call after MPI_Init: whether the MPI library is CUDA-aware is asked of it at run time.
/// Throws MpiError or LibraryError (NCCL) when a library cannot say.
BuildInfo build_info();

/// The first line of MPI_Get_library_version ("Open MPI v4.1.4, package: ..."); callable
/// before MPI_Init.
std::string mpi_library_version();

}  // namespace dfft
