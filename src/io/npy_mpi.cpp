// SPDX-License-Identifier: MIT
#include "io/npy_mpi.hpp"

#include "io/agree.hpp"
#include "util/check.hpp"

namespace dfft::io::detail {

void check_file(int code, const char* call, const std::string& doing) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) len = 0;
  const int r = dfft::detail::world_rank();
  throw MpiError(call, code, r, dfft::detail::concat("dfft: ", doing, ": ", call, " failed with code ", code, " (",
                                                     std::string(text, static_cast<std::size_t>(len)), ") on rank ", r));
}

void check_moved(const MPI_Status& st, MPI_Datatype type, int count, const char* call, const std::string& doing) {
  int got = 0;
  check_file(MPI_Get_count(&st, type, &got), "MPI_Get_count", doing);
  if (got == count) return;
  const int r = dfft::detail::world_rank();
  throw MpiError(call, MPI_ERR_IO, r, dfft::detail::concat("dfft: ", doing, ": ", call, " moved less than asked (",
                                                           got == MPI_UNDEFINED ? std::string("part") : std::to_string(got),
                                                           " of ", count, "; is the file system full?) on rank ", r));
}

File::File(MPI_Comm comm, const std::string& path, int amode, const std::string& doing) : comm_(comm) {
  std::exception_ptr err;
  try {
    const int code = MPI_File_open(comm, path.c_str(), amode, MPI_INFO_NULL, &fh_);
    if (code != MPI_SUCCESS) fh_ = MPI_FILE_NULL;
    check_file(code, "MPI_File_open", doing);
  } catch (...) {
    err = std::current_exception();
  }
  try {
    agree(comm, err);
  } catch (...) {
    if (fh_ != MPI_FILE_NULL) MPI_File_close(&fh_);
    throw;
  }
}

File::~File() {
  if (fh_ != MPI_FILE_NULL) MPI_File_close(&fh_);
}

void File::close(const std::string& doing) {
  on_every_rank(comm_, [&] {
    const int code = MPI_File_close(&fh_);
    fh_ = MPI_FILE_NULL;
    check_file(code, "MPI_File_close", doing);
  });
}

Types::~Types() {
  for (auto& t : owned_) MPI_Type_free(&t);
}

MPI_Datatype Types::keep(MPI_Datatype t) {
  const int code = MPI_Type_commit(&t);
  if (code != MPI_SUCCESS) {
    MPI_Type_free(&t);
    dfft::detail::throw_mpi("MPI_Type_commit", code);
  }
  owned_.push_back(t);
  return t;
}

MPI_Datatype element_type(Dtype t, Types& types) {
  if (t == Dtype::float32) return MPI_FLOAT;
  if (t == Dtype::float64) return MPI_DOUBLE;
  MPI_Datatype c = MPI_DATATYPE_NULL;
  DFFT_MPI(MPI_Type_contiguous(2, t == Dtype::complex64 ? MPI_FLOAT : MPI_DOUBLE, &c));
  return types.keep(c);
}

MPI_Datatype subarray_type(const std::vector<std::int64_t>& shape, const Box& box, const std::vector<int>& axes,
                           MPI_Datatype elem, Types& types) {
  const int d = box.dims();
  std::vector<int> sizes(d), sub(d), starts(d);
  for (int k = 0; k < d; ++k) {
    const int a = axes[static_cast<std::size_t>(k)];
    sizes[k] = static_cast<int>(shape[a]);  // checked to fit an int
    sub[k] = static_cast<int>(box.extent(a));
    starts[k] = static_cast<int>(box.lo[a]);
  }
  MPI_Datatype t = MPI_DATATYPE_NULL;
  DFFT_MPI(MPI_Type_create_subarray(d, sizes.data(), sub.data(), starts.data(), MPI_ORDER_C, elem, &t));
  return types.keep(t);
}

MPI_Datatype memory_type(const Layout& l, const Box& piece, const std::vector<int>& axes, MPI_Datatype elem,
                         std::size_t item, Types& types) {
  const auto strides = l.strides();
  MPI_Datatype t = elem;
  for (int k = piece.dims() - 1; k >= 0; --k) {
    const int a = axes[static_cast<std::size_t>(k)];
    MPI_Datatype v = MPI_DATATYPE_NULL;
    DFFT_MPI(MPI_Type_create_hvector(static_cast<int>(piece.extent(a)), 1,
                                     static_cast<MPI_Aint>(strides[a] * static_cast<std::int64_t>(item)), t, &v));
    t = types.keep(v);
  }
  return t;
}

std::int64_t view_offset(const Box& box, const Box& piece, const std::vector<int>& axes) {
  std::int64_t off = 0;
  for (int a : axes) off = off * box.extent(a) + (piece.lo[a] - box.lo[a]);
  return off;
}

std::vector<Box> cut_pieces(const Layout& l, const std::vector<int>& axes, std::size_t item, std::int64_t max_bytes) {
  const Box& box = l.box;
  if (box.empty()) return {};
  const int d = box.dims();
  // k: the slowest file position whose unit (all faster positions whole) fits max_bytes.
  int k = d - 1;
  std::int64_t unit = static_cast<std::int64_t>(item);
  while (k > 0 && unit * box.extent(axes[static_cast<std::size_t>(k)]) <= max_bytes)
    unit *= box.extent(axes[static_cast<std::size_t>(k--)]);
  const int ak = axes[static_cast<std::size_t>(k)];
  if (k == 0 && unit * box.extent(ak) <= max_bytes) return {box};
  const std::int64_t run = std::max<std::int64_t>(1, max_bytes / unit);
  std::vector<Box> out;
  Box p = box;
  for (int q = 0; q < k; ++q) p.hi[axes[static_cast<std::size_t>(q)]] = p.lo[axes[static_cast<std::size_t>(q)]] + 1;
  for (;;) {
    for (std::int64_t s = box.lo[ak]; s < box.hi[ak]; s += run) {
      p.lo[ak] = s;
      p.hi[ak] = std::min(box.hi[ak], s + run);
      out.push_back(p);
    }
    int q = k - 1;  // next index tuple of the slower positions, odometer style
    for (; q >= 0; --q) {
      const int a = axes[static_cast<std::size_t>(q)];
      if (++p.lo[a] < box.hi[a]) {
        p.hi[a] = p.lo[a] + 1;
        break;
      }
      p.lo[a] = box.lo[a];
      p.hi[a] = p.lo[a] + 1;
    }
    if (q < 0) return out;
  }
}

}  // namespace dfft::io::detail
