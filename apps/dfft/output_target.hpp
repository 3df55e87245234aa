// SPDX-License-Identifier: MIT
// Where `dfft transform` may write: refused targets are reported before any work, the same on
// every rank. The writing itself is the library's (dfft/io.hpp).
#pragma once

#include <mpi.h>

#include <stdexcept>
#include <string>

namespace dfftapp {

struct IoError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Rank 0 checks that `out` may be written (collective; throws IoError on every rank if not):
/// it must not exist or be a regular file, not a symbolic link, a directory, a device, a FIFO or
/// a socket, and not be the input file `in` (same inode, whatever the path). With `in_place` it
/// must exist already and be a regular file.
void check_output_target(const std::string& in, const std::string& out, bool in_place, MPI_Comm comm);

}  // namespace dfftapp
