// SPDX-License-Identifier: MIT
// Every field of the option table that has a flag is a flag of bench, transform and tune, and
// giving it sets that field of the plan options the subcommand makes, through the subcommand's
// own handling (Command::options). A field the table gains is walked here without a change.
#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "command.hpp"
#include "dfft/option_fields.hpp"
#include "dfft/types.hpp"

namespace {

using dfftapp::Command;

struct Subcommand {
  const char* name;
  Command (*make)(CLI::App&);
  std::vector<std::string> positionals;  // required arguments
  std::vector<std::string> own;          // fields whose spelling means something else there
};

const std::vector<Subcommand>& subcommands() {
  static const std::vector<Subcommand> s{
      {"bench", dfftapp::make_bench_command, {}, {}},
      {"transform", dfftapp::make_transform_command, {"in.npy", "out.npy"}, {"in_place"}},
      {"tune", dfftapp::make_tune_command, {}, {"tune", "tune_budget_s"}},
  };
  return s;
}

// The plan options of `sub` given `args`; throws what the parser throws.
dfft::Options options_of(const Subcommand& sub, const std::vector<std::string>& args) {
  CLI::App parent("dfft");
  parent.require_subcommand(1);
  const Command cmd = sub.make(parent);
  std::vector<std::string> words{"dfft", sub.name};
  for (const auto& p : sub.positionals) words.push_back(p);
  for (const auto& a : args) words.push_back(a);
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  parent.parse(static_cast<int>(argv.size()), argv.data());
  return cmd.options();
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string x; std::getline(in, x, sep);) out.push_back(x);
  return out;
}

// A value of `f` other than `now` (what the subcommand sets without the flag): an allowed name,
// a number 2 above, one item of a list, a file name.
std::string other_value(const dfft::OptionField& f, const std::string& now) {
  const std::string type(f.element_type());
  if (type == "enum") {
    for (const auto& n : split(std::string(f.allowed), '|'))
      if (n != now) return n;
  }
  if (type == "int" || type == "int64" || type == "number") {
    if (f.is_list()) return now == "2" ? "3" : "2";
    return std::to_string(static_cast<long long>(std::stod(now)) + 2);
  }
  if (type == "text") return "w.json";
  ADD_FAILURE() << f.name << ": no value of type " << f.type << " to try";
  return now;
}

TEST(OptionFlags, EveryFlagSetsItsField) {
  int walked = 0;
  for (const auto& sub : subcommands()) {
    const dfft::Options base = options_of(sub, {});
    for (const auto& f : dfft::option_fields()) {
      const std::string name(f.name), flag(f.flag);
      if (flag.empty() || std::find(sub.own.begin(), sub.own.end(), name) != sub.own.end()) continue;
      const std::string now = dfft::get_option(base, name);
      std::vector<std::string> args;
      std::string want;
      if (f.type == "bool") {
        args = {now == "true" ? "--no-" + flag.substr(2) : flag};
        want = now == "true" ? "false" : "true";
      } else {
        const std::string value = other_value(f, now);
        dfft::Options expected;
        dfft::set_option(expected, name, value);
        want = dfft::get_option(expected, name);
        args = {flag, value};
      }
      SCOPED_TRACE(std::string(sub.name) + " " + args.front() + (args.size() > 1 ? " " + args[1] : ""));
      EXPECT_NE(want, now) << "the value tried is the one set without the flag";
      try {
        EXPECT_EQ(dfft::get_option(options_of(sub, args), name), want);
      } catch (const std::exception& e) {
        ADD_FAILURE() << "refused: " << e.what();
      }
      ++walked;
    }
  }
  EXPECT_GT(walked, 3 * 20);
}

// A list's item flags (--method1, --method2) give it item by item: transform runs the list they
// make, wants every item, and refuses them beside the list's own flag; bench sweeps them.
TEST(OptionFlags, ItemFlagsMakeTheList) {
  int walked = 0;
  const Subcommand& transform = subcommands()[1];
  const Subcommand& bench = subcommands()[0];
  for (const auto& f : dfft::option_fields()) {
    const auto flags = split(std::string(f.item_flags), '|');
    if (f.item_flags.empty()) continue;
    SCOPED_TRACE(std::string(f.name));
    const auto names = split(std::string(f.allowed), '|');
    ASSERT_GE(names.size(), flags.size() + 1);
    std::vector<std::string> args;
    std::string want;
    for (std::size_t i = 0; i < flags.size(); ++i) {
      args.push_back(flags[i]);
      args.push_back(names[names.size() - 1 - i]);  // each item another value
      want += (i ? std::string(1, f.separator) : "") + args.back();
    }
    EXPECT_EQ(dfft::get_option(options_of(transform, args), f.name), want);
    EXPECT_NO_THROW(options_of(bench, args));
    std::vector<std::string> one(args.begin(), args.begin() + 2);
    EXPECT_ANY_THROW(options_of(transform, one)) << "one item of " << flags.size();
    args.push_back(std::string(f.flag));
    args.push_back(names.front());
    EXPECT_ANY_THROW(options_of(transform, args)) << "beside " << f.flag;
    EXPECT_ANY_THROW(options_of(bench, args)) << "beside " << f.flag;
    ++walked;
  }
  EXPECT_GT(walked, 0);
}

// The fields a subcommand gives another meaning are ones with a flag (a stale entry above fails).
TEST(OptionFlags, OwnSpellingsAreTableFlags) {
  for (const auto& sub : subcommands())
    for (const auto& name : sub.own) EXPECT_FALSE(dfft::option_field(name).flag.empty()) << sub.name << " " << name;
}

}  // namespace
