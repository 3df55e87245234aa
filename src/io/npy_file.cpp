// SPDX-License-Identifier: MIT
// Collective .npy reading and writing with MPI-IO. Every rank sets a file view of its box (a
// subarray of the global array in the file's axis order) and moves its local array with derived
// datatypes that walk the local memory order and padding, so no rank copies its data. Requests
// are cut into pieces of at most 1 GiB per rank and call: MPI counts are ints, and the pieces keep
// each collective call's buffers modest however large the array.
#include <algorithm>
#include <bit>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dfft/io.hpp"
#include "exec/gather.hpp"
#include "io/agree.hpp"
#include "io/npy_mpi.hpp"
#include "plan/geometry.hpp"
#include "plan/path.hpp"
#include "util/check.hpp"

static_assert(std::endian::native == std::endian::little,
              ".npy files are written as little endian: this byte order is not supported");

namespace dfft::io {

namespace {

using dfft::detail::concat;
using dfft::detail::fail;

constexpr std::int64_t kPieceBytes = std::int64_t{1} << 30;

std::string shape_text(const std::vector<std::int64_t>& s) {
  std::string out = "(";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

// The global axes from the slowest to the fastest in the file: natural for C order, reversed
// for Fortran order.
std::vector<int> file_axes(int d, bool fortran) {
  std::vector<int> axes(static_cast<std::size_t>(d));
  for (int k = 0; k < d; ++k) axes[static_cast<std::size_t>(k)] = fortran ? d - 1 - k : k;
  return axes;
}

// The checks of write_npy and read_npy that one rank can make alone.
Layout checked_layout(const std::vector<std::int64_t>& shape, const Layout& in, const void* data) {
  const int d = static_cast<int>(shape.size());
  if (d < 1) fail("write_npy/read_npy: the global shape needs at least one axis");
  for (auto n : shape)
    if (n < 0 || n > INT_MAX)
      fail("write_npy/read_npy: global shape ", shape_text(shape), ": every axis needs 0 to 2^31-1 elements");
  Layout l = in;
  if (l.order.empty()) l.order = dfft::detail::natural_order(d);
  if (l.box.dims() != d || static_cast<int>(l.box.hi.size()) != d || static_cast<int>(l.order.size()) != d ||
      (!l.padded.empty() && static_cast<int>(l.padded.size()) != d))
    fail("write_npy/read_npy: the local layout needs ", d, " entries in lo, hi and order (and padded, if given) "
         "for the global shape ", shape_text(shape));
  auto sorted = l.order;
  std::sort(sorted.begin(), sorted.end());
  if (sorted != dfft::detail::natural_order(d))
    fail("write_npy/read_npy: the local order must be a permutation of 0..", d - 1);
  for (int a = 0; a < d; ++a) {
    if (l.box.lo[a] < 0 || l.box.lo[a] > l.box.hi[a] || l.box.hi[a] > shape[a])
      fail("write_npy/read_npy: local box [", l.box.lo[a], ", ", l.box.hi[a], ") of axis ", a,
           " is not inside [0, ", shape[a], ")");
    if (!l.padded.empty() && l.padded[a] < l.box.extent(a))
      fail("write_npy/read_npy: padded extents must be at least the box extents");
  }
  if (!l.box.empty() && data == nullptr) fail("write_npy/read_npy: data is null but the local box is not empty");
  return l;
}

// Ranks that pass different shapes or dtypes would describe different files.
void check_same_everywhere(MPI_Comm comm, const std::vector<std::int64_t>& shape, Dtype dtype) {
  std::vector<std::int64_t> mine{static_cast<std::int64_t>(shape.size()), static_cast<std::int64_t>(dtype)};
  std::vector<std::int64_t> lo(2), hi(2);
  DFFT_MPI(MPI_Allreduce(mine.data(), lo.data(), 2, MPI_INT64_T, MPI_MIN, comm));
  DFFT_MPI(MPI_Allreduce(mine.data(), hi.data(), 2, MPI_INT64_T, MPI_MAX, comm));
  if (lo != hi) fail("write_npy/read_npy: ranks pass different numbers of axes or dtypes");
  const int d = static_cast<int>(shape.size());
  std::vector<std::int64_t> smin(shape.size()), smax(shape.size());
  DFFT_MPI(MPI_Allreduce(shape.data(), smin.data(), d, MPI_INT64_T, MPI_MIN, comm));
  DFFT_MPI(MPI_Allreduce(shape.data(), smax.data(), d, MPI_INT64_T, MPI_MAX, comm));
  if (smin != smax) fail("write_npy/read_npy: ranks pass different global shapes");
}

// Validated local layout; with `tiling` (writing) the boxes of all ranks must tile the array.
Layout prepare(MPI_Comm comm, const std::vector<std::int64_t>& shape, Dtype dtype, const Layout& local,
               const void* data, bool tiling) {
  Layout l;
  detail::on_every_rank(comm, [&] { l = checked_layout(shape, local, data); });
  check_same_everywhere(comm, shape, dtype);
  if (tiling) dfft::detail::check_tiling(dfft::detail::allgather_layouts(comm, l, static_cast<int>(shape.size())),
                                         shape, "write_npy: the local");
  return l;
}

// Rank 0's reading of the header, with the file size checked against it.
std::string load_header(MPI_File fh, const std::string& path) {
  MPI_Offset size = 0;
  detail::check_file(MPI_File_get_size(fh, &size), "MPI_File_get_size", "cannot read '" + path + "'");
  std::string bytes(static_cast<std::size_t>(std::min<MPI_Offset>(size, kMaxNpyHeader + 12)), '\0');
  MPI_Status st;
  detail::check_file(MPI_File_read_at(fh, 0, bytes.data(), static_cast<int>(bytes.size()), MPI_CHAR, &st),
                     "MPI_File_read_at", "cannot read '" + path + "'");
  NpyHeader h;
  try {
    h = parse_npy_header(bytes.data(), bytes.size());
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(e.call(), e.rank(), concat("dfft: '", path, "': ", std::string(e.what()).substr(6)));
  }
  const std::int64_t expect = h.data_offset + h.data_bytes;
  if (size < expect)
    fail("'", path, "': truncated: shape ", shape_text(h.shape), " of ", to_string(h.dtype), " needs ",
         h.data_bytes, " bytes of data, the file holds ", size - h.data_offset);
  if (size > expect)
    fail("'", path, "': ", size - expect, " unexpected bytes after the array data (shape ", shape_text(h.shape),
         ", ", to_string(h.dtype), ")");
  bytes.resize(static_cast<std::size_t>(h.data_offset));
  return bytes;
}

NpyHeader header_of(MPI_Comm comm, const detail::File& f, const std::string& path) {
  int rank = 0;
  DFFT_MPI(MPI_Comm_rank(comm, &rank));
  std::string bytes;
  detail::on_every_rank(comm, [&] {
    if (rank == 0) bytes = load_header(f.get(), path);
  });
  int len = static_cast<int>(bytes.size());
  DFFT_MPI(MPI_Bcast(&len, 1, MPI_INT, 0, comm));
  bytes.resize(static_cast<std::size_t>(len));
  DFFT_MPI(MPI_Bcast(bytes.data(), len, MPI_CHAR, 0, comm));
  return parse_npy_header(bytes.data(), bytes.size());  // the very bytes rank 0 checked
}

// Sets the view of this rank's box and moves it piece by piece: every rank makes as many
// collective calls as the rank with the most pieces. A failed call is kept, not thrown, until all
// calls are made; then every rank learns of it.
void transfer(MPI_Comm comm, const detail::File& f, const std::string& path, std::int64_t offset,
              const std::vector<std::int64_t>& shape, Dtype dtype, const Layout& l, bool fortran, void* data,
              bool writing, std::int64_t max_bytes) {
  detail::Types types;
  const MPI_Datatype elem = detail::element_type(dtype, types);
  const auto axes = file_axes(static_cast<int>(shape.size()), fortran);
  const auto pieces = detail::cut_pieces(l, axes, itemsize(dtype), max_bytes);
  const MPI_Datatype ftype = l.box.empty() ? elem : detail::subarray_type(shape, l.box, axes, elem, types);
  const std::string doing = (writing ? "cannot write '" : "cannot read '") + path + "'";
  detail::on_every_rank(comm, [&] {
    detail::check_file(MPI_File_set_view(f.get(), offset, elem, ftype, "native", MPI_INFO_NULL),
                       "MPI_File_set_view", doing);
  });
  std::int64_t mine = static_cast<std::int64_t>(pieces.size()), rounds = 0;
  DFFT_MPI(MPI_Allreduce(&mine, &rounds, 1, MPI_INT64_T, MPI_MAX, comm));
  std::exception_ptr err;
  for (std::int64_t i = 0; i < rounds; ++i) {
    const bool have = i < mine && !err;
    try {
      detail::Types piece_types;
      MPI_Datatype mtype = elem;
      MPI_Offset at = 0;
      char* ptr = static_cast<char*>(data);
      if (have) {
        mtype = detail::memory_type(l, pieces[static_cast<std::size_t>(i)], axes, elem, itemsize(dtype), piece_types);
        at = detail::view_offset(l.box, pieces[static_cast<std::size_t>(i)], axes);
        ptr += l.offset_of(pieces[static_cast<std::size_t>(i)].lo) * static_cast<std::int64_t>(itemsize(dtype));
      }
      MPI_Status st;
      const int code = writing ? MPI_File_write_at_all(f.get(), at, ptr, have ? 1 : 0, mtype, &st)
                               : MPI_File_read_at_all(f.get(), at, ptr, have ? 1 : 0, mtype, &st);
      const char* call = writing ? "MPI_File_write_at_all" : "MPI_File_read_at_all";
      detail::check_file(code, call, doing);
      detail::check_moved(st, mtype, have ? 1 : 0, call, doing);
    } catch (...) {
      if (!err) err = std::current_exception();
    }
  }
  detail::agree(comm, err);
}

// Rank 0 creates `target` (afresh with `fresh`: O_EXCL, so nothing planted at its name is written
// through) and reserves its `total` bytes on the disk before any data is written. A full disk is
// then refused here: Open MPI's OMPIO loses a collective write that the disk refuses without
// reporting it (seen on tmpfs with 3 ranks). File systems without fallocate are written unreserved.
void reserve(const std::string& target, bool fresh, MPI_Offset total, const std::string& doing) {
  const int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (fresh ? O_EXCL : 0), 0666);
  if (fd < 0) {
    const int e = errno;
    throw LibraryError(LibraryError::Library::system, "open", e, dfft::detail::world_rank(),
                       concat("dfft: ", doing, ": creating '", target, "': ", std::strerror(e)));
  }
  const int rc = total > 0 ? ::fallocate(fd, 0, 0, static_cast<off_t>(total)) : 0;
  const int e = rc != 0 ? errno : 0;
  ::close(fd);
  if (rc != 0 && e != EOPNOTSUPP && e != ENOSYS)
    throw LibraryError(LibraryError::Library::system, "fallocate", e, dfft::detail::world_rank(),
                       concat("dfft: ", doing, ": no room for its ", total, " bytes (fallocate: ", std::strerror(e), ")"));
}

void write_file(MPI_Comm comm, const std::string& path, const std::vector<std::int64_t>& shape, Dtype dtype,
                const Layout& l, const void* data, const std::string& target, std::int64_t max_bytes) {
  int rank = 0;
  DFFT_MPI(MPI_Comm_rank(comm, &rank));
  const std::string doing = "cannot write '" + path + "'";
  const std::string header = make_npy_header(dtype, shape);
  std::int64_t count = 1;
  for (auto n : shape) count *= n;
  const auto total = static_cast<MPI_Offset>(header.size()) + count * static_cast<std::int64_t>(itemsize(dtype));
  detail::on_every_rank(comm, [&] {
    if (rank == 0) reserve(target, target != path, total, doing);
  });
  detail::File f(comm, target, MPI_MODE_WRONLY, doing);
  detail::on_every_rank(comm, [&] {
    detail::check_file(MPI_File_set_size(f.get(), total), "MPI_File_set_size", doing);
  });
  detail::on_every_rank(comm, [&] {
    MPI_Status st;
    if (rank != 0) return;
    const int n = static_cast<int>(header.size());
    detail::check_file(MPI_File_write_at(f.get(), 0, header.data(), n, MPI_CHAR, &st), "MPI_File_write_at", doing);
    detail::check_moved(st, MPI_CHAR, n, "MPI_File_write_at", doing);
  });
  transfer(comm, f, path, static_cast<MPI_Offset>(header.size()), shape, dtype, l, false, const_cast<void*>(data),
           true, max_bytes);
  // Data still in caches has not been written: a full disk or a lost server shows here or at close.
  detail::on_every_rank(comm, [&] { detail::check_file(MPI_File_sync(f.get()), "MPI_File_sync", doing); });
  f.close(doing);
}

}  // namespace

std::string output_refusal(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return "";  // a new file (or one the open will report on)
  const std::string refuse = "refusing to write '" + path + "': ";
  if (S_ISLNK(st.st_mode)) return refuse + "it is a symbolic link (name its target instead)";
  if (S_ISDIR(st.st_mode)) return refuse + "it is a directory";
  if (!S_ISREG(st.st_mode)) return refuse + "it is not a regular file (a device, FIFO or socket)";
  return "";
}

NpyHeader read_npy_header(MPI_Comm comm, const std::string& path) {
  detail::File f(comm, path, MPI_MODE_RDONLY, "cannot open '" + path + "' for reading");
  NpyHeader h = header_of(comm, f, path);
  f.close("cannot read '" + path + "'");
  return h;
}

namespace detail {

void write_npy_pieces(MPI_Comm comm, const std::string& path, const std::vector<std::int64_t>& shape, Dtype dtype,
                      const Layout& local, const void* data, const WriteOptions& options, std::int64_t max_bytes) {
  const Layout l = prepare(comm, shape, dtype, local, data, true);
  int rank = 0;
  DFFT_MPI(MPI_Comm_rank(comm, &rank));
  const std::string target = options.atomic ? path + ".dfft-tmp" : path;
  on_every_rank(comm, [&] {
    if (rank != 0) return;
    const std::string why = output_refusal(path);
    if (!why.empty()) throw InvalidArgument("write_npy", dfft::detail::world_rank(), concat("dfft: ", why));
    // A temporary file left by a killed run goes; unlink removes a link planted there, not its target.
    if (options.atomic && ::unlink(target.c_str()) != 0 && errno != ENOENT) {
      const int e = errno;
      throw LibraryError(LibraryError::Library::system, "unlink", e, dfft::detail::world_rank(),
                         concat("dfft: cannot write '", path, "' (removing the old '", target, "': ", std::strerror(e), ")"));
    }
  });
  try {
    write_file(comm, path, shape, dtype, l, data, target, max_bytes);
  } catch (...) {
    if (rank == 0 && options.atomic) std::remove(target.c_str());
    throw;
  }
  if (!options.atomic) return;
  on_every_rank(comm, [&] {
    if (rank == 0 && std::rename(target.c_str(), path.c_str()) != 0) {
      const std::string why = std::strerror(errno);
      std::remove(target.c_str());
      throw LibraryError(LibraryError::Library::system, "rename", errno, dfft::detail::world_rank(),
                         concat("dfft: cannot write '", path, "' (renaming '", target, "': ", why, ")"));
    }
  });
}

void read_npy_pieces(MPI_Comm comm, const std::string& path, const std::vector<std::int64_t>& shape, Dtype dtype,
                     const Layout& local, void* data, std::int64_t max_bytes) {
  const Layout l = prepare(comm, shape, dtype, local, data, false);
  File f(comm, path, MPI_MODE_RDONLY, "cannot open '" + path + "' for reading");
  const NpyHeader h = header_of(comm, f, path);
  if (h.shape != shape || h.dtype != dtype)
    fail("'", path, "' holds ", to_string(h.dtype), " of shape ", shape_text(h.shape), "; expected ",
         to_string(dtype), " of shape ", shape_text(shape));
  transfer(comm, f, path, h.data_offset, shape, dtype, l, h.fortran_order, data, false, max_bytes);
  f.close("cannot read '" + path + "'");
}

}  // namespace detail

void write_npy(MPI_Comm comm, const std::string& path, const std::vector<std::int64_t>& shape, Dtype dtype,
               const Layout& local, const void* data, const WriteOptions& options) {
  detail::write_npy_pieces(comm, path, shape, dtype, local, data, options, kPieceBytes);
}

void read_npy(MPI_Comm comm, const std::string& path, const std::vector<std::int64_t>& shape, Dtype dtype,
              const Layout& local, void* data) {
  detail::read_npy_pieces(comm, path, shape, dtype, local, data, kPieceBytes);
}

}  // namespace dfft::io
