// SPDX-License-Identifier: MIT
// A value of each plan option other than its default, written as the option table reads it
// (dfft/option_fields.hpp): for tests that set every field.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "dfft/option_fields.hpp"

namespace dfft_test {

// A value other than the default, written as the table reads it.
inline std::string other_value(const dfft::OptionField& f) {
  const std::string def = f.default_text();
  const std::string_view t = f.element_type();
  std::vector<std::string> items;
  if (t == "enum") {
    std::stringstream names(std::string(f.allowed));
    std::string n;
    while (std::getline(names, n, '|'))
      if (n != def && n != "auto") items.push_back(n);
    if (!f.is_list()) return items.at(0);
    items.resize(2);
  } else if (t == "int" || t == "int64") {
    if (!f.is_list()) return std::to_string(std::stoll(def) + 3);
    items = {"2", "3"};
  } else if (t == "number") {
    if (!f.is_list()) return std::to_string(std::stod(def) + 0.5).substr(0, 3);
    items = {"1.5", "1"};
  } else if (t == "bool") {
    return def == "true" ? "false" : "true";
  } else if (t == "text") {
    return "/tmp/dfft-option";
  } else if (t == "pointer") {
    return "4096";
  } else if (t == "halo") {
    return "1,2,0/0,1,2";
  }
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : std::string(1, f.separator)) + i;
  return s;
}

}  // namespace dfft_test
