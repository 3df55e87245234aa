// SPDX-License-Identifier: MIT
// Where the `dfft` subcommands write: refused targets are reported before any work, the same on
// every rank, and text outputs (records, CSV, wisdom) replace their target whole or not at all.
// .npy files are the library's (dfft/io.hpp, the same rules).
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
/// a socket (dfft::io::output_refusal), and not be the input file `in` (same inode, whatever the
/// path). With `in_place` it must exist already and be a regular file.
void check_output_target(const std::string& in, const std::string& out, bool in_place, MPI_Comm comm);

/// A text output of one process: written to `path`.dfft-tmp beside the target and renamed onto
/// `path` by commit() once every write, the flush to the disk (fsync) and the close succeeded.
/// Otherwise (a full disk, a failed write, no commit) the temporary file is removed and `path`
/// keeps what it held. A run that is killed leaves `path`.dfft-tmp with what was written so far.
class OutputFile {
 public:
  OutputFile() = default;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  /// Creates the temporary file; false with `why` set when `path` is refused (not a new or
  /// regular file) or the temporary file cannot be created.
  bool open(const std::string& path, std::string& why);
  bool is_open() const { return fd_ >= 0; }
  /// Appends `text`. The first failure is kept (error()); later writes are dropped.
  void write(const std::string& text);
  /// fsync, close, rename onto the target; false with error() set when that or an earlier write
  /// failed, the temporary file then removed.
  bool commit();
  /// "cannot write 'PATH': <reason>; 'PATH' is left as it was", or "" while all went well.
  const std::string& error() const { return error_; }
  const std::string& path() const { return path_; }

 private:
  void fail(const std::string& what, int err);
  void discard();
  std::string path_, tmp_, error_;
  int fd_ = -1;
};

}  // namespace dfftapp
