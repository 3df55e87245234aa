// SPDX-License-Identifier: MIT
// Parallel .npy files (docs/io.md): every rank reads or writes its own box of a global array with
// MPI-IO, from or into a local array in any memory order (a dfft::Layout: a plan's input or output
// layout, transposed or padded, or a box of the caller's own), so a solver can checkpoint in its
// layout and numpy reads the result.
//
//   dfft::io::write_npy(plan, dfft::io::Side::output, "u_hat.npy", out.data());   // collective
//   dfft::io::read_npy(plan, dfft::io::Side::output, "u_hat.npy", out.data());
//
// Files are numpy's format (versions 1.0 to 3.0), little endian float32, float64, complex64 or
// complex128; written in C order, read in C or Fortran order. Every function is collective over
// the communicator and checks its arguments on every rank: a refusal or failure anywhere is thrown
// on all ranks (the same class, call, code, rank and message), so no rank is left waiting.
// InvalidArgument: bad arguments, or a file whose header, size, shape or dtype is wrong.
// MpiError: an MPI call failed (call(), code(), rank() say which, where; e.g. MPI_File_open for a
// missing file). Data pointers are host memory (download a CUDA plan's arrays first).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <complex>
#include <string>
#include <type_traits>
#include <vector>

#include "dfft/dfft.hpp"

namespace dfft::io {

/// Element types of the files (numpy's names; stored little endian: '<f4', '<f8', '<c8', '<c16').
enum class Dtype { float32, float64, complex64, complex128 };
std::string to_string(Dtype);        // "float32", ...
std::string numpy_descr(Dtype);      // "<f4", ...
std::size_t itemsize(Dtype);         // 4, 8, 8, 16
/// The dtype of float, double, std::complex<float>, std::complex<double>.
template <class E>
constexpr Dtype dtype_of() {
  if constexpr (std::is_same_v<E, float>) return Dtype::float32;
  else if constexpr (std::is_same_v<E, double>) return Dtype::float64;
  else if constexpr (std::is_same_v<E, std::complex<float>>) return Dtype::complex64;
  else {
    static_assert(std::is_same_v<E, std::complex<double>>, "float, double or std::complex of them");
    return Dtype::complex128;
  }
}

struct NpyHeader {
  std::vector<std::int64_t> shape;
  Dtype dtype = Dtype::float64;
  bool fortran_order = false;
  int version = 1;                // format major version (1, 2 or 3)
  std::int64_t data_offset = 0;   // bytes before the first element (a multiple of 64 when numpy wrote it)
  std::int64_t data_bytes = 0;    // product of shape times the item size
};

/// Largest header accepted (numpy itself refuses more than 10000 bytes by default).
constexpr std::size_t kMaxNpyHeader = 1 << 20;

/// Parses a .npy header from the first `len` bytes of a file (untrusted input; no MPI, no file
/// access). Throws InvalidArgument saying what is wrong: magic, version, a dict other than
/// {descr, fortran_order, shape}, negative or overflowing sizes, or a dtype other than the four.
NpyHeader parse_npy_header(const char* bytes, std::size_t len);
/// The header numpy would write for a C-order array: version 1.0 (2.0 when longer than 65535
/// bytes), padded with spaces to a multiple of 64 bytes.
std::string make_npy_header(Dtype dtype, const std::vector<std::int64_t>& shape);

/// Reads and checks the header of `path`: a supported dtype and a file size of exactly header +
/// data. Collective: rank 0 reads, every rank returns the same header or throws the same error.
NpyHeader read_npy_header(MPI_Comm comm, const std::string& path);

struct WriteOptions {
  /// true: write `path`.dfft-tmp and rename it to `path` once every rank's data is written and
  /// synced, so a failure (a full disk) or a crash leaves no partial file and any earlier file at
  /// `path` intact (a checkpoint survives a failed successor). false: write `path` itself; an
  /// existing file keeps its inode, owner and links, and a failure leaves it partly written.
  bool atomic = true;
};

/// Why write_npy refuses to write `path`, or "" when it may: an existing `path` must be a regular
/// file; a symbolic link (not followed: name its target), a directory, a device, a FIFO or a
/// socket is refused. This process's view of the file system; no MPI.
std::string output_refusal(const std::string& path);

/// The one writer of whole files (wisdom, FFTW wisdom, records, CSV): written to `path`.dfft-tmp
/// beside the target and renamed onto `path` by commit() once every write, the flush to the disk
/// (fsync) and the close succeeded. Otherwise (a full disk, a failed write, no commit) the
/// temporary file is removed and `path` keeps what it held. A run that is killed leaves
/// `path`.dfft-tmp with what was written so far. This process alone; no MPI.
class OutputFile {
 public:
  OutputFile() = default;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  /// Creates the temporary file; false with `why` set when `path` is refused (output_refusal) or
  /// the temporary file cannot be created.
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

/// Replaces `path` with `text` through OutputFile; throws InvalidArgument when `path` is refused
/// and LibraryError (system) when a write, fsync, close or rename fails, `path` then as it was.
void replace_file(const std::string& path, const std::string& text);

/// Writes the global array of `shape` and `dtype` to `path`: this rank's part is `local.box`,
/// stored at `data` in `local`'s memory order and padding (an empty order means the natural
/// one). The boxes of all ranks must tile the array (empty boxes allowed, `data` may then be
/// null). Collective. A target that output_refusal() refuses throws InvalidArgument before
/// anything is written; a failed or short MPI-IO write, sync, close or rename throws MpiError or
/// LibraryError (system) on every rank and, with `options.atomic`, leaves `path` as it was.
void write_npy(MPI_Comm comm, const std::string& path, const std::vector<std::int64_t>& shape, Dtype dtype,
               const Layout& local, const void* data, const WriteOptions& options = {});
/// Reads this rank's `local.box` of the file into `data` (layout as for write_npy; boxes may
/// overlap or leave parts unread). The file must hold exactly `shape` and `dtype`
/// (InvalidArgument naming both otherwise); C or Fortran order. Collective.
void read_npy(MPI_Comm comm, const std::string& path, const std::vector<std::int64_t>& shape, Dtype dtype,
              const Layout& local, void* data);

/// A plan's side: input (real space, the plan's shape) or output (spectral space,
/// spectral_shape()), each in the plan's layout on this rank.
enum class Side { input, output };
/// Global shape and dtype of a plan's side: real for the input of r2c and r2r plans and the output
/// of r2r plans, complex otherwise, in the plan's precision.
template <class T>
std::vector<std::int64_t> side_shape(const Plan<T>& plan, Side side);
template <class T>
Dtype side_dtype(const Plan<T>& plan, Side side);
/// write_npy / read_npy of the plan's side: `data` holds plan.input_count() or output_count()
/// elements in plan.input_layout() or output_layout() (one array, not a batch). Collective over
/// the plan's communicator.
template <class T>
void write_npy(const Plan<T>& plan, Side side, const std::string& path, const void* data,
               const WriteOptions& options = {});
template <class T>
void read_npy(const Plan<T>& plan, Side side, const std::string& path, void* data);

namespace detail {
/// write_npy / read_npy moving at most `max_bytes` per rank in each collective call (they use 1 GiB:
/// MPI counts are ints, and large requests strain MPI-IO libraries). Tests use small values.
void write_npy_pieces(MPI_Comm comm, const std::string& path, const std::vector<std::int64_t>& shape,
                      Dtype dtype, const Layout& local, const void* data, const WriteOptions& options,
                      std::int64_t max_bytes);
void read_npy_pieces(MPI_Comm comm, const std::string& path, const std::vector<std::int64_t>& shape,
                     Dtype dtype, const Layout& local, void* data, std::int64_t max_bytes);
}  // namespace detail

}  // namespace dfft::io
