// SPDX-License-Identifier: MIT
// Wisdom files: parsing (untrusted input: every field checked, a bad entry is skipped, never
// trusted), and writing.
#include <algorithm>

#include "dfft/option_fields.hpp"
#include "dfft/tune.hpp"
#include "model/calibration_json.hpp"
#include "tune/json_util.hpp"

namespace dfft {

namespace json = detail::json;

namespace {

constexpr int kFormat = 1;
constexpr std::int64_t kMaxExtent = std::int64_t{1} << 40;
constexpr std::int64_t kMaxRanks = 1 << 24;
constexpr std::size_t kMaxEntries = 100000;

template <class E>
E name_to(const std::string& s, E (*parse)(const std::string&), const char* what) {
  try {
    return parse(s);
  } catch (const Error&) {
    json::bad(std::string("unknown ") + what + " '" + s + "'");
  }
}

std::vector<int> ints(const nlohmann::json& obj, const char* name, std::int64_t lo) {
  std::vector<int> out;
  for (auto v : json::integers(obj, name, 8, lo, kMaxRanks)) out.push_back(static_cast<int>(v));
  return out;
}

// The longest option text a key may hold: a node layout lists up to one node per rank.
constexpr std::size_t kMaxOptionText = std::size_t{1} << 20;

nlohmann::json key_json(const WisdomKey& k) {
  nlohmann::json options = nlohmann::json::object();
  for (const auto& [name, text] : k.options) options[name] = text;
  return {{"shape", k.shape}, {"ranks", k.ranks}, {"precision", k.precision}, {"options", options}};
}

// An entry's key is used only when its "options" name exactly the fields the table marks now,
// each with a value the table reads. A key of another format (one written before a field joined
// the key, or by a later version with more of them) cannot be told apart from a key of this
// problem by what it lacks, so it is never matched: the entry is left out and kept in the file.
WisdomKey key_from(const nlohmann::json& v) {
  WisdomKey k;
  if (!json::has(v, "options") || !v["options"].is_object())
    json::bad("a key of another format (no \"options\" object): kept, never matched");
  const auto& options = v["options"];
  for (const auto& f : option_fields()) {
    if (!f.wisdom_key) continue;
    const std::string name(f.name);
    if (!options.contains(name))
      json::bad("a key of another format (no option '" + name + "'): kept, never matched");
    const std::string text = json::string(options, name.c_str(), kMaxOptionText);
    // A resolved value (the device's model, the node layout found) is no value of the option.
    if (f.wisdom_key_resolved.empty()) {
      try {
        Options probe;
        set_option(probe, f.name, text);
      } catch (const Error& e) {
        json::bad(std::string("key option: ") + e.what());
      }
    }
    k.options[name] = text;
  }
  if (k.options.size() != options.size())
    json::bad("a key of another format (options this version does not know): kept, never matched");
  k.shape = json::integers(v, "shape", 16, 1, kMaxExtent);
  if (k.shape.size() < 2) json::bad("field 'shape' needs at least 2 sizes");
  k.ranks = static_cast<int>(json::integer(v, "ranks", 1, kMaxRanks));
  k.precision = json::string(v, "precision", 16);
  if (k.precision != "double" && k.precision != "float") json::bad("unknown precision '" + k.precision + "'");
  return k;
}

nlohmann::json entry_json(const WisdomEntry& e) {
  std::vector<std::string> methods;
  for (auto m : e.methods) methods.push_back(to_string(m));
  nlohmann::json j{{"key", key_json(e.key)},
          {"choice",
           {{"decomposition", to_string(e.decomposition)},
            {"variant", to_string(e.variant)},
            {"grid", e.grid},
            {"methods", methods},
            {"chunks", e.chunks},
            {"overlap", e.overlap},
            {"in_flight", e.in_flight}}},
          {"seconds", e.seconds},
          {"timestamp", e.timestamp}};
  if (e.partial()) j["partial"] = {{"tried", e.tried}, {"of", e.of}};
  return j;
}

WisdomEntry entry_from(const nlohmann::json& v) {
  WisdomEntry e;
  e.key = key_from(json::member(v, "key"));
  const auto& c = json::member(v, "choice");
  e.decomposition = name_to(json::string(c, "decomposition", 16), parse_decomposition, "decomposition");
  e.variant = name_to(json::string(c, "variant", 16), parse_variant, "variant");
  e.grid = ints(c, "grid", 1);
  if (e.grid.empty()) json::bad("field 'grid' of a choice must not be empty");
  for (const auto& m : json::strings(c, "methods", 8)) e.methods.push_back(name_to(m, parse_method, "method"));
  if (e.methods.empty()) json::bad("field 'methods' must not be empty");
  e.chunks = static_cast<int>(json::integer(c, "chunks", 1, 1 << 20));
  // Written since overlap and p2p-pipelined exist; older files lack them (the plain defaults).
  if (c.contains("overlap")) e.overlap = static_cast<int>(json::integer(c, "overlap", 1, 1 << 20));
  if (c.contains("in_flight")) e.in_flight = static_cast<int>(json::integer(c, "in_flight", 1, 1 << 20));
  e.seconds = json::number(v, "seconds", 0, 1e9);
  e.timestamp = json::string(v, "timestamp", 64);
  // Absent: a complete tuning (every file written before budgeted runs were marked).
  if (json::has(v, "partial")) {
    const auto& p = json::member(v, "partial");
    e.of = static_cast<int>(json::integer(p, "of", 1, 1 << 24));
    e.tried = static_cast<int>(json::integer(p, "tried", 0, e.of));
  }
  return e;
}

}  // namespace

WisdomKey wisdom_key(const std::vector<std::int64_t>& shape, int ranks, bool is_double, const Options& o) {
  WisdomKey k;
  k.shape = shape;
  k.ranks = ranks;
  k.precision = is_double ? "double" : "float";
  for (const auto& f : option_fields())
    if (f.wisdom_key) k.options[std::string(f.name)] = f.get(o);
  return k;
}

Wisdom parse_wisdom(const std::string& text) {
  if (text.size() > (std::size_t{64} << 20)) json::bad("wisdom file larger than 64 MiB");
  const auto doc = json::parse_checked(text);
  if (!doc.is_object() || !doc.contains("dfft_wisdom"))
    json::bad("not a dfft wisdom file (no \"dfft_wisdom\" member)");
  if (json::integer(doc, "dfft_wisdom", 0, 1 << 30) != kFormat)
    json::bad("wisdom format version " + json::dump(doc["dfft_wisdom"]) + " is not " +
              std::to_string(kFormat));
  Wisdom w;
  auto each = [&](const char* name, auto&& take, std::vector<std::string>& kept) {
    if (!json::has(doc, name)) return;
    const auto& arr = doc[name];
    if (!arr.is_array() || arr.size() > kMaxEntries)
      json::bad(std::string("\"") + name + "\" must be an array of at most 100000 items");
    for (std::size_t i = 0; i < arr.size(); ++i) {
      try {
        take(arr[i]);
      } catch (const Error& e) {
        w.skipped.push_back(std::string(name) + "[" + std::to_string(i) + "]: " + e.what());
        kept.push_back(json::dump(arr[i]));
      }
    }
  };
  each("entries", [&](const nlohmann::json& v) { w.entries.push_back(entry_from(v)); }, w.kept_entries);
  each("calibrations", [&](const nlohmann::json& v) { w.calibrations.push_back(detail::calibration_from(v)); },
       w.kept_calibrations);
  return w;
}

std::string to_json(const Wisdom& w) {
  nlohmann::json doc{{"dfft_wisdom", kFormat}};
  doc["entries"] = nlohmann::json::array();
  for (const auto& t : w.kept_entries) doc["entries"].push_back(json::parse_checked(t));
  for (const auto& e : w.entries) doc["entries"].push_back(entry_json(e));
  doc["calibrations"] = nlohmann::json::array();
  for (const auto& t : w.kept_calibrations) doc["calibrations"].push_back(json::parse_checked(t));
  for (const auto& c : w.calibrations) doc["calibrations"].push_back(detail::calibration_json(c));
  return json::dump(doc, 1) + "\n";
}

std::string to_json(const WisdomKey& k) { return json::dump(key_json(k)); }

namespace model {

std::string to_json(const Calibration& c) { return json::dump(detail::calibration_json(c), 1); }

Calibration calibration_from_json(const std::string& text) {
  return detail::calibration_from(json::parse_checked(text));
}

}  // namespace model

}  // namespace dfft
