// SPDX-License-Identifier: MIT
// Description of the machine a benchmark ran on, written into every result record.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace dfftapp {

/// host, OS, CPU model and core count, MPI library, FFTW version; with `cuda` also the GPU model
/// and count and the CUDA runtime, driver and cuFFT versions (when the app was built with CUDA).
/// Call on the rank that writes the records; fields that cannot be found are null.
nlohmann::json machine_description(bool cuda);

/// The first clause of MPI_Get_library_version ("Open MPI v4.1.4").
std::string mpi_library_version();

}  // namespace dfftapp
