// SPDX-License-Identifier: MIT
// .npy header parser and writer. The parser reads untrusted bytes: every access is bounds
// checked, every number overflow checked, and anything unexpected throws InvalidArgument. Format
// (numpy.lib.format, versions 1.0, 2.0 and 3.0): magic "\x93NUMPY", major, minor, header length
// (uint16 for 1.0, uint32 little endian for 2.0/3.0), then a Python dict literal {'descr': ...,
// 'fortran_order': ..., 'shape': ...} padded with spaces and ended by '\n'; the data follows.
#include <cstring>
#include <limits>
#include <string_view>

#include "dfft/io.hpp"
#include "util/check.hpp"

namespace dfft::io {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLen = 6;
constexpr std::int64_t kMaxDims = 64;

[[noreturn]] void refuse(const std::string& what) {
  throw InvalidArgument("read_npy", dfft::detail::world_rank(), "dfft: " + what);
}
[[noreturn]] void bad(const std::string& what) { refuse("malformed .npy header: " + what); }

// Recursive-descent reader of the one Python dict literal numpy writes.
class DictReader {
 public:
  explicit DictReader(std::string_view s) : s_(s) {}

  void skip_ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r'))
      ++i_;
  }
  bool at_end() const { return i_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[i_]; }
  void expect(char c) {
    skip_ws();
    if (peek() != c)
      bad(std::string("expected '") + c + "' at offset " + std::to_string(i_) + found());
    ++i_;
  }
  bool accept(char c) {
    skip_ws();
    if (peek() != c) return false;
    ++i_;
    return true;
  }

  std::string string_literal() {
    skip_ws();
    const char q = peek();
    if (q != '\'' && q != '"')
      bad("expected a quoted string at offset " + std::to_string(i_) + found());
    const std::size_t start = ++i_;
    while (!at_end() && s_[i_] != q) {
      if (s_[i_] == '\\') bad("escape sequences are not supported in the header strings");
      ++i_;
    }
    if (at_end()) bad("unterminated string");
    std::string out(s_.substr(start, i_ - start));
    ++i_;
    return out;
  }

  bool boolean() {
    skip_ws();
    for (auto [word, value] : {std::pair<std::string_view, bool>{"True", true}, {"False", false}}) {
      if (s_.substr(i_, word.size()) == word) {
        i_ += word.size();
        return value;
      }
    }
    bad("fortran_order must be True or False" + found());
  }

  std::int64_t integer() {
    skip_ws();
    const std::size_t start = i_;
    std::int64_t v = 0;
    while (!at_end() && s_[i_] >= '0' && s_[i_] <= '9') {
      const int digit = s_[i_] - '0';
      if (v > (std::numeric_limits<std::int64_t>::max() - digit) / 10) bad("shape entry too large");
      v = v * 10 + digit;
      ++i_;
    }
    if (i_ == start)
      bad("expected a non-negative integer in 'shape' at offset " + std::to_string(i_) + found());
    if (peek() == 'L') ++i_;  // Python 2 era files write long integers as 10L
    return v;
  }

  std::vector<std::int64_t> tuple() {
    expect('(');
    std::vector<std::int64_t> dims;
    while (!accept(')')) {
      if (static_cast<std::int64_t>(dims.size()) >= kMaxDims) bad("more than 64 dimensions");
      dims.push_back(integer());
      if (!accept(',')) {
        expect(')');
        break;
      }
    }
    return dims;
  }

 private:
  std::string found() const {
    if (at_end()) return " (end of header)";
    const char c = s_[i_];
    if (c >= 32 && c < 127) return std::string(" (found '") + c + "')";
    return " (found byte " + std::to_string(static_cast<unsigned char>(c)) + ")";
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

std::uint32_t little_u32(const unsigned char* p, int n) {
  std::uint32_t v = 0;
  for (int b = n - 1; b >= 0; --b) v = (v << 8) | p[b];
  return v;
}

constexpr Dtype kDtypes[] = {Dtype::float32, Dtype::float64, Dtype::complex64, Dtype::complex128};

// The dtype a descr like "<f8" names; InvalidArgument naming it for anything else.
Dtype read_descr(const std::string& d) {
  for (Dtype t : kDtypes)
    if (d == numpy_descr(t)) return t;
  const std::string why = !d.empty() && d[0] == '>' ? " (big endian)" : "";
  refuse("unsupported dtype '" + d + "'" + why +
         "; dfft reads float32, float64, complex64 and complex128 (little endian)");
}

struct Dict {
  std::string descr;
  bool fortran_order = false;
  std::vector<std::int64_t> shape;
};

Dict read_dict(std::string_view text) {
  DictReader r(text);
  Dict h;
  r.expect('{');
  bool have_descr = false, have_order = false, have_shape = false;
  while (!r.accept('}')) {
    const std::string key = r.string_literal();
    r.expect(':');
    bool* seen = nullptr;
    if (key == "descr") {
      r.skip_ws();
      if (r.peek() == '[') bad("structured dtypes (a list in 'descr') are not supported");
      h.descr = r.string_literal();
      seen = &have_descr;
    } else if (key == "fortran_order") {
      h.fortran_order = r.boolean();
      seen = &have_order;
    } else if (key == "shape") {
      h.shape = r.tuple();
      seen = &have_shape;
    } else {
      bad("unexpected key '" + key + "' (allowed: descr, fortran_order, shape)");
    }
    if (*seen) bad("key '" + key + "' appears twice");
    *seen = true;
    if (!r.accept(',')) {
      r.expect('}');
      break;
    }
  }
  r.skip_ws();
  if (!r.at_end()) bad("unexpected text after the closing '}'");
  if (!have_descr || !have_order || !have_shape)
    bad("the dict needs the keys 'descr', 'fortran_order' and 'shape'");
  return h;
}

}  // namespace

std::string to_string(Dtype t) {
  switch (t) {
    case Dtype::float32: return "float32";
    case Dtype::float64: return "float64";
    case Dtype::complex64: return "complex64";
    case Dtype::complex128: return "complex128";
  }
  return "?";
}

std::string numpy_descr(Dtype t) {
  switch (t) {
    case Dtype::float32: return "<f4";
    case Dtype::float64: return "<f8";
    case Dtype::complex64: return "<c8";
    case Dtype::complex128: return "<c16";
  }
  return "?";
}

std::size_t itemsize(Dtype t) {
  switch (t) {
    case Dtype::float32: return 4;
    case Dtype::float64:
    case Dtype::complex64: return 8;
    case Dtype::complex128: return 16;
  }
  return 0;
}

NpyHeader parse_npy_header(const char* data, std::size_t len) {
  if (data == nullptr || len < kMagicLen || std::memcmp(data, kMagic, kMagicLen) != 0)
    refuse("not a .npy file (the first bytes are not \\x93NUMPY)");
  if (len < 10) bad("file ends inside the version and length fields");
  const auto* u = reinterpret_cast<const unsigned char*>(data);
  NpyHeader h;
  h.version = u[6];
  if (h.version < 1 || h.version > 3 || u[7] != 0)
    bad("unsupported format version " + std::to_string(h.version) + "." + std::to_string(u[7]) +
        " (1.0, 2.0 and 3.0 are known)");
  const std::size_t prefix = h.version == 1 ? 10 : 12;
  if (len < prefix) bad("file ends inside the header length field");
  const std::size_t hlen = little_u32(u + 8, h.version == 1 ? 2 : 4);
  if (hlen > kMaxNpyHeader)
    bad("header length " + std::to_string(hlen) + " exceeds the limit of 1 MiB");
  if (hlen > len - prefix)
    bad("header says " + std::to_string(hlen) + " bytes but the file ends after " +
        std::to_string(len - prefix));
  h.data_offset = static_cast<std::int64_t>(prefix + hlen);
  Dict d = read_dict(std::string_view(data + prefix, hlen));
  h.dtype = read_descr(d.descr);
  h.fortran_order = d.fortran_order;
  h.shape = std::move(d.shape);
  std::int64_t count = 1;
  for (auto n : h.shape) {
    if (n != 0 && count > std::numeric_limits<std::int64_t>::max() / n) bad("shape product overflows");
    count *= n;
  }
  const auto item = static_cast<std::int64_t>(itemsize(h.dtype));
  if (count > std::numeric_limits<std::int64_t>::max() / item) bad("array size in bytes overflows");
  h.data_bytes = count * item;
  return h;
}

std::string make_npy_header(Dtype t, const std::vector<std::int64_t>& shape) {
  std::string dims;
  for (auto n : shape) dims += std::to_string(n) + ", ";
  if (shape.size() > 1)
    dims.resize(dims.size() - 2);  // numpy writes (3,) for one dimension only
  else if (shape.size() == 1)
    dims.pop_back();
  std::string dict = "{'descr': '" + numpy_descr(t) + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  int major = 1;
  std::size_t prefix = 10;
  if (dict.size() + 64 > 65535) {
    major = 2;
    prefix = 12;
  }
  std::size_t total = prefix + dict.size() + 1;  // + the closing newline
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  const std::size_t hlen = dict.size();
  std::string out(kMagic, kMagicLen);
  out += static_cast<char>(major);
  out += '\0';
  for (std::size_t b = 0; b < prefix - 8; ++b) out += static_cast<char>((hlen >> (8 * b)) & 0xff);
  return out + dict;
}

}  // namespace dfft::io
