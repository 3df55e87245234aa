// SPDX-License-Identifier: MIT
#include "cli_common.hpp"

#include <CLI/CLI.hpp>
#include <sstream>

namespace dfftapp {

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) out.push_back(part);
  return out;
}

// An integer >= 1 (sizes and grid factors), or UsageError naming the option and the value.
std::int64_t positive(const std::string& t, const std::string& option, const std::string& whole) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(t, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (t.empty() || used != t.size() || v < 1)
    throw UsageError(option + " " + whole + ": '" + t +
                     "' is not allowed; every entry must be a whole number >= 1");
  return v;
}

std::string joined(const std::vector<std::string>& tokens) {
  std::string s;
  for (const auto& t : tokens) s += (s.empty() ? "" : " ") + t;
  return s;
}

template <class V>
CLI::Option* size_option(CLI::App* c, V& v, const std::string& help) {
  return c->add_option("--size", v, help + " (NX NY [NZ ...] or NXxNYxNZ, at least 2 sizes, each >= 1)")
      ->expected(1, CLI::detail::expected_max_vector_size)
      ->type_name("SIZE");
}

}  // namespace

CLI::Option* add_size_option(CLI::App* c, std::vector<std::string>& tokens, const std::string& help) {
  return size_option(c, tokens, help);
}

CLI::Option* add_size_option(CLI::App* c, std::vector<std::vector<std::string>>& shapes, const std::string& help) {
  return size_option(c, shapes, help);
}

std::vector<std::int64_t> parse_shape(const std::vector<std::string>& tokens) {
  const auto parts = tokens.size() == 1 ? split(tokens[0], 'x') : tokens;
  std::vector<std::int64_t> shape;
  for (const auto& t : parts) shape.push_back(positive(t, "--size", joined(tokens)));
  if (shape.size() < 2)
    throw UsageError("--size " + joined(tokens) +
                     ": needs at least 2 dimensions (e.g. --size 64 64 64 or --size 64x64x64)");
  return shape;
}

std::vector<int> parse_grid(const std::string& s) {
  if (s == "auto") return {};
  std::vector<int> g;
  for (const auto& t : split(s, 'x')) {
    const auto v = positive(t, "--grid", s);
    if (v > 1 << 30) throw UsageError("--grid " + s + ": '" + t + "' is too large");
    g.push_back(static_cast<int>(v));
  }
  if (g.empty()) throw UsageError("--grid: empty (write P1xP2, P or auto)");
  return g;
}

CLI::Validator at_least(double min, const std::string& words) {
  return CLI::Validator(
      [min, words](std::string& text) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(text, v) || !(v >= min))
          return "must be " + words + " (got '" + text + "')";
        return "";
      },
      words);
}

}  // namespace dfftapp
