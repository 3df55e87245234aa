// SPDX-License-Identifier: MIT
#include "option_json.hpp"

#include "cli_common.hpp"
#include "dfft/types.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace dfftapp {

using json = nlohmann::json;
using dfft::detail::written_whole;

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

std::vector<std::string> item_flags(const dfft::OptionField& f) {
  std::vector<std::string> out;
  std::stringstream flags{std::string(f.item_flags)};
  for (std::string x; std::getline(flags, x, '|');) out.push_back(x);
  return out;
}

std::string flag_key(const std::string& flag) { return flag.substr(flag.find_first_not_of('-')); }

const dfft::OptionField* item_field(const std::string& key) {
  for (const auto& f : dfft::option_fields())
    for (const auto& flag : item_flags(f))
      if (flag_key(flag) == key) return &f;
  return nullptr;
}

bool items_given(const dfft::OptionField& f, const ItemValues& items) {
  for (const auto& flag : item_flags(f))
    if (const auto v = items.find(flag_key(flag)); v != items.end() && !v->second.empty()) return true;
  return false;
}

std::vector<std::string> item_lists(const dfft::OptionField& f, const ItemValues& items,
                                    const std::vector<std::string>& rest, std::size_t count) {
  const auto flags = item_flags(f);
  std::vector<std::string> lists{""};
  for (std::size_t i = 0; i < std::min(count, flags.size()); ++i) {
    const auto given = items.find(flag_key(flags[i]));
    const auto& values = given != items.end() && !given->second.empty() ? given->second : rest;
    std::vector<std::string> longer;
    for (const auto& head : lists)
      for (const auto& v : values) {
        std::string t = head.empty() ? v : head + std::string(1, f.separator) + v;
        if (std::find(longer.begin(), longer.end(), t) == longer.end()) longer.push_back(std::move(t));
      }
    lists = std::move(longer);
  }
  return lists;
}

std::vector<std::string> option_names(const std::string& field) {
  std::vector<std::string> out;
  std::stringstream names{std::string(dfft::option_field(field).allowed)};
  for (std::string n; std::getline(names, n, '|');) out.push_back(n);
  return out;
}

}  // namespace dfftapp
