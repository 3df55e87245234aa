// SPDX-License-Identifier: MIT
// A subcommand of the `dfft` program. Each one registers its options on the parent CLI::App and
// returns what to run when the user picked it; main() knows nothing else about it. To add one:
// write make_<name>_command() like make_bench_command() and push it in main().
#pragma once

#include <mpi.h>

#include <functional>
#include <string>

namespace CLI {
class App;
}

namespace dfft {
struct Options;
}

namespace dfftapp {

struct Command {
  CLI::App* app = nullptr;              // the subcommand parser (owned by the parent App)
  std::function<int(MPI_Comm)> run;     // collective over the communicator; returns the exit code
  /// After parsing, without MPI: the plan options the command line gives (a sweep's first
  /// configuration), so that a test can walk the table's flags through the subcommand's own
  /// handling. Empty where the subcommand makes no plan of its own options.
  std::function<dfft::Options()> options{};
};

/// `dfft bench`: time distributed transforms over a sweep of configurations (with --accuracy:
/// the errors of the compressed-communication wire formats).
Command make_bench_command(CLI::App& parent);

/// `dfft transform IN OUT`: transform a .npy file with MPI-IO input and output.
Command make_transform_command(CLI::App& parent);

/// `dfft tune`: time candidate plans, print them ranked, store the fastest (docs/tuning.md).
Command make_tune_command(CLI::App& parent);
/// `dfft model calibrate|fit|check|cluster`: performance models (docs/models.md).
Command make_model_command(CLI::App& parent);

/// `dfft options`: the plan options of the library's table as JSON (docs/options.md).
Command make_options_command(CLI::App& parent);

/// A subcommand that no longer exists: hidden from the help, it takes any arguments (--help too)
/// and exits with exit_usage, naming the spelling `now` that does its job.
Command make_moved_command(CLI::App& parent, const std::string& name, const std::string& now);

}  // namespace dfftapp
