// SPDX-License-Identifier: MIT
// JSON form of model::Calibration (shared by the wisdom file and `dfft model calibrate`).
#pragma once

#include <nlohmann/json.hpp>

#include "dfft/model.hpp"

namespace dfft::detail {

nlohmann::json calibration_json(const model::Calibration& c);
/// Throws dfft::Error (call "wisdom") for a malformed object.
model::Calibration calibration_from(const nlohmann::json& v);

}  // namespace dfft::detail
