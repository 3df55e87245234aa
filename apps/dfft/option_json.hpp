// SPDX-License-Identifier: MIT
// Plan options (dfft/option_fields.hpp) as JSON values: the typed form of a field's text, as the
// bench records write it and the cases files give it.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dfft/option_fields.hpp"
#include "util/option_json.hpp"

namespace dfftapp {

struct FlagUse;

using dfft::detail::option_json;
using dfft::detail::option_text;

/// The values a cases-file key gives for field `f`: one, or several to sweep (an array of
/// values; for a list-valued field an array of arrays). Each is checked with dfft::set_option, or
/// as `use` takes the field where given (FlagUse::refusal).
std::vector<std::string> option_sweep(const dfft::OptionField& f, const nlohmann::json& v,
                                      const FlagUse* use = nullptr);

/// Values given by key (a cases-file key, a flag without its dashes).
using ItemValues = std::map<std::string, std::vector<std::string>>;

/// The flags of list field `f` that each give one item on its own (OptionField::item_flags), in
/// item order.
std::vector<std::string> item_flags(const dfft::OptionField& f);
/// A flag's key in a cases file and in ItemValues: the flag without its dashes.
std::string flag_key(const std::string& flag);
/// The field one of whose item flags has key `key` ("method2"), or nullptr.
const dfft::OptionField* item_field(const std::string& key);
/// Whether `items` gives a value to any item of field `f`.
bool items_given(const dfft::OptionField& f, const ItemValues& items);
/// The values of field `f` made item by item: each of its first `count` items takes every value
/// given under its key in `items`, or every value of `rest` where none is given; one text per
/// combination, in order, without repeats.
std::vector<std::string> item_lists(const dfft::OptionField& f, const ItemValues& items,
                                    const std::vector<std::string>& rest, std::size_t count);

/// The names the option table allows for the enum field `field` (e.g. "norm"), so that a
/// subcommand's own flag or a cases-file key checks the list the library parses.
std::vector<std::string> option_names(const std::string& field);

}  // namespace dfftapp
