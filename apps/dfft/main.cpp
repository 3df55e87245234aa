// SPDX-License-Identifier: MIT
// The `dfft` command line: MPI set-up, subcommand dispatch, --version and help.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "command.hpp"
#include "machine.hpp"

namespace {

std::string version_text() {
  return std::string("dfft ") + DFFT_VERSION_STRING + " (" + dfftapp::mpi_library_version() + ")";
}

// "dfft <subcommand>" for messages: the first argument naming a subcommand (CLI11 has not
// necessarily recorded it when parsing failed).
std::string who(const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    for (const auto* sub : app.get_subcommands({}))
      if (sub->get_name() == argv[i]) return "dfft " + sub->get_name();
  return "dfft";
}

// Parse on every rank (all get the same argv) so every rank knows what to run, but let only
// rank 0 print help and parse errors. --help and --version exit 0; every parse error is a usage
// error (exit_usage) with the subcommand's prefix.
int parse(CLI::App& app, int argc, char** argv, int rank, bool& done) {
  done = false;
  try {
    app.parse(argc, argv);
    return dfftapp::exit_ok;
  } catch (const CLI::ParseError& e) {
    done = true;
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) {
      if (rank == 0) return app.exit(e);
      std::ostringstream sink;
      return app.exit(e, sink, sink);
    }
    if (rank == 0) {
      const std::string name = who(app, argc, argv);
      std::fprintf(stderr, "%s: %s\nRun '%s --help' for the options.\n", name.c_str(), e.what(),
                   name.c_str());
    }
    return dfftapp::exit_usage;
  }
}

int dispatch(CLI::App& app, const std::vector<dfftapp::Command>& commands, int rank) {
  for (const auto& c : commands) {
    if (!c.app->parsed()) continue;
    try {
      return c.run(MPI_COMM_WORLD);
    } catch (const dfftapp::CliError& e) {  // thrown alike on every rank, before any collective diverges
      if (rank == 0) std::fprintf(stderr, "dfft %s: %s\n", c.app->get_name().c_str(), dfftapp::message_of(e).c_str());
      return e.status;
    } catch (const std::exception& e) {
      // Other ranks may be inside a collective we will never reach; stop them all.
      std::fprintf(stderr, "dfft %s: rank %d: %s\n", c.app->get_name().c_str(), rank, dfftapp::message_of(e).c_str());
      std::fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, dfftapp::exit_failure);
    }
  }
  if (rank == 0) std::fputs(app.help().c_str(), stdout);  // no subcommand: show what exists
  return dfftapp::exit_ok;
}

}  // namespace

int main(int argc, char** argv) {
  // MPI_THREAD_MULTIPLE: the CUDA backend's p2p-streams method sends from a second thread.
  int provided = 0;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
    std::fputs("dfft: MPI_Init_thread failed\n", stderr);
    return 1;
  }
  int rank = 0;
  if (MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS) {
    std::fputs("dfft: MPI_Comm_rank failed\n", stderr);
    return 1;
  }

  CLI::App app{"dfft: distributed multidimensional FFTs over MPI (FFTW on CPU, cuFFT/NCCL on GPU).\n"
               "Run under mpirun, e.g.  mpirun -np 2 dfft bench", "dfft"};
  app.set_version_flag("--version", version_text(), "Print the version and exit");
  app.require_subcommand(0, 1);
  app.footer("Run 'dfft <command> --help' for the options of a command. Exit status: 0 success, 1 "
             "run-time or library failure, 2 bad command line, 3 bad input file, 4 validation "
             "failure (docs/cli.md).");
  std::vector<dfftapp::Command> commands;
  commands.push_back(dfftapp::make_bench_command(app));
  commands.push_back(dfftapp::make_transform_command(app));
  commands.push_back(dfftapp::make_tune_command(app));
  commands.push_back(dfftapp::make_model_command(app));
  commands.push_back(dfftapp::make_options_command(app));
  commands.push_back(dfftapp::make_moved_command(app, "accuracy", "dfft bench --accuracy"));

  bool done = false;
  int rc = parse(app, argc, argv, rank, done);
  if (!done) rc = dispatch(app, commands, rank);
  if (MPI_Finalize() != MPI_SUCCESS && rc == 0) {
    std::fputs("dfft: MPI_Finalize failed\n", stderr);
    rc = dfftapp::exit_failure;
  }
  return rc;
}
