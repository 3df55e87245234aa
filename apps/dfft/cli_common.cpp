// SPDX-License-Identifier: MIT
#include "cli_common.hpp"
#include "option_json.hpp"

#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "command.hpp"
#include "dfft/option_fields.hpp"
#include "dfft/types.hpp"
#include "mpi_check.hpp"

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
  bool too_large = false;
  try {
    v = std::stoll(t, &used);
  } catch (const std::out_of_range&) {
    too_large = t.find('-') == std::string::npos;  // a huge negative number is below 1 all the same
    used = too_large ? t.size() : 0;
  } catch (const std::exception&) {
    used = 0;
  }
  if (too_large && used == t.size())
    throw UsageError(option + " " + whole + ": '" + t + "' is out of range; every entry must be at most " +
                     std::to_string(std::numeric_limits<long long>::max()));
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
  // The occurrences arrive separated by an empty token, so that parse_shape can refuse a second.
  auto* o = size_option(c, tokens, help);
  o->inject_separator();
  return o;
}

CLI::Option* add_size_option(CLI::App* c, std::vector<std::vector<std::string>>& shapes, const std::string& help) {
  return size_option(c, shapes, help);
}

std::vector<std::int64_t> parse_shape(const std::vector<std::string>& tokens) {
  if (tokens.size() > 1 && std::find(tokens.begin(), tokens.end(), std::string()) != tokens.end()) {
    std::string shapes;
    for (const auto& t : tokens) shapes += t.empty() ? std::string(", --size") : " " + t;
    throw UsageError("--size given more than once (--size" + shapes +
                     "); this subcommand takes one shape (dfft bench takes several)");
  }
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
    const std::string flag(dfft::option_field("grid").flag);
    const auto v = positive(t, flag, s);
    if (v > 1 << 30) throw UsageError(flag + " " + s + ": '" + t + "' is too large");
    g.push_back(static_cast<int>(v));
  }
  if (g.empty()) throw UsageError("--grid: empty (write P1xP2, P or auto)");
  return g;
}

Exit exit_status(const std::exception& e) {
  if (const auto* c = dynamic_cast<const CliError*>(&e)) return c->status;
  if (const auto* d = dynamic_cast<const dfft::Error*>(&e)) {
    // A plan that does not fit in memory is a run-time refusal, as bench counts it (no
    // configuration ran), whatever call raised it.
    if (d->status() == dfft::Status::out_of_memory) return exit_failure;
    // A wisdom file that exists but is not dfft wisdom: a bad input file.
    if (d->call() == "wisdom") return d->status() == dfft::Status::invalid_argument ? exit_input : exit_failure;
    return d->call() == "plan" ? exit_usage : exit_failure;
  }
  return exit_failure;
}

std::string message_of(const std::exception& e) {
  std::string s = e.what();
  if (s.rfind("dfft: ", 0) == 0) s.erase(0, 6);
  return s;
}

int on_rank0(MPI_Comm comm, const std::string& who, const std::function<int()>& work) {
  int rank = 0, rc = exit_ok;
  APP_MPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    try {
      rc = work();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", who.c_str(), message_of(e).c_str());
      rc = exit_status(e);
    }
    std::fflush(stdout);
  }
  APP_MPI(MPI_Bcast(&rc, 1, MPI_INT, 0, comm));
  return rc;
}

std::string read_input_here(const std::string& path, const std::string& what, std::size_t max_bytes) {
  const std::string name = what + " '" + path + "'";
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw InputError("cannot read " + name + ": " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw InputError("cannot read " + name + ": it is a directory");
  if (!S_ISREG(st.st_mode))
    throw InputError("refusing to read " + name + ": it is not a regular file (a device, FIFO or socket)");
  const auto size = static_cast<std::size_t>(st.st_size);
  if (size > max_bytes) throw InputError(name + " is larger than " + std::to_string(max_bytes >> 20) + " MiB");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot open " + name + ": " + std::strerror(errno));
  std::string text(size, '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  if (in.bad() || static_cast<std::size_t>(in.gcount()) != size) throw InputError("error reading " + name);
  return text;
}

std::string read_input(const std::string& path, const std::string& what, MPI_Comm comm, std::size_t max_bytes) {
  int rank = 0, ok = 1;
  APP_MPI(MPI_Comm_rank(comm, &rank));
  std::string text;
  if (rank == 0) {
    try {
      text = read_input_here(path, what, std::min<std::size_t>(max_bytes, std::numeric_limits<int>::max()));
    } catch (const InputError& e) {
      ok = 0;
      text = e.what();
    }
  }
  int len = static_cast<int>(text.size());
  APP_MPI(MPI_Bcast(&ok, 1, MPI_INT, 0, comm));
  APP_MPI(MPI_Bcast(&len, 1, MPI_INT, 0, comm));
  text.resize(static_cast<std::size_t>(len));
  APP_MPI(MPI_Bcast(text.data(), len, MPI_CHAR, 0, comm));
  if (!ok) throw InputError(text);
  return text;
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

Command make_moved_command(CLI::App& parent, const std::string& name, const std::string& now) {
  CLI::App* c = parent.add_subcommand(name, "");
  c->group("");          // not listed in the parent's help
  c->set_help_flag();    // `--help` too gets the pointer to the new spelling
  c->allow_extras();     // the old options are not errors of their own
  const std::string old = (parent.get_parent() ? parent.get_name() + " " : std::string()) + name;
  return {c, [old, now](MPI_Comm) -> int {
            throw UsageError("`dfft " + old + "` is now `" + now + "` (docs/cli.md)");
          }};
}

namespace {

std::string joined(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

void add_plan_option_flags(CLI::App* c, OptionValues& values, const FlagUses& uses,
                           const std::vector<std::string>& fields, OptionValues* items) {
  static const FlagUse plain;
  for (const auto& f : dfft::option_fields()) {
    const std::string flag(f.flag), name(f.name), group(f.group);
    if (flag.empty() || (!fields.empty() && !contains(fields, name))) continue;
    const auto u = uses.find(name);
    const FlagUse& use = u == uses.end() ? plain : u->second;
    if (use.own) continue;
    std::vector<std::string>& v = values[name];
    std::vector<std::string> allowed = use.only;
    if (allowed.empty() && !f.allowed.empty()) allowed = split(std::string(f.allowed), '|');
    if (f.empty_is_auto && !allowed.empty()) allowed.push_back("auto");
    for (const auto& x : use.extra)
      if (!contains(allowed, x)) allowed.push_back(x);
    const std::string def = use.default_text.empty() ? f.default_text() : use.default_text;
    const std::string help = std::string(f.doc) + (allowed.empty() ? "" : " (" + joined(allowed, "|") + ")") +
                             "; default " + (def.empty() ? "(empty)" : def) +
                             (use.note.empty() ? "" : ". " + use.note);
    CLI::Option* o = nullptr;
    if (f.type == "bool") {
      o = c->add_flag(flag + "{true}," + "--no-" + flag.substr(2) + "{false}", v, help);
    } else {
      const bool split = !f.is_list() || use.split_items;
      // A grid's items are whole grids ("2x2"), not the integers of one.
      const std::string type = std::string(split && f.separator == ',' ? f.element_type() : f.type);
      o = c->add_option(flag, v, help)->type_name(allowed.empty() ? type : "{" + joined(allowed, "|") + "}");
      if (split) o->delimiter(',');
    }
    const CLI::Validator check([&f, use](std::string& text) -> std::string { return use.refusal(f, text); }, "");
    o->group(group)->check(check);
    const auto each = item_flags(f);
    for (std::size_t i = 0; items && i < each.size(); ++i) {
      CLI::Option* io = c->add_option(each[i], (*items)[flag_key(each[i])],
                                      "item " + std::to_string(i + 1) + " of " + flag + " alone")
                            ->type_name(allowed.empty() ? std::string(f.element_type()) : "{" + joined(allowed, "|") + "}")
                            ->group(group)->check(check);
      if (use.split_items) io->delimiter(',');
      o->excludes(io);
    }
  }
  // The options of another concern (sizes, repetitions, files) keep one section of their own.
  for (CLI::Option* o : c->get_options())
    if (o->get_group() == "Options") o->group("other");
}

bool option_given(const OptionValues& values, const std::string& name) {
  const auto v = values.find(name);
  return v != values.end() && !v->second.empty();
}

std::string option_value(const OptionValues& values, const FlagUses& uses, const std::string& name) {
  if (const auto v = values.find(name); v != values.end() && !v->second.empty()) return v->second.back();
  if (const auto u = uses.find(name); u != uses.end() && !u->second.default_text.empty()) return u->second.default_text;
  return dfft::option_field(name).default_text();
}

dfft::Options options_with_defaults(const FlagUses& uses) {
  dfft::Options o;
  for (const auto& [name, use] : uses)
    if (!use.default_text.empty() && !contains(use.extra, use.default_text)) dfft::set_option(o, name, use.default_text);
  return o;
}

void refuse_with_tuning(const std::function<bool(const std::string&)>& given, const std::string& tuning) {
  for (const char* name : {"decomposition", "variant", "methods"}) {
    if (!given(name)) continue;
    const std::string flag(dfft::option_field(name).flag);
    throw UsageError(flag + " and " + tuning + " exclude each other: the tuner chooses the "
                     "decomposition, variant and methods (give " + flag + " without tuning, or drop it)");
  }
}

void set_plan_options(dfft::Options& o, const OptionValues& values, const std::vector<std::string>& skip) {
  for (const auto& [name, v] : values) {
    if (v.empty() || contains(skip, name)) continue;
    const dfft::OptionField& f = dfft::option_field(name);
    if (v.size() > 1 && !(f.is_list() && f.separator == ','))
      throw UsageError(std::string(f.flag) + " takes one value here (got " + std::to_string(v.size()) + ")");
    dfft::set_option(o, name, joined(v, ","));
  }
}

}  // namespace dfftapp
