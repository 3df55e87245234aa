// SPDX-License-Identifier: MIT
// Test-case files, parsing: every key known, every value checked, every error names its place
// in the file. No MPI and no files here (fuzzable).
#include "cases.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "dfft/option_fields.hpp"
#include "dfft/types.hpp"
#include "option_json.hpp"

namespace dfftapp {

namespace {

using json = nlohmann::json;

constexpr std::size_t kMaxSizes = 4096;  // sizes per test
constexpr std::int64_t kMaxExtent = std::int64_t{1} << 40;
constexpr int kMaxDims = 8;

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw CaseError("cases file: " + where + ": " + what);
}

std::string type_name(const json& v) { return v.type_name(); }

std::int64_t get_int(const json& v, const std::string& where, std::int64_t lo, std::int64_t hi) {
  if (!v.is_number_integer()) fail(where, "expected an integer, found " + type_name(v));
  // Unsigned values above INT64_MAX would wrap in get<std::int64_t>().
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi))
    fail(where, "must be at most " + std::to_string(hi));
  const std::int64_t x = v.get<std::int64_t>();
  if (x < lo || x > hi)
    fail(where, "must be between " + std::to_string(lo) + " and " + std::to_string(hi) +
                    ", found " + v.dump());
  return x;
}

bool get_bool(const json& v, const std::string& where) {
  if (!v.is_boolean()) fail(where, "expected true or false, found " + type_name(v));
  return v.get<bool>();
}

std::string get_string(const json& v, const std::string& where) {
  if (!v.is_string()) fail(where, "expected a string, found " + type_name(v));
  return v.get<std::string>();
}

std::string get_choice(const json& v, const std::string& where,
                       const std::vector<std::string>& allowed) {
  std::string s = get_string(v, where);
  if (std::find(allowed.begin(), allowed.end(), s) == allowed.end()) {
    std::string list;
    for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
    fail(where, "unknown value '" + s + "'; allowed: " + list);
  }
  return s;
}

// A string or a non-empty list of strings, each checked by `one`.
std::vector<std::string> get_list(
    const json& v, const std::string& where,
    const std::function<std::string(const json&, const std::string&)>& one) {
  if (!v.is_array()) return {one(v, where)};
  if (v.empty()) fail(where, "empty list");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.size(); ++i)
    out.push_back(one(v[i], where + "[" + std::to_string(i) + "]"));
  return out;
}

void check_shape(const std::vector<std::int64_t>& shape, const std::string& where) {
  if (shape.size() < 2 || shape.size() > static_cast<std::size_t>(kMaxDims))
    fail(where, "a size needs 2 to 8 dimensions");
  for (auto n : shape)
    if (n < 1 || n > kMaxExtent) fail(where, "size entries must be between 1 and 2^40");
}

std::vector<std::int64_t> shape_of(const json& v, const std::string& where) {
  std::vector<std::int64_t> shape;
  if (v.is_string()) {
    try {
      shape = parse_size_text(v.get<std::string>());
    } catch (const CaseError& e) {
      fail(where, e.what());
    }
  } else if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i)
      shape.push_back(get_int(v[i], where + "[" + std::to_string(i) + "]", 1, kMaxExtent));
  } else {
    fail(where, "a size is a list of integers or a string like \"128x128x256\" or \"128^2x256\"");
  }
  check_shape(shape, where);
  return shape;
}

void add_sizes(const json& v, const std::string& where,
               std::vector<std::vector<std::int64_t>>& out) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it)
      if (it.key() != "from" && it.key() != "to")
        fail(where, "unknown key '" + it.key() + "' (allowed: from, to)");
    if (!v.contains("from") || !v.contains("to"))
      fail(where, "a doubling range needs \"from\" and \"to\"");
    auto from = shape_of(v["from"], where + ".from"), to = shape_of(v["to"], where + ".to");
    try {
      for (auto& s : doubling_sizes(from, to)) out.push_back(std::move(s));
    } catch (const CaseError& e) {
      fail(where, e.what());
    }
  } else {
    out.push_back(shape_of(v, where));
  }
  if (out.size() > kMaxSizes) fail(where, "more than 4096 sizes");
}

std::vector<std::vector<std::int64_t>> get_sizes(const json& v, const std::string& where) {
  std::vector<std::vector<std::int64_t>> out;
  if (v.is_array()) {
    if (v.empty()) fail(where, "empty list");
    if (v[0].is_number())
      fail(where,
           "a list of sizes is expected; write [[64, 64, 64]] or [\"64x64x64\"] for one size");
    for (std::size_t i = 0; i < v.size(); ++i)
      add_sizes(v[i], where + "[" + std::to_string(i) + "]", out);
  } else {
    add_sizes(v, where, out);
  }
  return out;
}

std::vector<int> get_ranks(const json& v, const std::string& where) {
  std::vector<int> out;
  if (!v.is_array()) return {static_cast<int>(get_int(v, where, 1, 1 << 24))};
  if (v.empty()) fail(where, "empty list");
  for (std::size_t i = 0; i < v.size(); ++i)
    out.push_back(
        static_cast<int>(get_int(v[i], where + "[" + std::to_string(i) + "]", 1, 1 << 24)));
  return out;
}

using Reader = std::function<void(const json&, const std::string&, CaseSettings&)>;

const std::map<std::string, Reader>& readers() {
  static const std::map<std::string, Reader> r{
      {"warmup",
       [](auto& v, auto& w, auto& s) { s.warmup = static_cast<int>(get_int(v, w, 0, 1000000)); }},
      {"reps",
       [](auto& v, auto& w, auto& s) { s.reps = static_cast<int>(get_int(v, w, 1, 1000000)); }},
      {"validate", [](auto& v, auto& w, auto& s) { s.validate = get_bool(v, w); }},
      {"reference", [](auto& v, auto& w, auto& s) { s.reference = get_bool(v, w); }},
      {"precision",
       [](auto& v, auto& w, auto& s) {
         s.precisions = get_list(v, w, [](auto& x, auto& y) {
           return get_choice(x, y, {"double", "float"});
         });
       }},
      {"sizes", [](auto& v, auto& w, auto& s) { s.sizes = get_sizes(v, w); }},
      {"ranks", [](auto& v, auto& w, auto& s) { s.ranks = get_ranks(v, w); }},
  };
  return r;
}

// The field whose second key (OptionField::cases_alias) is `key`, or nullptr.
const dfft::OptionField* alias_field(const std::string& key) {
  for (const auto& f : dfft::option_fields())
    if (!f.cases_alias.empty() && f.cases_alias == key) return &f;
  return nullptr;
}

// One string or a list of them, each a value of field `f` as its flag writes it.
std::vector<std::string> field_texts(const dfft::OptionField& f, const json& v, const std::string& where) {
  return get_list(v, where, [&](const json& x, const std::string& y) {
    const std::string text = get_string(x, y);
    dfft::Options scratch;
    try {
      f.set(scratch, text);
    } catch (const std::exception& e) {
      fail(y, e.what());
    }
    return text;
  });
}

// A plan option by its second key: one value per configuration, each as its flag writes it.
void read_alias(const dfft::OptionField& f, const json& v, const std::string& where, CaseSettings& s) {
  const std::string name(f.name);
  if (s.options.count(name))
    fail(where, "\"" + name + "\" excludes \"" + std::string(f.cases_alias) + "\"");
  s.options[name] = field_texts(f, v, where);
  s.by_alias.insert(name);
}

std::string known_keys(bool test) {
  std::string k = test ? "name, comment" : "comment";
  for (const auto& [key, reader] : readers()) k += ", " + key;
  for (const auto& f : dfft::option_fields()) {
    if (!f.cases_alias.empty()) k += ", " + std::string(f.cases_alias);
    for (const auto& flag : item_flags(f)) k += ", " + flag_key(flag);
    if (!readers().count(std::string(f.name))) k += ", " + std::string(f.name);
  }
  return k;
}

// A plan option without a key of its own above: its values, each checked as bench's flag checks it.
bool read_option(const json& v, const std::string& key, const std::string& where, CaseSettings& s) {
  const auto& fields = dfft::option_fields();
  const auto f = std::find_if(fields.begin(), fields.end(), [&](const auto& x) { return x.name == key; });
  if (f == fields.end()) return false;
  if (s.by_alias.count(key)) fail(where, "\"" + key + "\" excludes \"" + std::string(f->cases_alias) + "\"");
  // The table's values (chunks 0: automatic, which bench's flag refuses) and bench's extra names
  // (transform c2r).
  FlagUse names;
  if (const auto use = bench_uses().find(key); use != bench_uses().end()) names.extra = use->second.extra;
  try {
    s.options[key] = option_sweep(*f, v, &names);
  } catch (const std::exception& e) {
    fail(where, e.what());
  }
  return true;
}

CaseSettings read_settings(const json& obj, const std::string& where, bool test,
                           std::string* name) {
  if (!obj.is_object()) fail(where, "expected an object, found " + type_name(obj));
  CaseSettings s;
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    const std::string w = where + "." + it.key();
    if (it.key() == "comment") continue;
    if (test && it.key() == "name") {
      *name = get_string(it.value(), w);
      continue;
    }
    auto r = readers().find(it.key());
    if (r != readers().end())
      r->second(it.value(), w, s);
    else if (const auto* f = alias_field(it.key()))
      read_alias(*f, it.value(), w, s);
    else if (const auto* g = item_field(it.key()))
      s.items[it.key()] = field_texts(*g, it.value(), w);  // one item of a list on its own
    else if (!read_option(it.value(), it.key(), w, s))
      fail(w, "unknown key; allowed: " + known_keys(test));
  }
  // A list option is given whole or item by item.
  for (const auto& f : dfft::option_fields()) {
    if (!s.options.count(std::string(f.name)) || !items_given(f, s.items)) continue;
    std::string keys;
    for (const auto& flag : item_flags(f)) keys += std::string(keys.empty() ? "" : " and ") + "\"" + flag_key(flag) + "\"";
    fail(where, "\"" + std::string(f.name) + "\"" + (f.cases_alias.empty() ? "" : " (or \"" + std::string(f.cases_alias) + "\")") +
                    " excludes " + keys);
  }
  return s;
}

}  // namespace

std::vector<std::int64_t> parse_size_text(const std::string& s) {
  std::vector<std::int64_t> shape;
  std::size_t start = 0;
  while (start <= s.size()) {
    std::size_t end = s.find('x', start);
    const std::string t =
        s.substr(start, end == std::string::npos ? std::string::npos : end - start);
    const std::size_t caret = t.find('^');
    const std::string base = t.substr(0, caret),
                      power = caret == std::string::npos ? "1" : t.substr(caret + 1);
    auto digits = [](const std::string& x) {
      return !x.empty() && x.size() <= 13 && x.find_first_not_of("0123456789") == std::string::npos;
    };
    if (!digits(base) || !digits(power) || std::stoll(power) < 1 || std::stoll(power) > kMaxDims)
      throw CaseError("bad size \"" + s + "\" (write 128x128x256, 128^2x256 or 256^3)");
    for (long long k = 0; k < std::stoll(power); ++k) shape.push_back(std::stoll(base));
    if (shape.size() > static_cast<std::size_t>(kMaxDims))
      throw CaseError("size \"" + s + "\" has too many dimensions");
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return shape;
}

std::vector<std::vector<std::int64_t>> doubling_sizes(const std::vector<std::int64_t>& from,
                                                      const std::vector<std::int64_t>& to) {
  if (from.size() != to.size())
    throw CaseError("\"from\" and \"to\" have different numbers of dimensions");
  for (std::size_t a = 0; a < from.size(); ++a)
    if (from[a] < 1 || to[a] < from[a]) throw CaseError("every axis needs 1 <= from <= to");
  std::vector<std::vector<std::int64_t>> out{from};
  std::vector<std::int64_t> cur = from;
  const int d = static_cast<int>(from.size());
  for (int step = 0; out.size() <= kMaxSizes; ++step) {
    const int axis = d - 1 - step % d;  // fastest axis first, as 128^3 -> 128^2x256 -> 128x256^2
    if (cur[axis] * 2 > to[axis]) break;
    cur[axis] *= 2;
    out.push_back(cur);
  }
  if (out.size() > kMaxSizes) throw CaseError("more than 4096 sizes");
  return out;
}

// bench_uses() and BenchArgs' accessors live here, with the cases-file keys that read them, so
// that the parsers library (fuzzers, unit tests) has them without the rest of bench.
const FlagUses& bench_uses() {
  static const FlagUses uses{
      {"transform", FlagUse().also({"c2r"}).noted("c2r: the r2c plan, its inverse record listed first")},
      {"decomposition", FlagUse().noted("Not given: slab-2d1d, slab-1d2d and pencil")},
      {"variant", FlagUse().noted("Not given: default and realigned")},
      {"grid", FlagUse().items()},
      {"methods", FlagUse().items().noted("Each value one configuration; not given: every method of the backend")},
      {"max_message_bytes", FlagUse().least(1, "a byte count >= 1")},
      {"chunks", FlagUse().defaults_to("4").least(0, "an integer >= 0 (0: automatic)")
                     .noted("Not given: 4, or automatic where the decomposition, variant or methods are")},
      {"overlap", FlagUse().defaults_to("1").least(0, "an integer >= 0 (0: automatic)")
                      .noted("Not given: 1, or automatic where the decomposition, variant or methods are")},
      {"threads", FlagUse().least(0, "an integer >= 0")},
      {"tune", FlagUse().noted("--decomp, --variant and --method are then refused: the tuner chooses them")},
      {"tune_budget_s", FlagUse().least(0, "a number of seconds >= 0")},
  };
  return uses;
}

std::string BenchArgs::option(const std::string& name) const {
  if (const auto v = option_sweeps.find(name); v != option_sweeps.end() && !v->second.empty()) return v->second.back();
  if (const auto u = bench_uses().find(name); u != bench_uses().end() && !u->second.default_text.empty())
    return u->second.default_text;
  return dfft::option_field(name).default_text();
}

std::vector<std::string> BenchArgs::sweep(const std::string& name) const {
  if (const auto v = option_sweeps.find(name); v != option_sweeps.end() && !v->second.empty()) return v->second;
  return {option(name)};
}

CaseFile parse_cases_json(const std::string& text) {
  if (text.size() > kMaxCasesBytes) throw CaseError("cases file: larger than 16 MiB");
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    throw CaseError(std::string("cases file: invalid JSON: ") + e.what());
  }
  if (!doc.is_object()) fail("top level", "expected an object with \"tests\"");
  CaseFile f;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    const std::string& k = it.key();
    if (k == "name")
      f.name = get_string(it.value(), k);
    else if (k == "description")
      f.description = get_string(it.value(), k);
    else if (k == "comment")
      continue;
    else if (k == "runner") {
      // Job sizes and peer libraries for tools/bench_run.py, which checks the keys; bench runs
      // inside one job and has no use for them.
      if (!it.value().is_object()) fail(k, "expected an object (ranks_per_job, peers)");
    } else if (k == "global")
      f.global = read_settings(it.value(), k, false, nullptr);
    else if (k != "tests")
      fail(k, "unknown top-level key; allowed: name, description, comment, runner, global, tests");
  }
  if (!doc.contains("tests") || !doc["tests"].is_array() || doc["tests"].empty())
    fail("tests", "a non-empty list of tests is required");
  const json& tests = doc["tests"];
  for (std::size_t i = 0; i < tests.size(); ++i) {
    CaseTest t;
    const std::string where = "tests[" + std::to_string(i) + "]";
    t.settings = read_settings(tests[i], where, true, &t.name);
    if (t.name.empty()) t.name = where;
    if (!t.settings.sizes && !f.global.sizes)
      fail(where, "no \"sizes\" (in the test or in \"global\")");
    f.tests.push_back(std::move(t));
  }
  return f;
}

}  // namespace dfftapp
