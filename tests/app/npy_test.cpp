// SPDX-License-Identifier: MIT
// .npy header parser: numpy's own header forms parse, every malformed form throws NpyError, and
// no mutation of a valid header does anything else (a light in-test fuzz; fuzz/ fuzzes the parser itself).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

#include "npy.hpp"

namespace {

using dfftapp::NpyError;
using dfftapp::NpyType;
using dfftapp::parse_npy_header;

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

dfftapp::NpyHeader parse(const std::string& s) { return parse_npy_header(s.data(), s.size()); }

const std::string kDict = "{'descr': '<f8', 'fortran_order': False, 'shape': (17, 12, 10), }";

TEST(NpyHeader, ParsesNumpyVersion1) {
  auto h = parse(header(kDict));
  EXPECT_EQ(h.type, NpyType::f8);
  EXPECT_EQ(h.shape, (std::vector<std::int64_t>{17, 12, 10}));
  EXPECT_FALSE(h.fortran_order);
  EXPECT_EQ(h.data_offset % 64, 0u);
  EXPECT_EQ(h.count, 17 * 12 * 10);
  EXPECT_EQ(h.data_bytes, 17 * 12 * 10 * 8);
}

TEST(NpyHeader, ParsesVersions2And3AndOldForms) {
  EXPECT_EQ(parse(header(kDict, 2)).type, NpyType::f8);
  EXPECT_EQ(parse(header(kDict, 3)).data_offset % 64, 0u);
  auto h = parse(
      header("{'shape': (3L, 4L), 'fortran_order': True, 'descr': '<c16'}"));  // any key order
  EXPECT_EQ(h.type, NpyType::c16);
  EXPECT_TRUE(h.fortran_order);
  EXPECT_EQ(h.shape, (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(
      parse(header("{\"descr\": \"<c8\", \"fortran_order\": False, \"shape\": (5,)}")).shape.size(),
      1u);
  EXPECT_EQ(parse(header("{'descr': '<f4', 'fortran_order': False, 'shape': ()}")).count, 1);
}

TEST(NpyHeader, UnsupportedTypesParseAsOther) {
  for (const char* d : {"<i4", ">f8", "|b1", "<f2", "<c32", "<U10", "xyz"}) {
    auto h = parse(
        header(std::string("{'descr': '") + d + "', 'fortran_order': False, 'shape': (2, 2), }"));
    EXPECT_EQ(h.type, NpyType::other) << d;
  }
  auto h = parse(header("{'descr': '>f8', 'fortran_order': False, 'shape': (2, 2), }"));
  EXPECT_NE(dfftapp::npy_describe(h).find("big endian"), std::string::npos);
}

TEST(NpyHeader, WriterRoundTrips) {
  for (auto t : {NpyType::f4, NpyType::f8, NpyType::c8, NpyType::c16})
    for (const auto& shape : {std::vector<std::int64_t>{17, 12, 10}, {5}, {3, 4, 5, 6}, {1, 1}}) {
      const std::string s = dfftapp::make_npy_header(t, shape);
      auto h = parse(s);
      EXPECT_EQ(h.type, t);
      EXPECT_EQ(h.shape, shape);
      EXPECT_EQ(h.data_offset, s.size());
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
    EXPECT_THROW(parse(bad[i]), NpyError) << "case " << i << ": " << bad[i];
  EXPECT_THROW(parse_npy_header(nullptr, 0), NpyError);
}

// Every prefix and thousands of random mutations: the parser returns or throws NpyError,
// nothing else (run under ASan/UBSan to catch out-of-bounds reads as well).
TEST(NpyHeader, MutationsNeverCrash) {
  const std::string good = header(kDict);
  for (std::size_t n = 0; n < good.size(); ++n) {
    try {
      parse(good.substr(0, n));
    } catch (const NpyError&) {
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
    } catch (const NpyError&) {
    }
  }
  EXPECT_GT(parsed, 0);  // some mutations (e.g. in the padding) stay valid
}

}  // namespace
