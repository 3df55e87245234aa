// SPDX-License-Identifier: MIT
#include "npy_io.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>

namespace dfftapp {

namespace {

std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<std::size_t>(len));
}

// Errors in calls every rank makes identically (type creation) need no agreement.
void check_local(int code, const char* call) {
  if (code != MPI_SUCCESS) throw IoError(std::string(call) + " failed: " + mpi_error_text(code));
}

// Calls that can fail on some ranks only (file access) are agreed before anyone goes on.
void check_all(int code, const std::string& what, MPI_Comm comm) {
  agree_ok(code == MPI_SUCCESS, code == MPI_SUCCESS ? "" : what + ": " + mpi_error_text(code),
           comm);
}

// Owns derived datatypes so that every exit path frees them.
class Types {
 public:
  ~Types() {
    for (auto& t : owned_) MPI_Type_free(&t);
  }
  MPI_Datatype keep(MPI_Datatype t) {
    check_local(MPI_Type_commit(&t), "MPI_Type_commit");
    owned_.push_back(t);
    return t;
  }

 private:
  std::vector<MPI_Datatype> owned_;
};

MPI_Datatype element_type(NpyType t, Types& types) {
  if (t == NpyType::f4) return MPI_FLOAT;
  if (t == NpyType::f8) return MPI_DOUBLE;
  MPI_Datatype c = MPI_DATATYPE_NULL;
  check_local(MPI_Type_contiguous(2, t == NpyType::c8 ? MPI_FLOAT : MPI_DOUBLE, &c),
              "MPI_Type_contiguous");
  return types.keep(c);
}

// The global axes from the slowest to the fastest in the file: natural for C order, reversed
// for Fortran order (numpy writes F-contiguous arrays, e.g. some numpy.fft results, that way).
std::vector<int> file_axes(int d, bool fortran) {
  std::vector<int> axes(static_cast<std::size_t>(d));
  for (int k = 0; k < d; ++k) axes[static_cast<std::size_t>(k)] = fortran ? d - 1 - k : k;
  return axes;
}

// Where the box lies in the file: a subarray of the global array in file axis order.
MPI_Datatype file_type(const std::vector<std::int64_t>& shape, const dfft::Box& box,
                       const std::vector<int>& axes, MPI_Datatype elem, Types& types) {
  const int d = box.dims();
  std::vector<int> sizes(d), sub(d), starts(d);
  for (int k = 0; k < d; ++k) {
    const int a = axes[static_cast<std::size_t>(k)];
    if (shape[a] > INT_MAX)
      throw IoError("axis " + std::to_string(a) +
                    " is longer than MPI-IO subarrays allow (2^31-1)");
    sizes[k] = static_cast<int>(shape[a]);
    sub[k] = static_cast<int>(box.extent(a));
    starts[k] = static_cast<int>(box.lo[a]);
  }
  MPI_Datatype t = MPI_DATATYPE_NULL;
  check_local(
      MPI_Type_create_subarray(d, sizes.data(), sub.data(), starts.data(), MPI_ORDER_C, elem, &t),
      "MPI_Type_create_subarray");
  return types.keep(t);
}

// Where the box lies in memory: nested byte-strided vectors that visit the local array in the
// file's order whatever the layout's memory order and padding, so no copy is needed.
MPI_Datatype memory_type(const dfft::Layout& l, const std::vector<int>& axes, MPI_Datatype elem,
                         int elem_bytes, Types& types) {
  const auto strides = l.strides();
  MPI_Datatype t = elem;
  for (int k = l.box.dims() - 1; k >= 0; --k) {
    const int a = axes[static_cast<std::size_t>(k)];
    MPI_Datatype v = MPI_DATATYPE_NULL;
    check_local(MPI_Type_create_hvector(static_cast<int>(l.box.extent(a)), 1,
                                        static_cast<MPI_Aint>(strides[a]) * elem_bytes, t, &v),
                "MPI_Type_create_hvector");
    t = types.keep(v);
  }
  return t;
}

std::string shape_str(const std::vector<std::int64_t>& s) {
  std::string out = "(";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

// Rank 0's view of the header: the prefix bytes it parsed, or the reason it could not.
bool load_header_bytes(const std::string& path, std::string& bytes, std::string& why) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) {
    why = "cannot open '" + path + "' for reading";
    return false;
  }
  const auto size = static_cast<std::int64_t>(in.tellg());
  in.seekg(0);
  bytes.resize(static_cast<std::size_t>(
      std::min<std::int64_t>(size, static_cast<std::int64_t>(kNpyPrefixBytes))));
  if (size < 0 || !in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) {
    why = "cannot read '" + path + "'";
    return false;
  }
  try {
    NpyHeader h = parse_npy_header(bytes.data(), bytes.size());
    if (h.type == NpyType::other)
      throw NpyError(
          "unsupported dtype " + npy_describe(h) +
          "; dfft transform reads float32, float64, complex64 and complex128 (little endian)");
    const std::int64_t expect = static_cast<std::int64_t>(h.data_offset) + h.data_bytes;
    if (size < expect)
      throw NpyError("truncated: shape " + shape_str(h.shape) + " of " + npy_type_name(h.type) +
                     " needs " + std::to_string(h.data_bytes) + " bytes of data, the file holds " +
                     std::to_string(size - static_cast<std::int64_t>(h.data_offset)));
    if (size > expect)
      throw NpyError(std::to_string(size - expect) +
                     " unexpected bytes after the array data (shape " + shape_str(h.shape) + ", " +
                     npy_type_name(h.type) + ")");
    bytes.resize(h.data_offset);
  } catch (const NpyError& e) {
    why = path + ": " + e.what();
    return false;
  }
  return true;
}

}  // namespace

void agree_ok(bool ok, const std::string& msg, MPI_Comm comm) {
  int rank = 0, size = 1, mine = ok ? 0 : 1, any = 0;
  check_local(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check_local(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  check_local(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
  if (!any) return;
  int cand = ok ? size : rank, root = 0;
  check_local(MPI_Allreduce(&cand, &root, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  std::string text = msg;
  int len = static_cast<int>(text.size());
  check_local(MPI_Bcast(&len, 1, MPI_INT, root, comm), "MPI_Bcast");
  text.resize(static_cast<std::size_t>(len));
  check_local(MPI_Bcast(text.data(), len, MPI_CHAR, root, comm), "MPI_Bcast");
  throw IoError(text);
}

NpyHeader read_npy_header(const std::string& path, MPI_Comm comm) {
  int rank = 0;
  check_local(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  std::string bytes, why;
  const bool ok = rank != 0 || load_header_bytes(path, bytes, why);
  agree_ok(ok, why, comm);
  int len = static_cast<int>(bytes.size());
  check_local(MPI_Bcast(&len, 1, MPI_INT, 0, comm), "MPI_Bcast");
  bytes.resize(static_cast<std::size_t>(len));
  check_local(MPI_Bcast(bytes.data(), len, MPI_CHAR, 0, comm), "MPI_Bcast");
  return parse_npy_header(bytes.data(), bytes.size());  // rank 0 checked these very bytes
}

void read_npy_box(const std::string& path, const NpyHeader& h, const dfft::Layout& layout,
                  void* local, MPI_Comm comm) {
  Types types;
  const MPI_Datatype elem = element_type(h.type, types);
  const bool empty = layout.box.empty();
  const auto axes = file_axes(layout.box.dims(), h.fortran_order);
  const MPI_Datatype ftype = empty ? elem : file_type(h.shape, layout.box, axes, elem, types);
  const MPI_Datatype mtype =
      empty ? elem : memory_type(layout, axes, elem, npy_itemsize(h.type), types);
  MPI_File fh = MPI_FILE_NULL;
  check_all(MPI_File_open(comm, path.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
            "cannot open '" + path + "'", comm);
  std::string failure;
  int code = MPI_File_set_view(fh, static_cast<MPI_Offset>(h.data_offset), elem, ftype, "native",
                               MPI_INFO_NULL);
  if (code != MPI_SUCCESS) failure = "MPI_File_set_view on '" + path + "': " + mpi_error_text(code);
  MPI_Status status;
  // Every rank calls the collective read, even one whose view failed, so none is left waiting.
  const int rc =
      MPI_File_read_at_all(fh, 0, local, empty || !failure.empty() ? 0 : 1, mtype, &status);
  if (failure.empty() && rc != MPI_SUCCESS)
    failure = "reading '" + path + "': " + mpi_error_text(rc);
  MPI_File_close(&fh);
  agree_ok(failure.empty(), failure, comm);
}

namespace {

// Why `out` must not be written, or "" when it may.
std::string output_refusal(const std::string& in, const std::string& out, bool in_place) {
  struct stat o {}, i {};
  if (lstat(out.c_str(), &o) != 0)
    return in_place ? "--in-place needs an existing regular file '" + out + "'" : "";
  const std::string refuse = "refusing to write '" + out + "': ";
  if (S_ISLNK(o.st_mode))
    return refuse + "it is a symbolic link (name its target instead)";
  if (S_ISDIR(o.st_mode)) return refuse + "it is a directory";
  if (!S_ISREG(o.st_mode))
    return refuse + "it is not a regular file (a device, FIFO or socket); OUT must be a new or "
                    "regular .npy file";
  if (stat(in.c_str(), &i) == 0 && i.st_dev == o.st_dev && i.st_ino == o.st_ino)
    return refuse + "it is the input file '" + in + "'; write to another file";
  return "";
}

}  // namespace

void check_output_target(const std::string& in, const std::string& out, bool in_place,
                         MPI_Comm comm) {
  int rank = 0;
  check_local(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  const std::string why = rank == 0 ? output_refusal(in, out, in_place) : std::string();
  agree_ok(why.empty(), why, comm);
}

NpyOutput::NpyOutput(const std::string& path, MPI_Comm comm, bool in_place)
    : path_(path), tmp_(in_place ? path : path + ".dfft-tmp"), comm_(comm), in_place_(in_place) {
  check_local(MPI_Comm_rank(comm, &rank_), "MPI_Comm_rank");
  if (rank_ == 0 && !in_place_) std::remove(tmp_.c_str());  // left by a killed run
  const int mode = in_place_ ? MPI_MODE_WRONLY : MPI_MODE_CREATE | MPI_MODE_WRONLY;
  const int code = MPI_File_open(comm, tmp_.c_str(), mode, MPI_INFO_NULL, &fh_);
  if (code != MPI_SUCCESS) fh_ = MPI_FILE_NULL;
  try {
    check_all(code, in_place_ ? "cannot write '" + path + "'"
                              : "cannot write '" + path + "' (creating '" + tmp_ + "')",
              comm);
  } catch (...) {
    discard();
    throw;
  }
}

NpyOutput::~NpyOutput() {
  if (!committed_) discard();
}

void NpyOutput::discard() noexcept {
  if (fh_ != MPI_FILE_NULL) MPI_File_close(&fh_);
  fh_ = MPI_FILE_NULL;
  if (rank_ == 0 && !in_place_) std::remove(tmp_.c_str());
}

void NpyOutput::write(NpyType type, const std::vector<std::int64_t>& shape,
                      const dfft::Layout& layout, const void* local) {
  Types types;
  const MPI_Datatype elem = element_type(type, types);
  const bool empty = layout.box.empty();
  const auto axes = file_axes(layout.box.dims(), false);  // always written in C order
  const MPI_Datatype ftype = empty ? elem : file_type(shape, layout.box, axes, elem, types);
  const MPI_Datatype mtype =
      empty ? elem : memory_type(layout, axes, elem, npy_itemsize(type), types);
  const std::string header = make_npy_header(type, shape);
  std::int64_t count = 1;
  for (auto n : shape) count *= n;
  const auto total =
      static_cast<MPI_Offset>(header.size()) + static_cast<MPI_Offset>(count) * npy_itemsize(type);
  check_all(MPI_File_set_size(fh_, total), "cannot write '" + path_ + "' (setting its size)",
            comm_);
  int code = MPI_SUCCESS;
  if (rank_ == 0) {
    MPI_Status st;
    code = MPI_File_write_at(fh_, 0, header.data(), static_cast<int>(header.size()), MPI_CHAR, &st);
  }
  check_all(code, "cannot write the header of '" + path_ + "'", comm_);
  check_all(MPI_File_set_view(fh_, static_cast<MPI_Offset>(header.size()), elem, ftype, "native",
                              MPI_INFO_NULL),
            "MPI_File_set_view on '" + path_ + "'", comm_);
  MPI_Status st;
  check_all(MPI_File_write_at_all(fh_, 0, local, empty ? 0 : 1, mtype, &st),
            "cannot write '" + path_ + "'", comm_);
}

void NpyOutput::commit() {
  const int code = MPI_File_close(&fh_);
  fh_ = MPI_FILE_NULL;
  check_all(code, "closing '" + path_ + "'", comm_);
  std::string why;
  if (rank_ == 0 && !in_place_ && std::rename(tmp_.c_str(), path_.c_str()) != 0)
    why = "cannot write '" + path_ + "' (renaming '" + tmp_ + "': " + std::strerror(errno) + ")";
  agree_ok(why.empty(), why, comm_);
  committed_ = true;
}

}  // namespace dfftapp
