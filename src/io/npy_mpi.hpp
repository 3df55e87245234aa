// SPDX-License-Identifier: MIT
// MPI-IO pieces of the .npy reader and writer: files and datatypes that free themselves, the
// checks of file calls, and the cutting of a box into pieces of bounded size.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "dfft/io.hpp"

namespace dfft::io::detail {

/// A failed MPI file call: MpiError "dfft: <doing>: <call> failed with code c (text) on rank r".
void check_file(int code, const char* call, const std::string& doing);
/// MPI-IO may move less than asked and still return MPI_SUCCESS (a full file system, with some
/// implementations and file systems): `st` of a successful `call` must count `count` items of
/// `type`, else MpiError "... <call> moved less than asked ...".
void check_moved(const MPI_Status& st, MPI_Datatype type, int count, const char* call, const std::string& doing);

/// A file opened collectively; an open that fails on any rank throws on every rank. Closed
/// (collectively) by close() or, on the way out of an error, by the destructor.
class File {
 public:
  File(MPI_Comm comm, const std::string& path, int amode, const std::string& doing);
  ~File();
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  MPI_File get() const { return fh_; }
  void close(const std::string& doing);

 private:
  MPI_Comm comm_;
  MPI_File fh_ = MPI_FILE_NULL;
};

/// Derived datatypes, committed and freed together.
class Types {
 public:
  Types() = default;
  Types(const Types&) = delete;
  Types& operator=(const Types&) = delete;
  ~Types();
  MPI_Datatype keep(MPI_Datatype t);

 private:
  std::vector<MPI_Datatype> owned_;
};

MPI_Datatype element_type(Dtype t, Types& types);
/// Where `box` lies in the file: a subarray of `shape` in the file's axis order `axes`.
MPI_Datatype subarray_type(const std::vector<std::int64_t>& shape, const Box& box, const std::vector<int>& axes,
                           MPI_Datatype elem, Types& types);
/// Where `piece` (inside l.box) lies in the local array: nested byte-strided vectors visiting it
/// in the file's order, whatever the layout's memory order and padding. Relative to the address
/// of the piece's first element.
MPI_Datatype memory_type(const Layout& l, const Box& piece, const std::vector<int>& axes, MPI_Datatype elem,
                         std::size_t item, Types& types);
/// Elements of `box` (in file order) before the first element of `piece`.
std::int64_t view_offset(const Box& box, const Box& piece, const std::vector<int>& axes);
/// `box` cut into sub-boxes of at most `max_bytes` (one element at least), each contiguous in
/// the file view of `box`: single indices on the slower file axes, a run on one axis, the
/// faster axes whole. No pieces for an empty box.
std::vector<Box> cut_pieces(const Layout& l, const std::vector<int>& axes, std::size_t item, std::int64_t max_bytes);

}  // namespace dfft::io::detail
