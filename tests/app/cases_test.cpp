// SPDX-License-Identifier: MIT
// Test-case files: the format of docs/cases.md parses, the shipped suites parse, every malformed
// file throws CaseError naming the place, and random corruption throws nothing else.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "cases.hpp"
#include "dfft/option_fields.hpp"
#include "option_json.hpp"
#include "support/option_values.hpp"

namespace {

using dfftapp::CaseError;
using dfftapp::parse_cases_json;
using Shape = std::vector<std::int64_t>;

const char* kGood = R"({
  "name": "t", "description": "d", "comment": "ignored",
  "global": {"warmup": 1, "reps": 3, "precision": "double", "transform": ["r2c", "c2c"], "backend": "cpu",
             "staging": "host", "validate": true, "reference": false, "effort": "estimate", "ranks": [1, 2]},
  "tests": [
    {"name": "slabs", "decomposition": ["slab-2d1d", "slab-1d2d"], "variant": "default",
     "method": ["a2a-sync", "p2p-type"], "grid": "auto", "sizes": [[17, 12, 10], "32^3", "16^2x32"]},
    {"decomposition": "pencil", "grid": ["2x1", 2], "method1": "a2a-sync", "method2": ["p2p-sync"],
     "sizes": {"from": "8^3", "to": [16, 16, 16]}, "ranks": 2, "reps": 5}
  ]
})";

std::string message(const std::string& text) {
  try {
    parse_cases_json(text);
  } catch (const CaseError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Cases, ParsesTheDocumentedFormat) {
  auto f = parse_cases_json(kGood);
  EXPECT_EQ(f.name, "t");
  ASSERT_EQ(f.tests.size(), 2u);
  EXPECT_EQ(f.tests[0].name, "slabs");
  EXPECT_EQ(f.tests[1].name, "tests[1]");
  EXPECT_EQ(*f.global.reps, 3);
  EXPECT_EQ(f.global.options.at("transform"), (std::vector<std::string>{"r2c", "c2c"}));
  EXPECT_EQ(*f.global.ranks, (std::vector<int>{1, 2}));
  EXPECT_EQ(*f.tests[0].settings.sizes,
            (std::vector<Shape>{{17, 12, 10}, {32, 32, 32}, {16, 16, 32}}));
  EXPECT_EQ(f.tests[1].settings.sizes->size(), 4u);  // 8^3, 8^2x16, 8x16^2, 16^3
  EXPECT_EQ(f.tests[1].settings.options.at("grid"), (std::vector<std::string>{"2x1", "2"}));
  EXPECT_EQ(*f.tests[1].settings.ranks, (std::vector<int>{2}));
  EXPECT_EQ(*f.tests[1].settings.reps, 5);
}

TEST(Cases, DoublingFollowsTheThesis) {
  auto s = dfftapp::doubling_sizes({128, 128, 128}, {512, 512, 512});
  std::vector<Shape> want{{128, 128, 128}, {128, 128, 256}, {128, 256, 256}, {256, 256, 256},
                          {256, 256, 512}, {256, 512, 512}, {512, 512, 512}};
  EXPECT_EQ(s, want);
  EXPECT_EQ(dfftapp::doubling_sizes({8, 8}, {8, 8}), (std::vector<Shape>{{8, 8}}));
  // The cycle stops at the first axis that cannot double: 4^3, 4^2x8, then axis 1 would pass 4.
  EXPECT_EQ(dfftapp::doubling_sizes({4, 4, 4}, {4, 4, 100}).size(), 2u);
  EXPECT_THROW(dfftapp::doubling_sizes({8, 8}, {4, 8}), CaseError);
  EXPECT_THROW(dfftapp::doubling_sizes({8, 8}, {8, 8, 8}), CaseError);
  EXPECT_THROW(dfftapp::doubling_sizes({0, 8}, {8, 8}), CaseError);
}

TEST(Cases, SizeText) {
  EXPECT_EQ(dfftapp::parse_size_text("128^2x256"), (Shape{128, 128, 256}));
  EXPECT_EQ(dfftapp::parse_size_text("17x12x10"), (Shape{17, 12, 10}));
  EXPECT_EQ(dfftapp::parse_size_text("64^3"), (Shape{64, 64, 64}));
  for (const char* bad :
       {"", "x", "64x", "64^", "^3", "64^0", "6a4", "64^99", "-4x4", "99999999999999999x2"})
    EXPECT_THROW(dfftapp::parse_size_text(bad), CaseError) << bad;
}

TEST(Cases, ErrorsNameThePlace) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"{", "invalid JSON"},
      {"[]", "top level"},
      {R"({"tests": []})", "tests"},
      {R"({"tests": [{}]})", "no \"sizes\""},
      {R"({"tests": [{"sizes": ["8^3"], "decompositon": "pencil"}]})",
       "tests[0].decompositon: unknown key"},
      {R"({"tests": [{"sizes": ["8^3"], "method": "p2p-fast"}]})",
       "tests[0].method: dfft: unknown method"},
      {R"({"tests": [{"sizes": ["8^3"], "method": ["a2a-sync", 3]}]})", "tests[0].method[1]"},
      {R"({"tests": [{"sizes": [64, 64, 64]}]})", "write [[64, 64, 64]]"},
      {R"({"tests": [{"sizes": [[64]]}]})", "2 to 8 dimensions"},
      {R"({"tests": [{"sizes": [[64, 0, 4]]}]})", "between 1"},
      {R"({"tests": [{"sizes": {"from": "16^3", "to": "8^3"}}]})", "from <= to"},
      {R"({"tests": [{"sizes": {"from": "16^3"}}]})", "needs \"from\" and \"to\""},
      {R"({"tests": [{"sizes": {"from": "8^3", "to": "8^3", "step": 2}}]})", "unknown key 'step'"},
      {R"({"global": {"reps": 0}, "tests": [{"sizes": ["8^3"]}]})", "global.reps"},
      {R"({"global": {"reps": "ten"}, "tests": [{"sizes": ["8^3"]}]})", "expected an integer"},
      {R"({"global": {"warmup": 1e3}, "tests": [{"sizes": ["8^3"]}]})", "global.warmup"},
      {R"({"global": {"validate": 1}, "tests": [{"sizes": ["8^3"]}]})", "expected true or false"},
      {R"({"tests": [{"sizes": ["8^3"], "grid": "2y2"}]})", "tests[0].grid"},
      {R"({"tests": [{"sizes": ["8^3"], "ranks": [0]}]})", "tests[0].ranks[0]"},
      {R"({"tests": [{"sizes": ["8^3"], "method": "a2a-sync", "method1": "p2p-sync"}]})",
       "excludes"},
      {R"({"tests": [{"sizes": ["8^3"], "precision": "half"}]})", "allowed: double, float"},
      {R"({"tests": [{"sizes": ["8^3"], "backend": "gpu"}]})", "tests[0].backend"},
      {R"({"tests": [{"sizes": ["8^3"]}], "extra": 1})", "unknown top-level key"},
      {R"({"tests": [{"sizes": ["8^3"]}], "runner": [4]})", "runner: expected an object"},
      {R"({"tests": [{"sizes": ["8^3"], "reps": 18446744073709551615}]})", "at most"},
  };
  for (const auto& [text, expect] : cases) {
    const std::string m = message(text);
    EXPECT_NE(m.find(expect), std::string::npos) << text << "\n  gave: " << m;
  }
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Cases, ShippedSuitesParse) {
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(DFFT_SOURCE_DIR) + "/benchmarks/cases")) {
    if (e.path().extension() != ".json") continue;
    const std::string name = e.path().filename().string(), text = read(e.path().string());
    ASSERT_FALSE(text.empty()) << name;
    EXPECT_NO_THROW(parse_cases_json(text)) << name << ": " << message(text);
    ++files;
  }
  EXPECT_GE(files, 20);
}

// Every plan option of the table is a key, in "global" and in a test, with the value type the
// table gives it (the JSON a bench record writes for it).
TEST(Cases, EveryOptionFieldIsAKey) {
  for (const auto& f : dfft::option_fields()) {
    const std::string key(f.name);
    // An empty grid or method list is "auto" in a cases file (the grid key's values are grid texts).
    const nlohmann::json value =
        f.empty_is_auto ? nlohmann::json(f.default_text()) : dfftapp::option_json(f, f.default_text());
    for (const char* where : {"global", "test"}) {
      nlohmann::json doc = {{"tests", {{{"sizes", {"8^3"}}}}}};
      if (std::string(where) == "global")
        doc["global"][key] = value;
      else
        doc["tests"][0][key] = value;
      EXPECT_EQ(message(doc.dump()), "(no error)") << key << " in " << where << ": " << doc.dump();
    }
  }
}

TEST(Cases, OptionKeysSweep) {
  auto f = parse_cases_json(R"({"global": {"codec": ["none", "fp16"], "chunks": 2},
    "tests": [{"sizes": ["8^3"], "overlap": [1, 4], "threads": 2, "axes": [[0, 1], [2]], "adapt": true,
               "tolerance": 0.001, "methods": ["a2a-sync", "p2p-sync"]}]})");
  using V = std::vector<std::string>;
  EXPECT_EQ(f.global.options.at("codec"), (V{"none", "fp16"}));
  EXPECT_EQ(f.global.options.at("chunks"), (V{"2"}));
  const auto& t = f.tests.at(0).settings.options;
  EXPECT_EQ(t.at("overlap"), (V{"1", "4"}));
  EXPECT_EQ(t.at("threads"), (V{"2"}));
  EXPECT_EQ(t.at("axes"), (V{"0,1", "2"}));
  EXPECT_EQ(t.at("adapt"), (V{"true"}));
  EXPECT_EQ(t.at("tolerance"), (V{"0.001"}));
  EXPECT_EQ(t.at("methods"), (V{"a2a-sync,p2p-sync"}));
  for (const auto& [text, expect] : std::vector<std::pair<std::string, std::string>>{
           {R"({"tests": [{"sizes": ["8^3"], "codec": "fp8"}]})", "tests[0].codec"},
           {R"({"tests": [{"sizes": ["8^3"], "overlap": "many"}]})", "tests[0].overlap"},
           {R"({"tests": [{"sizes": ["8^3"], "codec": []}]})", "empty list"},
           {R"({"tests": [{"sizes": ["8^3"], "axes": {"a": 1}}]})", "tests[0].axes"},
           {R"({"tests": [{"sizes": ["8^3"], "methods": ["nccl"], "method": "a2a-sync"}]})", "excludes"}}) {
    const std::string m = message(text);
    EXPECT_NE(m.find(expect), std::string::npos) << text << "\n  gave: " << m;
  }
}

// Every second key of the table (OptionField::cases_alias) is read into its field: one value per
// configuration as the flag writes it, and excludes the field's own key.
TEST(Cases, EveryAliasOfTheTableIsAKey) {
  int aliases = 0;
  for (const auto& f : dfft::option_fields()) {
    if (f.cases_alias.empty()) continue;
    ++aliases;
    SCOPED_TRACE(std::string(f.name));
    const std::string key(f.cases_alias), name(f.name), value = dfft_test::other_value(f);
    const auto file = parse_cases_json(R"({"tests": [{"sizes": ["8^3"], ")" + key + R"(": [")" + value + R"("]}]})");
    const auto& t = file.tests.at(0).settings;
    EXPECT_EQ(t.options.at(name), std::vector<std::string>{value});
    EXPECT_EQ(t.by_alias.count(name), 1U);
    const std::string both = R"({"tests": [{"sizes": ["8^3"], ")" + key + R"(": [")" + value + R"("], ")" + name +
                             R"(": [")" + value + R"("]}]})";
    EXPECT_NE(message(both).find("excludes"), std::string::npos) << message(both);
  }
  EXPECT_GT(aliases, 0);
}

TEST(Cases, CorruptionThrowsOnlyCaseError) {
  const std::string good = kGood;
  std::mt19937 rng(7);
  const std::string alphabet = "{}[]\",:0123456789-e.^x truefalsnul\\";
  for (int iter = 0; iter < 5000; ++iter) {
    std::string s = good;
    for (int e = 0; e < 1 + static_cast<int>(rng() % 3); ++e) {
      const std::size_t at = rng() % s.size();
      if (rng() % 2)
        s[at] = alphabet[rng() % alphabet.size()];
      else
        s.erase(at, 1 + rng() % 8);
      if (s.empty()) s = "{";
    }
    try {
      parse_cases_json(s);
    } catch (const CaseError&) {
    }
  }
}

}  // namespace
