// SPDX-License-Identifier: MIT
// Collective .npy input and output with MPI-IO: every rank reads or writes its own box of the
// global array (read: C or Fortran order in the file; written: C order), from or into a local array
// of any memory order (a dfft::Layout). Errors are agreed across ranks: every rank throws the same
// IoError.
#pragma once

#include <mpi.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "dfft/types.hpp"
#include "npy.hpp"

namespace dfftapp {

struct IoError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Throws IoError on every rank when `ok` is false on any rank, with the message of the lowest
/// such rank. Collective.
void agree_ok(bool ok, const std::string& msg, MPI_Comm comm);

/// Rank 0 reads and checks the header of `path` (magic, dict, one of the four element
/// types, file size = header + data); every rank gets it. Collective; throws IoError.
NpyHeader read_npy_header(const std::string& path, MPI_Comm comm);

/// Reads this rank's `layout.box` of the file's global array into `local` (layout's memory order
/// and padding). Collective (MPI_File_read_at_all with a subarray file view).
void read_npy_box(const std::string& path, const NpyHeader& h, const dfft::Layout& layout,
                  void* local, MPI_Comm comm);

/// Rank 0 checks that `out` may be written (collective; throws IoError on every rank if not):
/// it must not exist or be a regular file, not a symbolic link, a directory, a device, a FIFO or
/// a socket, and not be the input file `in` (same inode, whatever the path). With `in_place` it
/// must exist already and be a regular file.
void check_output_target(const std::string& in, const std::string& out, bool in_place,
                         MPI_Comm comm);

/// An output .npy written to PATH.dfft-tmp and renamed to PATH by commit(); destroying it
/// without commit() deletes the temporary file, so a failure leaves no partial output. With
/// `in_place` the existing regular file PATH itself is rewritten (same inode, owner and links);
/// a failure then leaves it partly written.
class NpyOutput {
 public:
  /// Creates the temporary file (collective); throws IoError when it cannot be written.
  NpyOutput(const std::string& path, MPI_Comm comm, bool in_place = false);
  ~NpyOutput();
  NpyOutput(const NpyOutput&) = delete;
  NpyOutput& operator=(const NpyOutput&) = delete;

  /// Rank 0 writes the header, every rank its box (collective).
  void write(NpyType type, const std::vector<std::int64_t>& shape, const dfft::Layout& layout,
             const void* local);
  /// Closes and renames to the final path (collective).
  void commit();

 private:
  void discard() noexcept;
  std::string path_, tmp_;
  MPI_Comm comm_;
  MPI_File fh_ = MPI_FILE_NULL;
  int rank_ = 0;
  bool committed_ = false, in_place_ = false;
};

}  // namespace dfftapp
