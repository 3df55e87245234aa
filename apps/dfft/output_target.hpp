// SPDX-License-Identifier: MIT
// Where the `dfft` subcommands write: refused targets are reported before any work, the same on
// every rank, and text outputs (records, CSV, wisdom) replace their target whole or not at all.
// .npy files are the library's (dfft/io.hpp, the same rules).
#pragma once

#include <mpi.h>

#include "dfft/io.hpp"
#include "dfft/tune.hpp"

#include <stdexcept>
#include <string>

namespace dfftapp {

struct IoError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Rank 0 checks that `out` may be written (collective; throws UsageError on every rank if not,
/// a bad command line):
/// it must not exist or be a regular file, not a symbolic link, a directory, a device, a FIFO or
/// a socket (dfft::io::output_refusal), and not be the input file `in` (same inode, whatever the
/// path); a new file needs a folder that exists and may be written. With `in_place` it must exist already and be a regular file.
void check_output_target(const std::string& in, const std::string& out, bool in_place, MPI_Comm comm);

/// check_output_target for a wisdom file that the run will update, and, when it exists, a read of
/// it: one that is not a readable dfft wisdom file throws InputError (collective), before any
/// work, so that it is refused and never replaced. Returns what the file holds.
dfft::Wisdom check_wisdom_target(const std::string& path, MPI_Comm comm);

/// The wisdom file a run with `--wisdom given` uses: `given`, none for `off`, the machine's
/// default file (dfft::default_wisdom_file(), which DFFT_WISDOM names or turns off) for empty.
/// Empty: none. For the default file, rank 0 creates its folder (a cache folder made on first use).
std::string wisdom_target(const std::string& given, MPI_Comm comm);

/// Text outputs (records, CSV, wisdom) are written by the library's one writer.
using OutputFile = dfft::io::OutputFile;

}  // namespace dfftapp
