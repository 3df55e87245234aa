// SPDX-License-Identifier: MIT
#include "tune/json_util.hpp"

#include <cmath>

#include "util/check.hpp"

namespace dfft::detail::json {

void bad(const std::string& what) { throw InvalidArgument("wisdom", world_rank(), what); }

json parse_checked(const std::string& text, int max_depth) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char ch : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (ch == '\\') escaped = true;
      else if (ch == '"') in_string = false;
      continue;
    }
    if (ch == '"') in_string = true;
    else if (ch == '[' || ch == '{') {
      if (++depth > max_depth) bad("JSON nested deeper than " + std::to_string(max_depth) + " levels");
    } else if (ch == ']' || ch == '}') {
      --depth;
    }
  }
  json v = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (v.is_discarded()) bad("not valid JSON");
  return v;
}

const json& member(const json& obj, const char* name) {
  if (!obj.is_object()) bad(std::string("expected an object holding '") + name + "'");
  auto it = obj.find(name);
  if (it == obj.end()) bad(std::string("missing field '") + name + "'");
  return *it;
}

bool has(const json& obj, const char* name) { return obj.is_object() && obj.contains(name); }

namespace {
std::int64_t as_integer(const json& v, const std::string& name, std::int64_t lo, std::int64_t hi) {
  if (v.is_number_unsigned()) {
    auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(hi) || static_cast<std::int64_t>(u) < lo)
      bad("field '" + name + "' out of range");
    return static_cast<std::int64_t>(u);
  }
  if (!v.is_number_integer()) bad("field '" + name + "' must be an integer");
  auto i = v.get<std::int64_t>();
  if (i < lo || i > hi) bad("field '" + name + "' out of range");
  return i;
}
}  // namespace

std::int64_t integer(const json& obj, const char* name, std::int64_t lo, std::int64_t hi) {
  return as_integer(member(obj, name), name, lo, hi);
}

double number(const json& obj, const char* name, double lo, double hi) {
  const json& v = member(obj, name);
  if (!v.is_number()) bad(std::string("field '") + name + "' must be a number");
  double d = v.get<double>();
  if (!std::isfinite(d) || d < lo || d > hi) bad(std::string("field '") + name + "' out of range");
  return d;
}

std::string string(const json& obj, const char* name, std::size_t max_len) {
  const json& v = member(obj, name);
  if (!v.is_string()) bad(std::string("field '") + name + "' must be a string");
  const auto& s = v.get_ref<const std::string&>();
  if (s.size() > max_len) bad(std::string("field '") + name + "' is too long");
  return s;
}

bool boolean(const json& obj, const char* name) {
  const json& v = member(obj, name);
  if (!v.is_boolean()) bad(std::string("field '") + name + "' must be true or false");
  return v.get<bool>();
}

std::vector<std::int64_t> integers(const json& obj, const char* name, std::size_t max_n,
                                   std::int64_t lo, std::int64_t hi) {
  const json& v = member(obj, name);
  if (!v.is_array() || v.size() > max_n)
    bad(std::string("field '") + name + "' must be an array of at most " + std::to_string(max_n));
  std::vector<std::int64_t> out;
  for (const auto& e : v) out.push_back(as_integer(e, name, lo, hi));
  return out;
}

std::vector<std::string> strings(const json& obj, const char* name, std::size_t max_n) {
  const json& v = member(obj, name);
  if (!v.is_array() || v.size() > max_n)
    bad(std::string("field '") + name + "' must be an array of at most " + std::to_string(max_n));
  std::vector<std::string> out;
  for (const auto& e : v) {
    if (!e.is_string() || e.get_ref<const std::string&>().size() > 64)
      bad(std::string("field '") + name + "' must hold short strings");
    out.push_back(e.get<std::string>());
  }
  return out;
}

std::string dump(const json& v, int indent) {
  return v.dump(indent, ' ', false, json::error_handler_t::replace);
}

}  // namespace dfft::detail::json
