// SPDX-License-Identifier: MIT
// .npy header parser: numpy's own header forms parse, every malformed form throws InvalidArgument,
// and no mutation of a valid header does anything else (a light in-test fuzz; fuzz/ fuzzes the
// parser itself). The cutting of boxes into pieces for MPI-IO.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

#include "dfft/io.hpp"
#include "io/npy_mpi.hpp"

namespace {

using dfft::InvalidArgument;
using dfft::io::Dtype;
using dfft::io::parse_npy_header;

// A header as numpy writes it: magic, version, little-endian length, dict, padding, newline.
std::string header(const std::string& dict, int major = 1) {
  std::string body = dict;
  const std::size_t prefix = major == 1 ? 10 : 12;
  body.append((64 - (prefix + body.size() + 1) % 64) % 64, ' ');
  body += '\n';
  std::string h = std::string("\x93NUMPY", 6) + static_cast<char>(major) + '\0';
  for (std::size_t b = 0; b < prefix - 8; ++b)
    h += static_cast<char>((body.size() >> (8 * b)) & 0xff);
  return h + body;
}

dfft::io::NpyHeader parse(const std::string& s) { return parse_npy_header(s.data(), s.size()); }

const std::string kDict = "{'descr': '<f8', 'fortran_order': False, 'shape': (17, 12, 10), }";

TEST(NpyHeader, ParsesNumpyVersion1) {
  auto h = parse(header(kDict));
  EXPECT_EQ(h.dtype, Dtype::float64);
  EXPECT_EQ(h.shape, (std::vector<std::int64_t>{17, 12, 10}));
  EXPECT_FALSE(h.fortran_order);
  EXPECT_EQ(h.data_offset % 64, 0);
  EXPECT_EQ(h.data_bytes, 17 * 12 * 10 * 8);
}

TEST(NpyHeader, ParsesVersions2And3AndOldForms) {
  EXPECT_EQ(parse(header(kDict, 2)).dtype, Dtype::float64);
  EXPECT_EQ(parse(header(kDict, 3)).data_offset % 64, 0);
  auto h = parse(
      header("{'shape': (3L, 4L), 'fortran_order': True, 'descr': '<c16'}"));  // any key order
  EXPECT_EQ(h.dtype, Dtype::complex128);
  EXPECT_TRUE(h.fortran_order);
  EXPECT_EQ(h.shape, (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(
      parse(header("{\"descr\": \"<c8\", \"fortran_order\": False, \"shape\": (5,)}")).shape.size(),
      1u);
  EXPECT_EQ(parse(header("{'descr': '<f4', 'fortran_order': False, 'shape': ()}")).data_bytes, 4);
}

TEST(NpyHeader, UnsupportedTypesAreRefusedByName) {
  for (const char* d : {"<i4", ">f8", "|b1", "<f2", "<c32", "<U10", "xyz"}) {
    try {
      parse(header(std::string("{'descr': '") + d + "', 'fortran_order': False, 'shape': (2, 2), }"));
      ADD_FAILURE() << d << " parsed";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("unsupported dtype '") + d + "'"), std::string::npos)
          << e.what();
      EXPECT_EQ(std::string(e.what()).find("big endian") != std::string::npos, d[0] == '>') << e.what();
    }
  }
}

TEST(NpyHeader, WriterRoundTrips) {
  for (auto t : {Dtype::float32, Dtype::float64, Dtype::complex64, Dtype::complex128})
    for (const auto& shape : {std::vector<std::int64_t>{17, 12, 10}, {5}, {3, 4, 5, 6}, {1, 1}}) {
      const std::string s = dfft::io::make_npy_header(t, shape);
      auto h = parse(s);
      EXPECT_EQ(h.dtype, t);
      EXPECT_EQ(h.shape, shape);
      EXPECT_EQ(h.data_offset, static_cast<std::int64_t>(s.size()));
      EXPECT_EQ(s.size() % 64, 0u);
      EXPECT_EQ(s.back(), '\n');
    }
}

TEST(NpyHeader, MalformedHeadersThrow) {
  const std::string good = header(kDict);
  std::vector<std::string> bad{
      "",
      "\x93NUMP",
      "XNUMPY\x01\x00",
      good.substr(0, 9),
      std::string("\x93NUMPY\x04\x00", 8) + good.substr(8),  // unknown version
      std::string("\x93NUMPY\x01\x01", 8) + good.substr(8),  // minor version
      good.substr(0, good.size() - 5),                       // header longer than the data
      header("{'descr': '<f8', 'fortran_order': False}"),    // missing key
      header("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (2,)}"),
      header("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'extra': 1}"),
      header("{'descr': '<f8', 'fortran_order': Maybe, 'shape': (2,)}"),
      header("{'descr': '<f8', 'fortran_order': False, 'shape': (-2, 3)}"),
      header("{'descr': '<f8', 'fortran_order': False, 'shape': [2, 3]}"),
      header("{'descr': '<f8', 'fortran_order': False, 'shape': (2 3)}"),
      header("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999, 99999999999)}"),
      header("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,)}"),
      header("{'descr': '<f8', 'fortran_order': False, 'shape': (2,)} trailing"),
      header("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (2,)}"),
      header("{'descr': '<f\\x38', 'fortran_order': False, 'shape': (2,)}"),
      header("{'descr': '<f8, 'fortran_order': False, 'shape': (2,)}"),
      header("{'descr': '<f8', 'fortran_order': False, 'shape': (2,)"),
      header("'descr': '<f8', 'fortran_order': False, 'shape': (2,)}"),
      header("{'descr': '<f8', 'fortran_order': False, 'shape': (" + std::string(200, '1') + ",)}"),
  };
  std::string many = "{'descr': '<f8', 'fortran_order': False, 'shape': (";
  for (int i = 0; i < 70; ++i) many += "1, ";
  bad.push_back(header(many + ")}"));
  std::string huge = std::string("\x93NUMPY\x02\x00", 8) + std::string("\xff\xff\xff\x7f", 4);
  bad.push_back(huge + std::string(100, ' '));
  for (std::size_t i = 0; i < bad.size(); ++i)
    EXPECT_THROW(parse(bad[i]), InvalidArgument) << "case " << i << ": " << bad[i];
  EXPECT_THROW(parse_npy_header(nullptr, 0), InvalidArgument);
}

// Every prefix and thousands of random mutations: the parser returns or throws InvalidArgument,
// nothing else (run under ASan/UBSan to catch out-of-bounds reads as well).
TEST(NpyHeader, MutationsNeverCrash) {
  const std::string good = header(kDict);
  for (std::size_t n = 0; n < good.size(); ++n) {
    try {
      parse(good.substr(0, n));
    } catch (const InvalidArgument&) {
    }
  }
  std::mt19937 rng(12345);
  const std::string alphabet = "{}()[],:'\" 0123456789LTrueFalse<>|fc\n\x93\xff";
  int parsed = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string s = good;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = rng() % s.size();
      switch (rng() % 3) {
        case 0: s[at] = alphabet[rng() % alphabet.size()]; break;
        case 1: s.erase(at, 1 + rng() % 3); break;
        default: s.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
      }
      if (s.empty()) s = "x";
    }
    try {
      parse(s);
      ++parsed;
    } catch (const InvalidArgument&) {
    }
  }
  EXPECT_GT(parsed, 0);  // some mutations (e.g. in the padding) stay valid
}

// The pieces of a box follow one another in the file view (each starts where the previous one
// ended, so together they are the box exactly once) and each is at most max_bytes, one element
// at least: checked on odd boxes, both file orders and limits from one element to the whole box.
TEST(NpyPieces, TileTheViewInOrderWithinTheLimit) {
  dfft::Layout l;
  l.box = {{2, 0, 3}, {19, 12, 13}};  // 17 x 12 x 10 inside a larger array
  l.order = {2, 0, 1};
  for (bool fortran : {false, true}) {
    const std::vector<int> axes = fortran ? std::vector<int>{2, 1, 0} : std::vector<int>{0, 1, 2};
    for (std::int64_t max : {1, 8, 24, 80, 100, 960, 961, 11520, 16320, 16321, 1 << 30}) {
      const auto pieces = dfft::io::detail::cut_pieces(l, axes, 8, max);
      std::int64_t next = 0;
      for (const auto& p : pieces) {
        EXPECT_EQ(dfft::io::detail::view_offset(l.box, p, axes), next) << "max " << max;
        EXPECT_TRUE(p.count() * 8 <= max || p.count() == 1) << "max " << max;
        next += p.count();
      }
      EXPECT_EQ(next, l.box.count()) << "max " << max;
      if (max >= l.box.count() * 8) {
        EXPECT_EQ(pieces.size(), 1u);
      }
    }
  }
  l.box = {{0, 5, 0}, {4, 5, 7}};
  EXPECT_TRUE(dfft::io::detail::cut_pieces(l, {0, 1, 2}, 8, 64).empty());
}

}  // namespace
