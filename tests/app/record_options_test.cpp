// SPDX-License-Identifier: MIT
// A bench record and its CSV row name every plan option of the table (dfft/option_fields.hpp)
// under its field name, written from the record's options: a field added to the table reaches
// the records without a line of the writer naming it.
#include <gtest/gtest.h>

#include <algorithm>

#include "bench_summary.hpp"
#include "dfft/option_fields.hpp"
#include "option_json.hpp"
#include "report.hpp"
#include "results.hpp"
#include "support/option_values.hpp"

namespace {

// Staging is written only where it applies: the CUDA backend's MPI methods.
dfftapp::Record cuda_record() {
  dfftapp::Record r;
  r.options.backend = dfft::Backend::cuda;
  return r;
}

TEST(RecordOptions, EveryTableFieldIsWrittenUnderItsName) {
  for (const auto& f : dfft::option_fields()) {
    SCOPED_TRACE(std::string(f.name));
    const std::string key(f.name), v = dfft_test::other_value(f);
    dfftapp::Record r = cuda_record();
    if (key != "backend") dfft::set_option(r.options, f.name, v);
    const nlohmann::json j = dfftapp::to_json(r);
    ASSERT_TRUE(j.contains(key)) << j.dump();
    EXPECT_EQ(j[key], dfftapp::option_json(f, f.get(r.options)));
  }
}

TEST(RecordOptions, EveryTableFieldHasItsCsvColumn) {
  const auto& cols = dfftapp::csv_columns();
  for (const auto& f : dfft::option_fields()) {
    SCOPED_TRACE(std::string(f.name));
    const auto at = std::find(cols.begin(), cols.end(), std::string(f.name));
    ASSERT_NE(at, cols.end());
    // The cell holds the record's value, or the default where the record leaves the key out.
    for (const bool other : {false, true}) {
      dfftapp::Record r = cuda_record();
      if (other && f.name != "backend") dfft::set_option(r.options, f.name, dfft_test::other_value(f));
      const nlohmann::json j = dfftapp::to_json(r);
      const std::string row = dfftapp::csv_row(j);
      std::vector<std::string> cells;
      std::string cell;
      bool quoted = false;
      for (char ch : row + ",") {
        if (ch == '"') quoted = !quoted;
        if (ch == ',' && !quoted) {
          cells.push_back(cell);
          cell.clear();
        } else if (ch != '"') {
          cell += ch;
        }
      }
      ASSERT_EQ(cells.size(), cols.size()) << row;
      // As the JSON has it: items joined with ';' (a grid with 'x'), numbers in JSON's form.
      std::string want;
      const nlohmann::json v = dfftapp::option_json(f, f.get(r.options));
      const nlohmann::json items = v.is_array() ? v : nlohmann::json::array({v});
      for (std::size_t i = 0; i < items.size(); ++i) {
        if (i) want += f.separator == ',' ? ';' : f.separator;
        want += items[i].is_string() ? items[i].get<std::string>() : items[i].dump();
      }
      EXPECT_EQ(cells[static_cast<std::size_t>(at - cols.begin())], want) << row;
    }
  }
}

TEST(RecordOptions, RecordColumnNamesARecordKind) {
  for (const auto& f : dfft::option_fields())
    EXPECT_TRUE(f.record.empty() || f.record == "every" || f.record == "plan") << f.name << ": " << f.record;
}

TEST(RecordOptions, LabelsStandForValuesNoOptionSpells) {
  dfftapp::Record r;
  r.labels = {{"decomposition", "single-device"}, {"variant", "-"}};
  const nlohmann::json j = dfftapp::to_json(r);
  EXPECT_EQ(j["decomposition"], "single-device");
  EXPECT_EQ(j["variant"], "-");
  EXPECT_EQ(dfftapp::record_option(r, "decomposition"), "single-device");
  EXPECT_EQ(dfftapp::record_option(r, "norm"), "backward");
}

TEST(RecordOptions, DefaultsAreLeftOut) {
  // Older records lack these keys; a record of a plan at its defaults reads the same.
  const nlohmann::json j = dfftapp::to_json(dfftapp::Record{});
  for (const char* key : {"tolerance", "r2r", "axes", "batch", "tune", "memory_limit_bytes", "transposed_out"})
    EXPECT_FALSE(j.contains(key)) << key;
  for (const auto& f : dfft::option_fields())
    EXPECT_EQ(j.contains(std::string(f.name)), dfftapp::always_written(f, false) || f.name == "staging") << f.name;
  EXPECT_TRUE(j["staging"].is_null());  // CPU: nothing is staged
}

TEST(RecordOptions, PeerRecordsLeaveOutWhatOnlyADfftPlanHas) {
  dfftapp::Record r = cuda_record();
  r.library = "fftw-mpi";
  const nlohmann::json j = dfftapp::to_json(r);
  for (const char* key : {"codec", "overlap", "chunks", "in_flight", "adapt", "max_message_bytes"})
    EXPECT_FALSE(j.contains(key)) << key;
  for (const char* key : {"decomposition", "variant", "methods", "threads", "transform", "grid", "backend", "effort",
                          "norm"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_TRUE(j["staging"].is_null());
}

TEST(KeepOnePerProblem, ComparesEveryTableFieldButTheDistribution) {
  for (const auto& f : dfft::option_fields()) {
    SCOPED_TRACE(std::string(f.name));
    std::vector<dfftapp::Config> configs(2);
    for (auto& c : configs) c.shape = {8, 8, 8};
    dfft::set_option(configs[1].opt, f.name, dfft_test::other_value(f));
    const std::size_t dropped = dfftapp::keep_one_per_problem(configs);
    EXPECT_EQ(dropped, dfftapp::distribution_only(f) ? 1U : 0U);
  }
}

TEST(KeepOnePerProblem, TheDistributionIsWhatOneRankDoesNotTellApart) {
  // What dfft bench's note names (decomposition, variant, grid, method, wire format) is dropped;
  // what changes the local transform or how it is timed keeps configurations apart.
  for (const char* name : {"decomposition", "variant", "grid", "methods", "codec"})
    EXPECT_TRUE(dfftapp::distribution_only(dfft::option_field(name))) << name;
  for (const char* name : {"transform", "r2r", "axes", "padding", "norm", "batch", "in_place", "transposed_out",
                           "overlap", "effort", "backend", "threads"})
    EXPECT_FALSE(dfftapp::distribution_only(dfft::option_field(name))) << name;
}

}  // namespace
