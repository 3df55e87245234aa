// SPDX-License-Identifier: MIT
// NumPy .npy header: parsing (untrusted input) and writing. No MPI and no file access here, so a
// fuzzer can call parse_npy_header() on arbitrary bytes. Format: numpy.lib.format (versions 1.0,
// 2.0 and 3.0): magic "\x93NUMPY", major, minor, header length (uint16 for 1.0, uint32 little
// endian for 2.0/3.0), then a Python dict literal {'descr': ..., 'fortran_order': ..., 'shape':
// ...} padded with spaces and ended by '\n'; the array data follows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace dfftapp {

/// A malformed or unsupported .npy header; what() says what is wrong.
struct NpyError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The element types `dfft transform` reads and writes (little endian).
enum class NpyType { f4, f8, c8, c16, other };

struct NpyHeader {
  int major = 1, minor = 0;
  std::string descr;  // e.g. "<f8"
  NpyType type = NpyType::other;
  int itemsize = 0;  // bytes per element as the descr says (0 if unknown)
  bool fortran_order = false;
  std::vector<std::int64_t> shape;
  std::size_t data_offset = 0;  // bytes from the start of the file to the first element
  std::int64_t count = 1;       // product of shape
  std::int64_t data_bytes = 0;  // count * itemsize
};

/// Largest header accepted (numpy itself refuses more than 10000 bytes by default).
constexpr std::size_t kMaxNpyHeader = 1 << 20;
/// Bytes of the file prefix that are always enough to parse a header of up to kMaxNpyHeader.
constexpr std::size_t kNpyPrefixBytes = kMaxNpyHeader + 12;

/// Parses the header at the start of `data` (`len` bytes available, may be the whole file or a
/// prefix). Throws NpyError for anything malformed: bad magic, unknown version, header longer
/// than `len`, a dict that is not exactly {descr, fortran_order, shape}, negative or overflowing
/// sizes. Does not reject unsupported element types: check `type`.
NpyHeader parse_npy_header(const char* data, std::size_t len);

/// "<f4", "<f8", "<c8", "<c16" and the numpy dtype names ("float32", ...) for messages.
const char* npy_descr(NpyType t);
const char* npy_type_name(NpyType t);
int npy_itemsize(NpyType t);
/// The name of whatever a header holds, for messages ("float64", "int32 ('<i4')", "'>f8' (big
/// endian)").
std::string npy_describe(const NpyHeader& h);

/// A version 1.0 header (2.0 if the dict does not fit in 65535 bytes) for a C-order array,
/// padded so that the data starts at a multiple of 64 bytes.
std::string make_npy_header(NpyType t, const std::vector<std::int64_t>& shape);

}  // namespace dfftapp
