// SPDX-License-Identifier: MIT
// `dfft options`: the plan options of the library's table (dfft/option_fields.hpp) as JSON, for
// programs that read records or write cases files (tools/option_fields.json is this output).
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli_common.hpp"
#include "command.hpp"
#include "dfft/option_fields.hpp"

namespace dfftapp {

Command make_options_command(CLI::App& parent) {
  CLI::App* c = parent.add_subcommand(
      "options", "Print the plan options (name, group, type, allowed values, default, flag, wisdom key, C member) "
                 "as JSON (docs/options.md)");
  return {c, [](MPI_Comm comm) -> int {
            int rank = 0;
            MPI_Comm_rank(comm, &rank);
            if (rank == 0) std::fputs(dfft::option_fields_json().c_str(), stdout);
            return exit_ok;
          }};
}

}  // namespace dfftapp
