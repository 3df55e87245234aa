// SPDX-License-Identifier: MIT
// Test-case files: reading (rank 0) and expansion into bench configurations.
#include <algorithm>

#include "cases.hpp"
#include "dfft/option_fields.hpp"
#include "mpi_check.hpp"
#include "option_json.hpp"

namespace dfftapp {

namespace {

constexpr std::size_t kMaxConfigs = 100000;

// Copies the settings that are set into bench arguments.
void apply(const CaseSettings& s, BenchArgs& a) {
  if (s.warmup) a.warmup = *s.warmup;
  if (s.reps) a.reps = *s.reps;
  if (s.validate) a.validate = *s.validate ? 1 : -1;
  if (s.reference) a.reference = *s.reference ? 1 : -1;
  if (s.precisions) a.precisions = *s.precisions;
  // A list option a test gives, whole or item by item, replaces the global one's values whole.
  for (const auto& f : dfft::option_fields()) {
    const std::string name(f.name);
    if (!s.options.count(name) && !items_given(f, s.items)) continue;
    a.option_sweeps[name] = {};
    for (const auto& flag : item_flags(f)) {
      const auto v = s.items.find(flag_key(flag));
      a.item_sweeps[flag_key(flag)] = v == s.items.end() ? std::vector<std::string>{} : v->second;
    }
  }
  for (const auto& [name, values] : s.options) a.option_sweeps[name] = values;
  if (s.sizes) {
    a.sizes.clear();
    for (const auto& shape : *s.sizes) {
      std::vector<std::string> tokens;
      for (auto n : shape) tokens.push_back(std::to_string(n));
      a.sizes.push_back(tokens);
    }
  }
}

// The command line's arguments with every setting a cases file controls back at its default;
// apply_cli() gives back the plan options the command line gave.
BenchArgs sweep_defaults(const BenchArgs& cli) {
  const BenchArgs fresh;
  BenchArgs a = cli;
  a.sizes = fresh.sizes;
  a.item_sweeps = fresh.item_sweeps;
  a.precisions = fresh.precisions;
  a.warmup = fresh.warmup;
  a.reps = fresh.reps;
  a.validate = fresh.validate;
  a.reference = fresh.reference;
  a.option_sweeps = fresh.option_sweeps;
  a.default_sweep = false;
  return a;
}

// Explicit command-line settings win over the file.
void apply_cli(const BenchArgs& cli, BenchArgs& a) {
  auto given = [&](const char* n) {
    return std::find(cli.given.begin(), cli.given.end(), n) != cli.given.end();
  };
  // The sizes and the distribution a file sweeps are the file's alone.
  std::vector<std::string> sweeps{"--size"};
  for (const char* name : {"decomposition", "variant", "grid", "methods"}) {
    const auto& f = dfft::option_field(name);
    sweeps.emplace_back(f.flag);
    for (const auto& flag : item_flags(f)) sweeps.push_back(flag);
  }
  for (const auto& sweep : sweeps)
    if (given(sweep.c_str()))
      throw UsageError(sweep + " cannot be combined with --cases (the file defines the sweep)");
  if (given("--warmup")) a.warmup = cli.warmup;
  if (given("--reps")) a.reps = cli.reps;
  if (given("--validate")) a.validate = cli.validate;
  if (given("--reference")) a.reference = cli.reference;
  if (given("--precision")) a.precisions = cli.precisions;
  // A plan option the command line gives replaces the file's values of that field.
  for (const auto& [name, values] : cli.option_sweeps)
    if (!values.empty()) a.option_sweeps[name] = values;
}

}  // namespace

std::vector<Config> expand_cases(const CaseFile& f, const BenchArgs& cli) {
  std::vector<Config> out;
  for (const auto& t : f.tests) {
    BenchArgs a = sweep_defaults(cli);
    apply(f.global, a);
    apply(t.settings, a);
    apply_cli(cli, a);
    finish_args(a);
    std::vector<Config> configs;
    try {
      configs = expand(a);
    } catch (const std::exception& e) {
      throw CaseError("cases file: test '" + t.name + "': " + e.what());
    }
    const std::vector<int> ranks =
        t.settings.ranks.value_or(f.global.ranks.value_or(std::vector<int>{0}));
    for (auto& c : configs)
      for (int r : ranks) {
        c.ranks = r;
        c.test = t.name;
        out.push_back(c);
        if (out.size() > kMaxConfigs)
          throw CaseError("cases file: more than 100000 configurations");
      }
  }
  return out;
}

CaseFile load_cases(const std::string& path, MPI_Comm comm) {
  const std::string text = read_input(path, "cases file", comm, kMaxCasesBytes);
  try {
    return parse_cases_json(text);
  } catch (const CaseError& e) {
    throw CaseError(path + ": " + e.what());
  }
}

}  // namespace dfftapp
