// SPDX-License-Identifier: MIT
#include "option_json.hpp"

#include "cli_common.hpp"
#include "dfft/types.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace dfftapp {

namespace {

using json = nlohmann::json;

json item_json(std::string_view type, const std::string& s) {
  if (type == "int" || type == "int64") return std::stoll(s);
  if (type == "pointer") return std::stoull(s);
  if (type == "number") return std::stod(s);
  if (type == "bool") return s == "true";
  return s;
}

std::string item_text(std::string_view type, const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number()) return v.dump();
  throw std::invalid_argument("expected a " + std::string(type) + ", found " + v.type_name());
}

}  // namespace

json option_json(const dfft::OptionField& f, const std::string& text) {
  if (!f.is_list()) return item_json(f.type, text);
  json a = json::array();
  for (const auto& item : dfft::option_items(f, text)) a.push_back(item_json(f.element_type(), item));
  return a;
}

// A list whose text is not ','-separated (the process grid, "2x2") is written whole, as one string
// or one number, as its flag takes it; a JSON list of such values is then a sweep (option_sweep).
bool written_whole(const dfft::OptionField& f) { return f.is_list() && f.separator != ','; }

std::string option_text(const dfft::OptionField& f, const json& v) {
  if (!f.is_list()) return item_text(f.type, v);
  if (v.is_string() && v.get<std::string>() == "auto" && f.empty_is_auto) return "auto";
  if (written_whole(f) && v.is_string()) return v.get<std::string>();
  if (written_whole(f) && v.is_number()) return item_text(f.element_type(), v);
  if (!v.is_array()) throw std::invalid_argument(std::string("expected a ") + std::string(f.type) + ", found " + v.type_name());
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : std::string(1, f.separator)) + item_text(f.element_type(), x);
  return s;
}

std::vector<std::string> option_sweep(const dfft::OptionField& f, const json& v, const FlagUse* use) {
  std::vector<std::string> out;
  const bool several = v.is_array() && (!f.is_list() || written_whole(f) || (!v.empty() && v[0].is_array()));
  if (several && v.empty()) throw std::invalid_argument("empty list");
  for (const auto& x : several ? v : json::array({v})) {
    std::string t = option_text(f, x);
    if (use) {
      if (const std::string why = use->refusal(f, t); !why.empty()) throw std::invalid_argument(why);
    } else {
      dfft::Options probe;
      dfft::set_option(probe, f.name, t);
    }
    out.push_back(std::move(t));
  }
  return out;
}

// Here, not in cli_common.cpp, so that the cases-file parser (this library) checks a key's values
// as the command line checks the flag's.
std::string FlagUse::refusal(const dfft::OptionField& f, const std::string& text) const {
  const auto has = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  if (has(extra, text)) return "";
  if (!only.empty() && !has(only, text)) {
    std::string list;
    for (const auto& x : only) list += (list.empty() ? "" : ", ") + x;
    return "'" + text + "' is not taken here; allowed: " + list;
  }
  if (!min_words.empty()) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(v >= min)) return "must be " + min_words + " (got '" + text + "')";
  }
  try {
    dfft::Options probe;
    dfft::set_option(probe, f.name, text);
  } catch (const dfft::Error& e) {
    std::string what = e.what();
    if (what.rfind("dfft: ", 0) == 0) what.erase(0, 6);
    return what;
  }
  return "";
}

std::vector<std::string> option_names(const std::string& field) {
  std::vector<std::string> out;
  std::stringstream names{std::string(dfft::option_field(field).allowed)};
  for (std::string n; std::getline(names, n, '|');) out.push_back(n);
  return out;
}

}  // namespace dfftapp
