// SPDX-License-Identifier: MIT
// Replays the committed fuzz corpus and every saved crash input (fuzz/corpus/<target>/,
// fuzz/regressions/<target>/) through the three parsers in the ordinary (gcc, -Werror) build, so
// the inputs keep being checked where clang/libFuzzer is not available. Each parser may only
// throw its own error type.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "cases.hpp"
#include "dfft/io.hpp"
#include "dfft/tune.hpp"

namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// Runs `parse` on every file of the target's corpus and regressions; returns how many there were.
int replay(const std::string& target, const std::function<void(const std::string&)>& parse) {
  int n = 0;
  for (const char* dir : {"corpus", "regressions"}) {
    const fs::path d = fs::path(DFFT_SOURCE_DIR) / "fuzz" / dir / target;
    if (!fs::is_directory(d)) continue;
    for (const auto& e : fs::directory_iterator(d)) {
      if (!e.is_regular_file()) continue;
      SCOPED_TRACE(e.path().string());
      EXPECT_NO_THROW(parse(slurp(e.path())));
      ++n;
    }
  }
  return n;
}

TEST(CorpusReplay, Npy) {
  const int n = replay("npy", [](const std::string& s) {
    try {
      (void)dfft::io::parse_npy_header(s.data(), s.size());
    } catch (const dfft::InvalidArgument&) {
    }
  });
  EXPECT_GT(n, 0);
}

TEST(CorpusReplay, Cases) {
  const int n = replay("cases", [](const std::string& s) {
    try {
      (void)dfftapp::parse_cases_json(s);
    } catch (const dfftapp::CaseError&) {
    }
  });
  EXPECT_GT(n, 0);
}

TEST(CorpusReplay, Wisdom) {
  const int n = replay("wisdom", [](const std::string& s) {
    try {
      (void)dfft::to_json(dfft::parse_wisdom(s));
    } catch (const dfft::Error&) {
    }
  });
  EXPECT_GT(n, 0);
}

}  // namespace
