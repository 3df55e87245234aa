// SPDX-License-Identifier: MIT
// A bench record names every plan option of the table (dfft/option_fields.hpp) under its field
// name: the plan's resolved choice, or the option where it differs from its default.
#include <gtest/gtest.h>

#include "dfft/option_fields.hpp"
#include "option_json.hpp"
#include "report.hpp"
#include "support/option_values.hpp"

namespace {

TEST(RecordOptions, EveryTableFieldIsWrittenUnderItsName) {
  const nlohmann::json plain = dfftapp::to_json(dfftapp::Record{});
  for (const auto& f : dfft::option_fields()) {
    SCOPED_TRACE(std::string(f.name));
    const std::string key(f.name), v = dfft_test::other_value(f);
    dfftapp::Record r;
    dfft::set_option(r.options, f.name, v);
    const nlohmann::json j = dfftapp::to_json(r);
    ASSERT_TRUE(j.contains(key)) << j.dump();
    // Written from the options unless the record writes the plan's own choice of it.
    if (!plain.contains(key)) {
      EXPECT_EQ(j[key], dfftapp::option_json(f, v));
    }
  }
}

TEST(RecordOptions, DefaultsAreLeftOut) {
  // Older records lack these keys; a record of a plan at its defaults reads the same.
  const nlohmann::json j = dfftapp::to_json(dfftapp::Record{});
  for (const char* key : {"tolerance", "r2r", "axes", "batch", "tune", "memory_limit_bytes", "transposed_out"})
    EXPECT_FALSE(j.contains(key)) << key;
}

}  // namespace
