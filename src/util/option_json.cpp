// SPDX-License-Identifier: MIT
#include "util/option_json.hpp"

#include <stdexcept>

namespace dfft::detail {

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

json option_json(const OptionField& f, const std::string& text) {
  if (!f.is_list()) return item_json(f.type, text);
  json a = json::array();
  for (const auto& item : option_items(f, text)) a.push_back(item_json(f.element_type(), item));
  return a;
}

bool written_whole(const OptionField& f) { return f.is_list() && f.separator != ','; }

std::string option_text(const OptionField& f, const json& v) {
  if (!f.is_list()) return item_text(f.type, v);
  if (v.is_string() && v.get<std::string>() == "auto" && f.empty_is_auto) return "auto";
  if (written_whole(f) && v.is_string()) return v.get<std::string>();
  if (written_whole(f) && v.is_number()) return item_text(f.element_type(), v);
  if (!v.is_array()) throw std::invalid_argument(std::string("expected a ") + std::string(f.type) + ", found " + v.type_name());
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : std::string(1, f.separator)) + item_text(f.element_type(), x);
  return s;
}

}  // namespace dfft::detail
