// SPDX-License-Identifier: MIT
// The `dfft` command line: MPI set-up, subcommand dispatch, --version and help.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "command.hpp"

namespace {

std::string mpi_library() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  if (MPI_Get_library_version(text, &len) != MPI_SUCCESS) return "unknown MPI";
  std::string s(text, static_cast<std::size_t>(len));
  auto cut = s.find_first_of(",\n");  // the first clause names the library and its version
  return cut == std::string::npos ? s : s.substr(0, cut);
}

std::string version_text() {
  return std::string("dfft ") + DFFT_VERSION_STRING + " (" + mpi_library() + ")";
}

// Parse on every rank (all get the same argv) so every rank knows what to run, but let only
// rank 0 print help and parse errors.
int parse(CLI::App& app, int argc, char** argv, int rank, bool& done) {
  done = false;
  try {
    app.parse(argc, argv);
    return 0;
  } catch (const CLI::ParseError& e) {
    done = true;
    if (rank == 0) return app.exit(e);
    std::ostringstream sink;
    return app.exit(e, sink, sink);
  }
}

int dispatch(CLI::App& app, const std::vector<dfftapp::Command>& commands, int rank) {
  for (const auto& c : commands)
    if (c.app->parsed()) return c.run(MPI_COMM_WORLD);
  if (rank == 0) std::fputs(app.help().c_str(), stdout);  // no subcommand: show what exists
  return 0;
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
  app.footer("Run 'dfft <command> --help' for the options of a command.");
  std::vector<dfftapp::Command> commands;
  commands.push_back(dfftapp::make_bench_command(app));
  commands.push_back(dfftapp::make_accuracy_command(app));
  commands.push_back(dfftapp::make_transform_command(app));
  commands.push_back(dfftapp::make_tune_command(app));
  commands.push_back(dfftapp::make_model_command(app));

  bool done = false;
  int rc = parse(app, argc, argv, rank, done);
  if (!done) {
    try {
      rc = dispatch(app, commands, rank);
    } catch (const std::exception& e) {
      // Other ranks may be inside a collective we will never reach; stop them all.
      std::fprintf(stderr, "dfft: rank %d: %s\n", rank, e.what());
      std::fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (MPI_Finalize() != MPI_SUCCESS && rc == 0) {
    std::fputs("dfft: MPI_Finalize failed\n", stderr);
    rc = 1;
  }
  return rc;
}
