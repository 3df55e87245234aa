// SPDX-License-Identifier: MIT
// Option values (dfft/option_fields.hpp) as typed JSON: what the wisdom file's choices, the bench
// records and the cases files hold. One conversion, so that a value reads back as it was written.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "dfft/option_fields.hpp"

namespace dfft::detail {

/// The value of field `f` given as text, as a JSON value of its type: numbers, booleans and
/// strings; a list as an array of them.
nlohmann::json option_json(const OptionField& f, const std::string& text);

/// The text of a JSON value for field `f` (the inverse of option_json). A list whose text is not
/// ','-separated (the process grid, "2x2") may also be given whole, as one string or number, as
/// its flag takes it. Throws std::invalid_argument saying what is expected when the value has the
/// wrong shape; the value itself is checked by set_option.
std::string option_text(const OptionField& f, const nlohmann::json& v);

/// Whether a list field's value is written whole (see option_text).
bool written_whole(const OptionField& f);

}  // namespace dfft::detail
