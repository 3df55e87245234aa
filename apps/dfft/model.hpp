// SPDX-License-Identifier: MIT
// `dfft model`: calibrate | fit | check | cluster (docs/models.md). model.cpp holds calibrate,
// model_results.cpp the subcommands that read result files, model_cluster.cpp cluster.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "dfft/model.hpp"
#include "dfft/tune.hpp"

namespace dfftapp {

struct ModelArgs {
  static std::string default_file() {
    const std::string f = dfft::default_wisdom_file();
    return f.empty() ? "dfft-wisdom.json" : f;  // no cache directory known: the working one
  }
  // calibrate
  // The machine's default wisdom file, which plans read their calibration from.
  std::string backend = "cpu", file = default_file();
  bool file_given = false;  // check: --calibration named on the command line
  int reps = 15, fft_n = 0;  // fft_n 0: 64 on CPUs, 256 on GPUs
  int progress = 0;  // calibrate: >0 --progress, <0 --no-progress, 0: on a terminal
  // fit / check
  std::vector<std::string> results;
  std::vector<double> predict_at{8, 16, 32, 64};
  bool fit_calibration = false;  // check: fit the analytic model's parameters to the records
  // cluster
  std::string machine;
  std::vector<int> gpus{8, 64, 512};
  std::vector<std::int64_t> cubes{2048, 4096};
  std::vector<std::string> precisions{"float", "double"}, transforms{"c2c", "r2c"};
  OptionValues options;  // the table's flags (calibrate: --backend, cluster: --transform), by field name
};

int run_model_fit(const ModelArgs& a, MPI_Comm comm);
int run_model_check(const ModelArgs& a, MPI_Comm comm);
int run_model_cluster(const ModelArgs& a, MPI_Comm comm);

/// Calibrations stored in a wisdom file (rank 0 reads, everyone gets them). A file that is
/// missing although `given`, not a regular file, unreadable or malformed throws InputError on
/// every rank; the default file not made yet gives none, with `why` saying so.
std::vector<dfft::model::Calibration> read_calibrations(const std::string& file, bool given, MPI_Comm comm,
                                                        std::string& why);
/// Prints a calibration's links, FFT and pack rates (calibrate, tune --mode heuristic).
void print_calibration(const dfft::model::Calibration& c);
/// The calibration measured with `ranks` ranks on `backend`, if the file has one.
const dfft::model::Calibration* find_calibration(const std::vector<dfft::model::Calibration>& cs,
                                                 int ranks, const std::string& backend);

}  // namespace dfftapp
