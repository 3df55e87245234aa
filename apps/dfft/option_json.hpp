// SPDX-License-Identifier: MIT
// Plan options (dfft/option_fields.hpp) as JSON values: the typed form of a field's text, as the
// bench records write it and the cases files give it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dfft/option_fields.hpp"

namespace dfftapp {

struct FlagUse;

/// The value of field `f` given as text, as a JSON value of its type: numbers, booleans and
/// strings; a list as an array of them.
nlohmann::json option_json(const dfft::OptionField& f, const std::string& text);

/// The text of a JSON value for field `f` (the inverse of option_json). Throws
/// std::invalid_argument saying what is expected when the value has the wrong shape; the value
/// itself is checked by dfft::set_option.
std::string option_text(const dfft::OptionField& f, const nlohmann::json& v);

/// The values a cases-file key gives for field `f`: one, or several to sweep (an array of
/// values; for a list-valued field an array of arrays). Each is checked with dfft::set_option, or
/// as `use` takes the field where given (FlagUse::refusal).
std::vector<std::string> option_sweep(const dfft::OptionField& f, const nlohmann::json& v,
                                      const FlagUse* use = nullptr);

/// The names the option table allows for the enum field `field` (e.g. "norm"), so that a
/// subcommand's own flag or a cases-file key checks the list the library parses.
std::vector<std::string> option_names(const std::string& field);

}  // namespace dfftapp
