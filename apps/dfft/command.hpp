// SPDX-License-Identifier: MIT
// A subcommand of the `dfft` program. Each one registers its options on the parent CLI::App and
// returns what to run when the user picked it; main() knows nothing else about it. To add one
// (transform, tune, model): write make_<name>_command() like make_bench_command() and push it in
// main().
#pragma once

#include <mpi.h>

#include <functional>

namespace CLI {
class App;
}

namespace dfftapp {

struct Command {
  CLI::App* app = nullptr;              // the subcommand parser (owned by the parent App)
  std::function<int(MPI_Comm)> run;     // collective over the communicator; returns the exit code
};

/// `dfft bench`: time distributed transforms over a sweep of configurations.
Command make_bench_command(CLI::App& parent);
/// `dfft accuracy`: errors of the compressed-communication wire formats.
Command make_accuracy_command(CLI::App& parent);

/// `dfft transform IN OUT`: transform a .npy file with MPI-IO input and output.
Command make_transform_command(CLI::App& parent);

/// `dfft tune`: time candidate plans, print them ranked, store the fastest (docs/tuning.md).
Command make_tune_command(CLI::App& parent);
/// `dfft model calibrate|predict|fit|check`: performance models (docs/models.md).
Command make_model_command(CLI::App& parent);

}  // namespace dfftapp
