// SPDX-License-Identifier: MIT
// The C interface's dfft_options as dfft::Options: what every dfft_plan_create* call does with
// its options, declared here so that a test can check it against the option table
// (tests/unit/capi_options_test.cpp: every row's C member is read).
#pragma once

#include "dfft/dfft.h"
#include "dfft/types.hpp"

namespace dfft::capi {

/// `o` (NULL: dfft_options_init's values) for an array of `ndims` axes; throws InvalidArgument
/// naming the member for a value out of range.
dfft::Options options_from_c(const dfft_options* o, int ndims);

}  // namespace dfft::capi
