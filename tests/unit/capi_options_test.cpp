// SPDX-License-Identifier: MIT
// The C interface reads every field of the option table that has C members (the row's c_field):
// changing those members of dfft_options changes that field of the plan's dfft::Options. A row
// the C interface forgets to read, or one added without a change below, fails here.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>

#include "capi/options_from_c.hpp"
#include "dfft/option_fields.hpp"

namespace {

constexpr int kDims = 3;

// An enum member moved off its dfft_options_init value to another constant.
int other(int v) { return v == 0 ? 1 : 0; }

// One change of the C members of each row, keyed by the row's c_field. Where C refuses every
// other value (batch: the batched calls take the count), `refused` says so: the member is read.
struct Change {
  std::function<void(dfft_options&)> apply;
  bool refused = false;
};

const std::map<std::string, Change>& changes() {
  static const std::map<std::string, Change> c{
      {"transform", {[](dfft_options& o) { o.transform = other(o.transform); }}},
      {"r2r", {[](dfft_options& o) { for (int a = 0; a < kDims; ++a) o.r2r[a] = DFFT_R2R_NONE == 0 ? 1 : 0; }}},
      {"n_axes, axes", {[](dfft_options& o) { o.n_axes = 1; o.axes[0] = 1; }}},
      {"padding", {[](dfft_options& o) { o.padding[0] = 1.5; }}},
      {"input_halo_lo, input_halo_hi", {[](dfft_options& o) { o.input_halo_lo[0] = 1; }}},
      {"output_halo_lo, output_halo_hi", {[](dfft_options& o) { o.output_halo_hi[2] = 1; }}},
      {"norm", {[](dfft_options& o) { o.norm = other(o.norm); }}},
      {"batch", {[](dfft_options& o) { o.batch = 2; }, true}},
      {"in_place", {[](dfft_options& o) { o.in_place = !o.in_place; }}},
      {"destroy_input", {[](dfft_options& o) { o.destroy_input = !o.destroy_input; }}},
      {"decomposition", {[](dfft_options& o) { o.decomposition = other(o.decomposition); }}},
      {"grid_dims, grid", {[](dfft_options& o) { o.grid_dims = 1; o.grid[0] = 2; }}},
      {"variant", {[](dfft_options& o) { o.variant = other(o.variant); }}},
      {"transposed_out", {[](dfft_options& o) { o.transposed_out = !o.transposed_out; }}},
      {"n_methods, methods", {[](dfft_options& o) { o.n_methods = 1; o.methods[0] = 1; }}},
      {"codec", {[](dfft_options& o) { o.codec = other(o.codec); }}},
      {"tolerance", {[](dfft_options& o) { o.tolerance = 1e-3; }}},
      {"onesided_sync", {[](dfft_options& o) { o.onesided_sync = other(o.onesided_sync); }}},
      {"staging", {[](dfft_options& o) { o.staging = other(o.staging); }}},
      {"chunks", {[](dfft_options& o) { o.chunks += 3; }}},
      {"in_flight", {[](dfft_options& o) { o.in_flight += 1; }}},
      {"max_message_bytes", {[](dfft_options& o) { o.max_message_bytes = 1 << 20; }}},
      {"overlap", {[](dfft_options& o) { o.overlap += 2; }}},
      {"adapt", {[](dfft_options& o) { o.adapt = !o.adapt; }}},
      {"tune", {[](dfft_options& o) { o.tune = other(o.tune); }}},
      {"wisdom_file", {[](dfft_options& o) { o.wisdom_file = "w.json"; }}},
      {"tune_budget_s", {[](dfft_options& o) { o.tune_budget_s = 5; }}},
      {"effort", {[](dfft_options& o) { o.effort = other(o.effort); }}},
      {"fftw_wisdom", {[](dfft_options& o) { o.fftw_wisdom = !o.fftw_wisdom; }}},
      {"fftw_wisdom_dir", {[](dfft_options& o) { o.fftw_wisdom_dir = "dir"; }}},
      {"backend", {[](dfft_options& o) { o.backend = other(o.backend); }}},
      {"device", {[](dfft_options& o) { o.device += 2; }}},
      {"stream", {[](dfft_options& o) { o.stream = &o; }}},
      {"user_workspace", {[](dfft_options& o) { o.user_workspace = !o.user_workspace; }}},
      {"threads", {[](dfft_options& o) { o.threads += 2; }}},
      {"memory_limit_bytes", {[](dfft_options& o) { o.memory_limit_bytes = 1 << 30; }}},
  };
  return c;
}

TEST(CapiOptions, EveryRowsMembersAreRead) {
  dfft_options def;
  dfft_options_init(&def);
  const dfft::Options base = dfft::capi::options_from_c(&def, kDims);
  int rows = 0;
  for (const auto& f : dfft::option_fields()) {
    const std::string name(f.name), members(f.c_field);
    if (members.empty()) {
      EXPECT_FALSE(f.c_absent.empty()) << name << ": no C member and no c_absent saying why";
      continue;
    }
    ++rows;
    const auto c = changes().find(members);
    if (c == changes().end()) {
      ADD_FAILURE() << name << ": no change of its C members (" << members << ") in this test";
      continue;
    }
    dfft_options o = def;
    c->second.apply(o);
    if (c->second.refused) {
      try {
        (void)dfft::capi::options_from_c(&o, kDims);
        ADD_FAILURE() << name << ": a changed " << members << " was neither read nor refused";
      } catch (const dfft::InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
      }
      continue;
    }
    const dfft::Options got = dfft::capi::options_from_c(&o, kDims);
    EXPECT_NE(dfft::get_option(got, name), dfft::get_option(base, name))
        << name << ": changing " << members << " left the field at " << dfft::get_option(base, name);
    // The row's members go to its field and to no other.
    for (const auto& g : dfft::option_fields()) {
      if (g.name != f.name) {
        EXPECT_EQ(g.get(got), g.get(base)) << "changing " << members << " (" << name << ") changed " << g.name;
      }
    }
  }
  EXPECT_EQ(rows + 0u, changes().size()) << "a change above names C members no row has";
}

// The C interface reads a field exactly where the table names C members for it: every row with
// c_field has a reader (OptionField::from_c), and none without.
TEST(CapiOptions, EveryRowWithCMembersHasAReader) {
  for (const auto& f : dfft::option_fields())
    EXPECT_EQ(f.from_c != nullptr, !f.c_field.empty()) << f.name;
}

// A refused value names its member: each row's reader checks what it reads.
TEST(CapiOptions, RefusedValuesNameTheirMember) {
  const std::map<std::string, std::function<void(dfft_options&)>> bad{
      {"decomposition", [](dfft_options& o) { o.decomposition = 99; }},
      {"n_methods", [](dfft_options& o) { o.n_methods = DFFT_MAX_EXCHANGES + 1; }},
      {"methods[i]", [](dfft_options& o) { o.n_methods = 1; o.methods[0] = -1; }},
      {"grid_dims", [](dfft_options& o) { o.grid_dims = DFFT_MAX_DIMS; }},
      {"n_axes", [](dfft_options& o) { o.n_axes = kDims + 1; }},
      {"r2r[5]", [](dfft_options& o) { o.r2r[5] = 1; }},
      {"padding[4]", [](dfft_options& o) { o.padding[4] = 2.0; }},
      {"tolerance", [](dfft_options& o) { o.tolerance = -1; }},
      {"max_message_bytes", [](dfft_options& o) { o.max_message_bytes = 0; }},
      {"memory_limit_bytes", [](dfft_options& o) { o.memory_limit_bytes = -1; }},
      {"effort", [](dfft_options& o) { o.effort = 3; }},
  };
  for (const auto& [member, apply] : bad) {
    dfft_options o;
    dfft_options_init(&o);
    apply(o);
    try {
      (void)dfft::capi::options_from_c(&o, kDims);
      ADD_FAILURE() << member << ": not refused";
    } catch (const dfft::InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(member), std::string::npos) << e.what();
    }
  }
}

// The defaults agree: dfft_options_init gives the table's default of every field it carries.
TEST(CapiOptions, InitGivesTheTablesDefaults) {
  dfft_options def;
  dfft_options_init(&def);
  const dfft::Options base = dfft::capi::options_from_c(&def, kDims);
  for (const auto& f : dfft::option_fields()) {
    if (f.c_field.empty()) continue;
    EXPECT_EQ(dfft::get_option(base, f.name), f.default_text()) << f.name;
  }
}

}  // namespace
