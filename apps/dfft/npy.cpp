// SPDX-License-Identifier: MIT
// .npy header parser and writer. The parser reads untrusted bytes: every access is bounds
// checked, every number overflow checked, and anything unexpected throws NpyError.
#include "npy.hpp"

#include <cstring>
#include <limits>
#include <string_view>

namespace dfftapp {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLen = 6;
constexpr std::int64_t kMaxDims = 64;

[[noreturn]] void bad(const std::string& what) { throw NpyError("malformed .npy header: " + what); }

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

// Splits a descr like "<f8" into byte order, kind and size; fills type/itemsize.
void read_descr(NpyHeader& h) {
  const std::string& d = h.descr;
  if (d.size() < 3 || d.size() > 5) {
    h.type = NpyType::other;
    return;  // reported by the caller as an unsupported type
  }
  const char order = d[0], kind = d[1];
  int size = 0;
  for (std::size_t k = 2; k < d.size(); ++k) {
    if (d[k] < '0' || d[k] > '9') return;
    size = size * 10 + (d[k] - '0');
  }
  h.itemsize = size;
  const bool little = order == '<' || (order == '|' && size == 1);
  if (!little) return;
  if (kind == 'f' && size == 4) h.type = NpyType::f4;
  if (kind == 'f' && size == 8) h.type = NpyType::f8;
  if (kind == 'c' && size == 8) h.type = NpyType::c8;
  if (kind == 'c' && size == 16) h.type = NpyType::c16;
}

void read_dict(NpyHeader& h, std::string_view text) {
  DictReader r(text);
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
}

}  // namespace

NpyHeader parse_npy_header(const char* data, std::size_t len) {
  if (data == nullptr || len < kMagicLen || std::memcmp(data, kMagic, kMagicLen) != 0)
    throw NpyError("not a .npy file (the first bytes are not \\x93NUMPY)");
  if (len < 10) bad("file ends inside the version and length fields");
  const auto* u = reinterpret_cast<const unsigned char*>(data);
  NpyHeader h;
  h.major = u[6];
  h.minor = u[7];
  if (h.major < 1 || h.major > 3 || h.minor != 0)
    bad("unsupported format version " + std::to_string(h.major) + "." + std::to_string(h.minor) +
        " (1.0, 2.0 and 3.0 are known)");
  const std::size_t prefix = h.major == 1 ? 10 : 12;
  if (len < prefix) bad("file ends inside the header length field");
  const std::size_t hlen = little_u32(u + 8, h.major == 1 ? 2 : 4);
  if (hlen > kMaxNpyHeader)
    bad("header length " + std::to_string(hlen) + " exceeds the limit of 1 MiB");
  if (hlen > len - prefix)
    bad("header says " + std::to_string(hlen) + " bytes but the file ends after " +
        std::to_string(len - prefix));
  h.data_offset = prefix + hlen;
  read_dict(h, std::string_view(data + prefix, hlen));
  read_descr(h);
  h.count = 1;
  for (auto n : h.shape) {
    if (n != 0 && h.count > std::numeric_limits<std::int64_t>::max() / n)
      bad("shape product overflows");
    h.count *= n;
  }
  if (h.itemsize > 0 && h.count > std::numeric_limits<std::int64_t>::max() / h.itemsize)
    bad("array size in bytes overflows");
  h.data_bytes = h.count * h.itemsize;
  return h;
}

const char* npy_descr(NpyType t) {
  switch (t) {
    case NpyType::f4: return "<f4";
    case NpyType::f8: return "<f8";
    case NpyType::c8: return "<c8";
    case NpyType::c16: return "<c16";
    default: return "?";
  }
}

const char* npy_type_name(NpyType t) {
  switch (t) {
    case NpyType::f4: return "float32";
    case NpyType::f8: return "float64";
    case NpyType::c8: return "complex64";
    case NpyType::c16: return "complex128";
    default: return "unsupported";
  }
}

int npy_itemsize(NpyType t) {
  switch (t) {
    case NpyType::f4: return 4;
    case NpyType::f8:
    case NpyType::c8: return 8;
    case NpyType::c16: return 16;
    default: return 0;
  }
}

std::string npy_describe(const NpyHeader& h) {
  if (h.type != NpyType::other) return npy_type_name(h.type);
  std::string why;
  if (!h.descr.empty() && h.descr[0] == '>') why = ", big endian";
  return "'" + h.descr + "'" + why;
}

std::string make_npy_header(NpyType t, const std::vector<std::int64_t>& shape) {
  std::string dims;
  for (auto n : shape) dims += std::to_string(n) + ", ";
  if (shape.size() > 1)
    dims.resize(dims.size() - 2);  // numpy writes (3,) for one dimension only
  else if (shape.size() == 1)
    dims.pop_back();
  std::string dict = std::string("{'descr': '") + npy_descr(t) +
                     "', 'fortran_order': False, 'shape': (" + dims + "), }";
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

}  // namespace dfftapp
