// SPDX-License-Identifier: MIT
// User workspaces on the CPU backend: slab and pencil, r2c and c2c, with and without overlap
// (three work buffers), 1-4 ranks (tests/support/workspace_check.hpp); options that cannot take
// a workspace are refused.
#include <gtest/gtest.h>

#include "support/workspace_check.hpp"

namespace {

class UserWorkspace : public ::testing::TestWithParam<dfft_test::WorkspaceCase> {};

TEST_P(UserWorkspace, SameResultsLessMemoryBadWorkspacesRefused) {
  dfft_test::check_user_workspace_any(dfft_test::workspace_case_options(GetParam(), dfft::Backend::cpu));
}

INSTANTIATE_TEST_SUITE_P(Cpu, UserWorkspace, dfft_test::workspace_cases(), dfft_test::workspace_case_name);

TEST(UserWorkspaceOptions, TunerAndAdaptRefused) {
  dfft::Options o;
  o.user_workspace = true;
  o.adapt = true;
  dfft_test::expect_error_everywhere([&] { dfft::Plan<double>(MPI_COMM_WORLD, {17, 12, 10}, o); }, "adapt");
  o.adapt = false;
  o.tune = dfft::Tune::heuristic;
  dfft_test::expect_error_everywhere([&] { dfft::Plan<double>(MPI_COMM_WORLD, {17, 12, 10}, o); }, "tune");
  EXPECT_THROW(dfft::Plan<double>(MPI_COMM_WORLD, {17, 12, 10}, o), dfft::Unsupported);
}

}  // namespace
