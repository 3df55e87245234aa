// SPDX-License-Identifier: MIT
// Wisdom files: parsing (untrusted input: every field checked, a bad entry is skipped, never
// trusted), and writing.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "dfft/option_fields.hpp"
#include "dfft/tune.hpp"
#include "model/calibration_json.hpp"
#include "tune/json_util.hpp"
#include "util/option_json.hpp"

namespace dfft {

namespace json = detail::json;

namespace {

constexpr int kFormat = 1;
constexpr std::int64_t kMaxExtent = std::int64_t{1} << 40;
constexpr std::int64_t kMaxRanks = 1 << 24;
constexpr std::size_t kMaxEntries = 100000;
constexpr std::size_t kMaxChoiceItems = 8;

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

// The choice holds the fields the option table marks as the tuner's, each in its typed JSON form.
nlohmann::json entry_json(const WisdomEntry& e) {
  Options o;
  nlohmann::json choice = nlohmann::json::object();
  for (const auto& f : option_fields()) {
    if (!f.from_choice) continue;
    f.from_choice(o, e);
    choice[std::string(f.name)] = detail::option_json(f, f.get(o));
  }
  nlohmann::json j{{"key", key_json(e.key)}, {"choice", choice}, {"seconds", e.seconds}, {"timestamp", e.timestamp}};
  if (e.partial()) j["partial"] = {{"tried", e.tried}, {"of", e.of}};
  return j;
}

// A choice field absent from the file takes the entry's default (older files lack the fields
// added since). A stored choice is a plan that ran: no automatic value (auto, an empty list, a
// count below 1), each value one the table reads.
void choice_from(const nlohmann::json& c, WisdomEntry& e) {
  if (!c.is_object()) json::bad("field 'choice' must be an object");
  Options o;
  for (const auto& f : option_fields()) {
    if (!f.from_choice) continue;
    const std::string name(f.name);
    f.from_choice(o, e);
    if (c.contains(name)) {
      const auto& v = c[name];
      if (v.is_array() && v.size() > kMaxChoiceItems) json::bad("field '" + name + "' lists more than 8 items");
      try {
        set_option(o, f.name, detail::option_text(f, v));
      } catch (const std::invalid_argument& x) {
        json::bad("field '" + name + "' of a choice: " + x.what());
      } catch (const Error& x) {
        json::bad(std::string("choice: ") + x.what());
      }
    }
    const std::string text = f.get(o);
    const bool automatic = text == "auto" || text.empty() ||
                           ((f.type == "int" || f.type == "int64") && std::stoll(text) < 1);
    if (automatic) json::bad("field '" + name + "' of a choice is '" + text + "', not a plan that ran");
    f.to_choice(e, o);
  }
}

WisdomEntry entry_from(const nlohmann::json& v) {
  WisdomEntry e;
  e.key = key_from(json::member(v, "key"));
  choice_from(json::member(v, "choice"), e);
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
