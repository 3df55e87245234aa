// SPDX-License-Identifier: MIT
// Checked reads from untrusted JSON (wisdom and calibration files): every access checks the
// type and range and throws dfft::Error (call "wisdom") naming the field, never anything else.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dfft/types.hpp"

namespace dfft::detail::json {

using nlohmann::json;

[[noreturn]] void bad(const std::string& what);

/// Parse text into a JSON value: rejects nesting deeper than `max_depth` before parsing (the
/// files are shallow; deep nesting can only be hostile) and any syntax error.
json parse_checked(const std::string& text, int max_depth = 16);

const json& member(const json& obj, const char* name);
bool has(const json& obj, const char* name);
std::int64_t integer(const json& obj, const char* name, std::int64_t lo, std::int64_t hi);
double number(const json& obj, const char* name, double lo, double hi);
std::string string(const json& obj, const char* name, std::size_t max_len = 256);
bool boolean(const json& obj, const char* name);
std::vector<std::int64_t> integers(const json& obj, const char* name, std::size_t max_n,
                                   std::int64_t lo, std::int64_t hi);
std::vector<std::string> strings(const json& obj, const char* name, std::size_t max_n);

/// Text of a value, never throwing on odd strings (invalid UTF-8 is replaced).
std::string dump(const json& v, int indent = -1);

}  // namespace dfft::detail::json
