// SPDX-License-Identifier: MIT
// dfft::Options as data: one row per field, from which the command-line flags, the cases-file
// keys, the bench records, the wisdom key, the Python keywords and docs/options.md are made.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dfft/types.hpp"

struct dfft_options;  // the C interface's options (dfft/dfft.h)

namespace dfft {

template <class T>
class Plan;
struct WisdomEntry;

/// What a plan resolved where its options left a choice (read from the plan by
/// resolved_options): a plain record, so that the option table needs no plan code to link.
struct PlanResolution {
  std::vector<int> grid;
  std::size_t exchanges = 0;
  Codec codec = Codec::none;
  Staging staging = Staging::automatic;
  int chunks = 0, in_flight = 0, overlap_slices = 1;
  int threads = 1;
};

/// One field of dfft::Options. Values travel as text: enums by their dfft names (to_string /
/// parse_*), lists separated by ',' (a process grid by 'x', as on the command line), an empty
/// grid or method list as "auto", booleans as "true"/"false", numbers in C++'s shortest form.
struct OptionField {
  std::string_view name;   // the C++ field name; also the JSON key and the Python keyword
  std::string_view group;  // problem, decomposition, exchange, overlap, tuning, device, memory
  /// "enum", "bool", "int", "int64", "number", "text", "pointer", or "list of <that>".
  std::string_view type;
  std::string_view allowed;  // enums: the names allowed, '|'-separated; else empty
  std::string_view doc;      // one line
  std::string_view flag;     // the dfft subcommands' flag ("--chunks"); empty: none
  /// Part of the wisdom key (docs/tuning.md): another value changes the result, the layout or
  /// which plan is fastest, so it is another tuning problem. The fields the tuner chooses
  /// (decomposition, variant, methods, chunks) and the tuning settings are not.
  bool wisdom_key = false;
  /// Where the key holds what the value resolves to on this machine rather than its text: what
  /// that is (device: the model's name). Empty: the key holds the value's text.
  std::string_view wisdom_key_resolved;
  /// The dfft_options member(s) of the C interface that carry it, or empty with c_absent saying why.
  std::string_view c_field;
  std::string_view c_absent;
  /// The bench records (docs/results-format.md) that have it whatever its value: "every" (dfft's
  /// and a peer library's), "plan" (dfft's own: what only a dfft plan has), or empty (written
  /// only where it differs from the default; a reader takes an absent one as the default).
  std::string_view record;
  /// Heading of the field's column in dfft bench's table (apps/dfft/report.cpp).
  std::string_view label;
  /// Position of that column among the option columns, 1 first; 0: the table has none.
  int column = 0;
  /// How the text that names a configuration (bench's progress lines and its fastest per
  /// problem) writes the field: "bare" (the value), "named" (name and value), "changed" (name and
  /// value where not what a single-device transform runs with, `serial`, else not the default), "flag" (the flag's words where true); empty: not at all.
  std::string_view in_name;
  /// Part of a configuration's identity in the results pages (tools/results_tables.py): false
  /// where it says how the plan was found or where its files lie, not what it computes or how.
  bool configuration = true;
  /// Says only how the data are distributed and exchanged: on one rank every value of it makes
  /// the same local transform (dfft bench keeps one configuration per problem there).
  bool distribution_only = false;
  /// What a peer library's record holds where the peer does not set it (tools/records.py):
  /// empty: the default; "null": nothing (JSON null); else this text.
  std::string_view peer;
  /// A second cases-file key (docs/cases.md) that gives the field one value per configuration
  /// as its flag writes it; empty: none.
  std::string_view cases_alias;
  /// A list's flags that each give one item on its own, in item order, '|'-separated (the method
  /// of the first and of the second exchange: each sweeps apart from the other); the cases file
  /// takes each as a key without its dashes. Empty: none.
  std::string_view item_flags;
  /// The value a single-device transform runs with whatever the configuration says (dfft bench's
  /// reference row: one array, one slice, nothing pipelined or adapted); empty: the configuration's.
  std::string_view serial;
  /// The key older bench records held the field under (tools/records.py reads them in the
  /// current name); empty: none.
  std::string_view former_key;
  std::string (*get)(const Options&) = nullptr;
  /// Throws InvalidArgument naming the field and the allowed values.
  void (*set)(Options&, const std::string&) = nullptr;

  /// Reads the field from the C interface's members (c_field) of `c`, for an array of `ndims`
  /// axes; throws InvalidArgument naming the member for a value C does not allow. Null: no member.
  void (*from_c)(const OptionField& f, Options& o, const dfft_options& c, int ndims) = nullptr;
  /// The tuner chooses it: sets it to the choice of wisdom entry `e`. Null: not a choice.
  void (*from_choice)(Options& o, const WisdomEntry& e) = nullptr;
  /// The other way: sets the choice of `e` to the field's value in `o` (null where from_choice is).
  void (*to_choice)(WisdomEntry& e, const Options& o) = nullptr;
  /// A choice that acts only with some values of the other fields: whether it acts in `o`
  /// (chunks: a chunked method; overlap: more than one slice). The tuner's labels (tune_label)
  /// write such a choice as name=value where it acts and differs from its default. Null: the
  /// choice always acts and the labels write its text alone.
  bool (*in_effect)(const Options& o) = nullptr;
  /// What the plan resolved it to (the grid used, the codec the tolerance chose, the slices,
  /// chunks and steps in flight in use), from `r`. Null: the plan's options() hold it as it runs.
  void (*resolve)(Options& o, const PlanResolution& r) = nullptr;

  char separator = ',';       // lists: between items ('x' for the process grid)
  bool empty_is_auto = false;  // lists: the empty list is written "auto" (grid, methods)

  bool is_list() const { return type.substr(0, 8) == "list of "; }
  /// The element type ("int" for "list of int").
  std::string_view element_type() const { return is_list() ? type.substr(8) : type; }
  std::string default_text() const { return get(Options{}); }
};

/// Every field of dfft::Options, grouped as option_groups() lists them.
const std::vector<OptionField>& option_fields();
/// The group names in their order: problem, decomposition, exchange, overlap, tuning, device, memory.
const std::vector<std::string_view>& option_groups();
/// The row of field `name`; throws InvalidArgument listing the field names.
const OptionField& option_field(std::string_view name);
/// The row whose flag is `flag` ("--chunks"), or nullptr.
const OptionField* option_field_by_flag(std::string_view flag);

/// Field `name` of `o` as text.
std::string get_option(const Options& o, std::string_view name);
/// Sets field `name` of `o` from text; throws InvalidArgument naming the field.
void set_option(Options& o, std::string_view name, const std::string& text);
/// The table as a JSON document {"comment", "fields": [one object per row]}, each row's columns
/// by name, "allowed" as a list, "default" as text: what `dfft options` prints and
/// tools/option_fields.json holds for the Python tools.
std::string option_fields_json();
/// The plan's options() with every field a plan resolves (OptionField::resolve_*) as it resolved
/// it: what the plan runs, for records and reports.
template <class T>
Options resolved_options(const Plan<T>& p);
/// The items of a list value: split at ',' (a grid at 'x'); "" and "auto" give none.
std::vector<std::string> option_items(const OptionField& f, const std::string& text);

}  // namespace dfft
