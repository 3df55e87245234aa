// `dfft bench`: option values, the sweep of configurations they expand to, and the runner.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "dfft/types.hpp"

namespace dfftapp {

/// Raw option values as parsed (names still strings; lists may be comma-separated).
struct BenchArgs {
  std::vector<std::vector<std::string>> sizes;  // one entry per --size occurrence
  std::vector<std::string> decomps, variants, grids, methods, methods1, methods2;
  std::vector<std::string> precisions, transforms;
  std::string effort = "estimate", backend = "cpu", json;
  int warmup = 2, reps = 10;
  int validate = 0;   // >0 --validate, <0 --no-validate, 0 not given
  int reference = 0;  // likewise for --reference / --no-reference
  bool normalize = false, verbose = false;
  std::int64_t max_message_bytes = 0;  // 0: the library's default
  bool default_sweep = false;          // --size was not given
};

/// One plan to build and time.
struct Config {
  std::vector<std::int64_t> shape;
  dfft::Options opt;
  bool is_double = true;
  bool inverse_first = false;  // --transform c2r: list the inverse (c2r) record first
};

/// Fill in defaults (default sweep, method lists per backend) after parsing.
void finish_args(BenchArgs& a);
/// Expand the options into the list of configurations, outer to inner: size, precision,
/// transform, decomposition, variant, grid, methods. Throws dfft::Error on unknown names or
/// malformed sizes/grids.
std::vector<Config> expand(const BenchArgs& a);
/// Run the sweep; collective over `comm`. Returns the process exit code (same on every rank).
int run_bench(const BenchArgs& a, MPI_Comm comm);

/// Parse "64x64x64" or a list of numbers into a shape (>= 2 dims, all >= 1).
std::vector<std::int64_t> parse_shape(const std::vector<std::string>& tokens);
/// Parse "P1xP2", "P" or "auto" (= {}) into a process grid.
std::vector<int> parse_grid(const std::string& s);

}  // namespace dfftapp
