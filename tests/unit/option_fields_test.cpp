// SPDX-License-Identifier: MIT
// The table of Options fields (dfft/option_fields.hpp) against the struct itself, the C
// interface's dfft_options and docs/options.md.
#include "dfft/option_fields.hpp"

#include <nlohmann/json.hpp>

#include "dfft/tune.hpp"
#include "support/option_values.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <type_traits>
#include <utility>

namespace {

// Converts to whatever an element is, so that the largest count of initializers T{...} accepts
// is the number of T's elements (its bases, then its own fields), counted by the compiler.
struct AnyField {
  template <class T>
  operator T() const;
};

template <class T, class... Fields>
constexpr std::size_t field_count() {
  if constexpr (requires { T{Fields{}..., AnyField{}}; })
    return field_count<T, Fields..., AnyField>();
  else
    return sizeof...(Fields);
}

// Options declares no field of its own: its elements are the seven groups, so its fields are
// exactly theirs, and each group's count is the number of rows of that group.
static_assert(field_count<dfft::Options>() == 7, "dfft::Options holds the seven groups and nothing else");

template <class G>
std::size_t rows_of(std::string_view group) {
  std::size_t n = 0;
  for (const auto& f : dfft::option_fields()) n += f.group == group;
  EXPECT_EQ(n, field_count<G>()) << "group " << group << " has " << field_count<G>()
                                 << " fields; the table in src/util/option_fields.cpp has " << n << " rows";
  return field_count<G>();
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(OptionFields, OneRowPerOptionsField) {
  const std::size_t fields = rows_of<dfft::ProblemOptions>("problem") +
                             rows_of<dfft::DecompositionOptions>("decomposition") +
                             rows_of<dfft::ExchangeOptions>("exchange") + rows_of<dfft::OverlapOptions>("overlap") +
                             rows_of<dfft::TuningOptions>("tuning") + rows_of<dfft::DeviceOptions>("device") +
                             rows_of<dfft::MemoryOptions>("memory");
  EXPECT_EQ(dfft::option_fields().size(), fields)
      << "dfft::Options has " << fields << " fields; the table in src/util/option_fields.cpp has "
      << dfft::option_fields().size() << " rows";
  std::set<std::string_view> names;
  for (const auto& f : dfft::option_fields()) EXPECT_TRUE(names.insert(f.name).second) << f.name;
}

TEST(OptionFields, EveryRowSetsItsOwnFieldAndNoOther) {
  const auto& table = dfft::option_fields();
  for (const auto& f : table) {
    SCOPED_TRACE(std::string(f.name));
    const std::string v = dfft_test::other_value(f);
    ASSERT_NE(v, f.default_text());
    dfft::Options o;
    dfft::set_option(o, f.name, v);
    EXPECT_EQ(dfft::get_option(o, f.name), v);
    for (const auto& g : table) {
      if (g.name != f.name) {
        EXPECT_EQ(g.get(o), g.default_text()) << "set " << f.name << " changed " << g.name;
      }
    }
  }
}

// The serial column (dfft bench's single-device row) holds values the field takes as they are
// written, and names what that row has to reset: one array, one slice, nothing pipelined or
// adapted.
TEST(OptionFields, SerialValuesAreValuesOfTheirFields) {
  std::vector<std::string> named;
  for (const auto& f : dfft::option_fields()) {
    if (f.serial.empty()) continue;
    named.emplace_back(f.name);
    dfft::Options o;
    EXPECT_NO_THROW(f.set(o, std::string(f.serial))) << f.name;
    EXPECT_EQ(f.get(o), std::string(f.serial)) << f.name;
  }
  EXPECT_EQ(std::set<std::string>(named.begin(), named.end()),
            (std::set<std::string>{"adapt", "batch", "in_flight", "overlap"}));
}

TEST(OptionFields, GroupsAndKindsAreKnown) {
  const auto& groups = dfft::option_groups();
  std::size_t last = 0;
  for (const auto& f : dfft::option_fields()) {
    SCOPED_TRACE(std::string(f.name));
    const auto g = std::find(groups.begin(), groups.end(), f.group);
    ASSERT_NE(g, groups.end());
    const auto at = static_cast<std::size_t>(g - groups.begin());
    EXPECT_GE(at, last) << "rows are ordered by group";
    last = at;
    EXPECT_FALSE(f.doc.empty());
    EXPECT_TRUE(f.flag.empty() || f.flag.substr(0, 2) == "--");
    // Item flags belong to a list with a flag of its own, which they exclude.
    if (!f.item_flags.empty()) {
      EXPECT_TRUE(f.is_list());
      EXPECT_FALSE(f.flag.empty());
      EXPECT_EQ(f.item_flags.substr(0, 2), "--");
    }
  }
}

TEST(OptionFields, BadTextIsRefusedNamingTheField) {
  dfft::Options o;
  for (const auto& [name, text] : std::vector<std::pair<std::string, std::string>>{
           {"chunks", "four"}, {"codec", "fp8"}, {"grid", "2x"}, {"adapt", "yes"},
           {"methods", "nccl,smoke"}, {"tolerance", "1e-3x"}, {"threads", ""}}) {
    try {
      dfft::set_option(o, name, text);
      ADD_FAILURE() << name << "=" << text << " was accepted";
    } catch (const dfft::InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("option " + name), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(dfft::set_option(o, "no_such_field", "1"), dfft::InvalidArgument);
  EXPECT_EQ(dfft::get_option(o, "grid"), "auto");
  dfft::set_option(o, "grid", "2x3");
  EXPECT_EQ(o.grid, (std::vector<int>{2, 3}));
  dfft::set_option(o, "methods", "a2a-sync,nccl");
  EXPECT_EQ(o.methods, (std::vector<dfft::Method>{dfft::Method::a2a_sync, dfft::Method::nccl}));
  dfft::set_option(o, "tolerance", "0.001");
  EXPECT_EQ(o.tolerance, 0.001);
  EXPECT_EQ(dfft::get_option(o, "tolerance"), "0.001");
}

// Every field reaches C through dfft_options, or the table says why not; every member of
// dfft_options (but its size and version) carries a field.
TEST(OptionFields, CInterfaceMapping) {
  const std::string h = read(DFFT_SOURCE_DIR "/include/dfft/dfft.h");
  const std::smatch body = [&] {
    std::smatch m;
    EXPECT_TRUE(std::regex_search(h, m, std::regex(R"(typedef struct dfft_options \{([\s\S]*?)\} dfft_options;)")));
    return m;
  }();
  std::string text = std::regex_replace(body[1].str(), std::regex(R"(/\*[\s\S]*?\*/)"), "");
  std::set<std::string> members;
  const std::regex member(R"((\w+)\s*(\[[^\]]*\])?\s*;)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), member); it != std::sregex_iterator(); ++it)
    members.insert((*it)[1].str());
  ASSERT_GE(members.size(), 25u);
  std::set<std::string> mapped{"size", "version"};
  for (const auto& f : dfft::option_fields()) {
    SCOPED_TRACE(std::string(f.name));
    EXPECT_NE(f.c_field.empty(), f.c_absent.empty()) << "a C field or the reason there is none";
    std::stringstream names{std::string(f.c_field)};
    std::string n;
    while (std::getline(names, n, ',')) {
      n.erase(0, n.find_first_not_of(' '));
      EXPECT_TRUE(members.count(n)) << "dfft_options has no member " << n;
      mapped.insert(n);
    }
  }
  for (const auto& m : members) EXPECT_TRUE(mapped.count(m)) << "dfft_options." << m << " carries no table field";
}

// The wisdom key holds the problem (shape, ranks, precision) and exactly the option fields the
// table marks, each as its text.
TEST(OptionFields, WisdomKeyHoldsTheMarkedFields) {
  dfft::Options o;
  const auto key = nlohmann::json::parse(dfft::to_json(dfft::wisdom_key({8, 8, 8}, 2, true, o)));
  std::set<std::string> top, in_key, marked;
  for (auto it = key.begin(); it != key.end(); ++it) top.insert(it.key());
  EXPECT_EQ(top, (std::set<std::string>{"shape", "ranks", "precision", "options"}));
  for (auto it = key["options"].begin(); it != key["options"].end(); ++it) in_key.insert(it.key());
  for (const auto& f : dfft::option_fields()) {
    if (f.wisdom_key) marked.insert(std::string(f.name));
    EXPECT_TRUE(f.wisdom_key || f.wisdom_key_resolved.empty()) << f.name << ": resolved, but not in the key";
  }
  EXPECT_EQ(in_key, marked);
}

// Each field in turn set to another value reaches every place the library derives from the
// row: its own field (get/set), the wisdom key (as its text where marked, else not at all)
// and a wisdom file written and read back, the C interface (a dfft_options member or a reason)
// and its row of docs/options.md.
TEST(OptionFields, EveryFieldReachesEachPlaceItDerivesTo) {
  const std::string doc = read(DFFT_SOURCE_DIR "/docs/options.md");
  const std::string header = read(DFFT_SOURCE_DIR "/include/dfft/dfft.h");
  const std::vector<std::int64_t> shape{8, 6, 4};
  const dfft::WisdomKey plain = dfft::wisdom_key(shape, 2, true, dfft::Options{});
  for (const auto& f : dfft::option_fields()) {
    SCOPED_TRACE(std::string(f.name));
    const std::string name(f.name), v = dfft_test::other_value(f);
    dfft::Options o;
    dfft::set_option(o, f.name, v);
    EXPECT_EQ(f.get(o), v);
    const dfft::WisdomKey key = dfft::wisdom_key(shape, 2, true, o);
    if (f.wisdom_key) {
      ASSERT_EQ(key.options.count(name), 1u);
      EXPECT_EQ(key.options.at(name), v);
      EXPECT_FALSE(key == plain) << "another " << name << " is the same tuning problem";
    } else {
      EXPECT_EQ(key.options.count(name), 0u);
      EXPECT_TRUE(key == plain);
    }
    dfft::Wisdom w;
    dfft::WisdomEntry e;
    e.key = key;
    e.grid = {2};
    e.methods = {dfft::Method::a2a_sync};
    w.entries.push_back(e);
    const dfft::Wisdom again = dfft::parse_wisdom(dfft::to_json(w));
    ASSERT_EQ(again.entries.size(), 1u) << (again.skipped.empty() ? "" : again.skipped.front());
    EXPECT_TRUE(again.entries[0].key == key);
    std::stringstream members{std::string(f.c_field)};
    for (std::string m; std::getline(members, m, ',');) {
      m.erase(0, m.find_first_not_of(' '));
      EXPECT_TRUE(std::regex_search(header, std::regex("\\b" + m + "\\b"))) << "dfft.h lacks " << m;
    }
    EXPECT_NE(doc.find("| `" + name + "` |"), std::string::npos) << "docs/options.md has no row for " << name;
  }
}

std::string markdown_table() {
  std::string s;
  for (const auto& g : dfft::option_groups()) {
    s += "\n### " + std::string(g) + "\n\n";
    s += "| field | type | default | flag | wisdom key | C (dfft_options) | meaning |\n";
    s += "|---|---|---|---|---|---|---|\n";
    for (const auto& f : dfft::option_fields()) {
      if (f.group != g) continue;
      std::string type(f.type);
      if (!f.allowed.empty()) type += ": " + std::regex_replace(std::string(f.allowed), std::regex("\\|"), ", ");
      const std::string def = f.default_text();
      s += "| `" + std::string(f.name) + "` | " + type + " | " + (def.empty() ? "(empty)" : "`" + def + "`") +
           " | " + (f.flag.empty() ? "-" : "`" + std::string(f.flag) + "`") +
           (f.item_flags.empty() ? "" : "; items alone: `" + std::regex_replace(std::string(f.item_flags), std::regex("\\|"), "`, `") + "`") +
           " | " +
           (f.wisdom_key ? f.wisdom_key_resolved.empty() ? "yes" : "yes: " + std::string(f.wisdom_key_resolved) : "-") +
           " | " +
           (f.c_field.empty() ? "- (" + std::string(f.c_absent) + ")" : "`" + std::string(f.c_field) + "`") +
           " | " + std::string(f.doc) + " |\n";
    }
  }
  return s;
}

// docs/options.md holds the table between its two markers; DFFT_WRITE_OPTIONS_DOC=1 rewrites it.
TEST(OptionFields, DocsPageListsTheTable) {
  const std::string path = DFFT_SOURCE_DIR "/docs/options.md";
  const std::string doc = read(path);
  const std::string begin = "<!-- option table: begin (tests/unit/option_fields_test.cpp writes it) -->\n";
  const std::string end = "<!-- option table: end -->";
  const auto b = doc.find(begin), e = doc.find(end);
  ASSERT_NE(b, std::string::npos) << path;
  ASSERT_NE(e, std::string::npos) << path;
  const std::string want = markdown_table();
  const std::string have = doc.substr(b + begin.size(), e - b - begin.size());
  if (have != want && std::getenv("DFFT_WRITE_OPTIONS_DOC")) {
    std::ofstream(path) << doc.substr(0, b + begin.size()) << want << doc.substr(e);
    return;
  }
  EXPECT_EQ(have, want) << path << " is not the table; rerun with DFFT_WRITE_OPTIONS_DOC=1 to rewrite it";
}

// tools/option_fields.json, which the Python tools read, is the table (dfft::option_fields_json,
// also what `dfft options` prints); DFFT_WRITE_OPTIONS_DOC=1 rewrites it.
TEST(OptionFields, ToolsReadTheTable) {
  const std::string path = DFFT_SOURCE_DIR "/tools/option_fields.json";
  const std::string want = dfft::option_fields_json(), have = read(path);
  if (have != want && std::getenv("DFFT_WRITE_OPTIONS_DOC")) {
    std::ofstream(path) << want;
    return;
  }
  EXPECT_EQ(have, want) << path << " is not the table; rerun with DFFT_WRITE_OPTIONS_DOC=1 to rewrite it";
}

}  // namespace
