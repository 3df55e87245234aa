// SPDX-License-Identifier: MIT
// `dfft model calibrate | fit | check | cluster` (docs/models.md): registration and calibrate.
// fit and check (result files) are in model_results.cpp, cluster in model_cluster.cpp; the
// model's ranking of the candidate plans is `dfft tune --mode heuristic` (tune.cpp).
#include "model.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>

#include "bench.hpp"
#include "command.hpp"
#include "dfft/dfft.hpp"
#include "dfft/io.hpp"
#include "dfft/tune.hpp"
#include "mpi_check.hpp"
#include "output_target.hpp"
#include "progress.hpp"

namespace dfftapp {

void print_calibration(const dfft::model::Calibration& c) {
  std::printf("calibration: %d rank%s, %s, %s, host %s, %s\n", c.ranks, c.ranks == 1 ? "" : "s",
              c.backend.c_str(), c.device.c_str(), c.host.c_str(), c.timestamp.c_str());
  if (c.ranks >= 2) {
    std::printf("  ping-pong (ranks 0 and 1):  latency %8.2f us  bandwidth %8.3f GB/s\n",
                c.pingpong.latency * 1e6, c.pingpong.bandwidth * 1e-9);
    const bool both = c.intra.bandwidth > 0 && c.inter.bandwidth > 0;
    std::printf("  nodes: %d%s\n", c.nodes,
                !c.emulated_nodes ? ""
                : both ? " (emulated: inter-node measured the same physical link as intra-node)"
                       : " (emulated)");
    for (auto [name, l] : {std::pair{"intra", &c.intra}, std::pair{"inter", &c.inter}}) {
      if (l->bandwidth > 0)
        std::printf("  %s-node ping-pong:       latency %8.2f us  bandwidth %8.3f GB/s\n", name,
                    l->latency * 1e6, l->bandwidth * 1e-9);
      else
        std::printf("  %s-node ping-pong:       not measured (no two such ranks): the links below\n",
                    name);
    }
  }
  for (const auto& l : c.alltoall)
    std::printf("  all-to-all, groups of %3d:  latency %8.2f us  bandwidth %8.3f GB/s per peer\n",
                l.size, l.latency * 1e6, l.bandwidth * 1e-9);
  std::printf("  FFT GFlop/s (contiguous / middle / strided axis): double %.2f / %.2f / %.2f, float %.2f / %.2f / "
              "%.2f\n", c.fft_contiguous[0] * 1e-9, c.fft_middle[0] * 1e-9, c.fft_strided[0] * 1e-9,
              c.fft_contiguous[1] * 1e-9, c.fft_middle[1] * 1e-9, c.fft_strided[1] * 1e-9);
  std::printf("  pack (strided box copy): %.3f GB/s\n", c.pack_rate * 1e-9);
  for (const auto& m : c.method_links)
    std::printf("  exchange by %-13s %3d ranks: latency %8.2f us  bandwidth %8.3f GB/s per peer\n",
                dfft::to_string(m.method).c_str(), m.link.size, m.link.latency * 1e6,
                m.link.bandwidth * 1e-9);
}

namespace {

int run_calibrate(const ModelArgs& a, MPI_Comm comm) {
  int rank = 0;
  APP_MPI(MPI_Comm_rank(comm, &rank));
  // Refuse before measuring a path that may not be written, or a file that is not a wisdom file.
  dfft::Wisdom w = check_wisdom_target(a.file, comm);
  dfft::model::CalibrateSettings s;
  s.reps = a.reps;
  // A GPU needs a larger array than a CPU core before launch overheads stop dominating the rate.
  s.fft_n = a.fft_n > 0 ? a.fft_n : a.backend == "cuda" ? 256 : 64;
  Progress progress("dfft model calibrate", rank == 0 && progress_wanted(a.progress));
  s.progress = [&](double done, double total, const std::string& what) { progress.update(done, total, what); };
  auto c = dfft::model::calibrate(comm, dfft::parse_backend(a.backend), s);
  return on_rank0(comm, "dfft model calibrate", [&] {
    print_calibration(c);
    std::erase_if(w.calibrations, [&](const dfft::model::Calibration& x) {
      return x.ranks == c.ranks && x.backend == c.backend && x.device == c.device;
    });
    w.calibrations.push_back(c);
    OutputFile out;
    std::string refusal;
    if (!out.open(a.file, refusal)) throw CliError(refusal, exit_failure);
    out.write(dfft::to_json(w));
    if (!out.commit()) throw CliError(out.error(), exit_failure);
    std::printf("calibration stored in %s\n", a.file.c_str());
    return exit_ok;
  });
}

}  // namespace

std::vector<dfft::model::Calibration> read_calibrations(const std::string& file, bool given, MPI_Comm comm,
                                                        std::string& why) {
  int absent = 0;
  int rank = 0;
  APP_MPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) absent = !given && ::access(file.c_str(), F_OK) != 0;
  APP_MPI(MPI_Bcast(&absent, 1, MPI_INT, 0, comm));
  if (absent) {  // the default file, not made yet: the caller says so
    why = "no file " + file;
    return {};
  }
  const std::string text = read_input(file, "calibration file", comm);
  try {
    return dfft::parse_wisdom(text).calibrations;
  } catch (const dfft::Error& e) {
    throw InputError(file + ": " + message_of(e));
  }
}

const dfft::model::Calibration* find_calibration(const std::vector<dfft::model::Calibration>& cs, int ranks,
                                                 const std::string& backend) {
  const dfft::model::Calibration* hit = nullptr;
  for (const auto& c : cs)
    if (c.ranks == ranks && c.backend == backend) hit = &c;  // the newest stored last
  return hit;
}

Command make_model_command(CLI::App& parent) {
  auto a = std::make_shared<ModelArgs>();
  CLI::App* m = parent.add_subcommand("model", "Performance models: calibrate, fit, check, cluster (docs/models.md)");
  m->require_subcommand(1);
  auto* cal = m->add_subcommand("calibrate", "Measure latency/bandwidth per link class and communicator size, FFT and pack "
                                             "rates; store them in the wisdom file");
  auto* fit = m->add_subcommand("fit", "Fit T(P) = A P^-B per size and configuration to dfft bench --json records");
  auto* chk = m->add_subcommand("check", "Predicted (both models) vs measured times of dfft bench --json records");
  auto* clu = m->add_subcommand("cluster", "Predict slab/pencil, flat/node-aware exchanges on a described cluster");
  clu->add_option("--machine", a->machine, "Cluster description (benchmarks/machines/clusters/*.json)")->required();
  clu->add_option("--gpus", a->gpus, "GPU counts")->delimiter(',')->check(CLI::PositiveNumber)->capture_default_str();
  clu->add_option("--size", a->cubes, "Cube edges N (N^3)")->delimiter(',')->check(CLI::Range(2, 1 << 20))->capture_default_str();
  clu->add_option("--precision", a->precisions)->delimiter(',')->check(CLI::IsMember({"double", "float"}))->capture_default_str();
  chk->add_flag("--fit-calibration", a->fit_calibration,
                "Fit the analytic model's rates to the records themselves instead of a stored calibration");
  cal->add_option("--file,--calibration", a->file, "Wisdom file holding the calibrations")->capture_default_str();
  chk->add_option("--calibration", a->file, "Wisdom file holding the calibrations")->capture_default_str();
  cal->add_option("--reps", a->reps, "Repetitions per micro-benchmark")->check(at_least(1, "an integer >= 1"))->capture_default_str();
  cal->add_flag("--progress,!--no-progress", a->progress, "Progress lines on stderr (default: when stderr is a terminal)");
  cal->add_option("--fft-n", a->fft_n, "FFT/pack benchmarks use an N^3 array (default 64, 256 with --backend cuda)")->check(CLI::Range(2, 1024));
  for (auto* c : {fit, chk}) c->add_option("results", a->results, "dfft bench --json files (JSON lines)")->required();
  fit->add_option("--predict", a->predict_at, "Rank counts to predict")->delimiter(',')->capture_default_str();
  // The table's flags of the fields these subcommands take: the model covers r2c and c2c.
  add_plan_option_flags(clu, a->options, {{"transform", FlagUse().just({"r2c", "c2c"}).defaults_to("c2c,r2c")}}, {"transform"});
  add_plan_option_flags(cal, a->options, {}, {"backend"});
  const Command predict = make_moved_command(*m, "predict", "dfft tune --mode heuristic");
  auto run = [a, cal, fit, chk, clu, predict](MPI_Comm comm) {
    if (chk->parsed()) a->file_given = chk->count("--calibration") > 0;
    if (option_given(a->options, "transform")) a->transforms = a->options.at("transform");
    if (option_given(a->options, "backend")) a->backend = a->options.at("backend").back();
    if (cal->parsed()) return run_calibrate(*a, comm);
    if (clu->parsed()) return run_model_cluster(*a, comm);
    if (predict.app->parsed()) return predict.run(comm);
    if (fit->parsed()) return run_model_fit(*a, comm);
    return run_model_check(*a, comm);
  };
  return {m, run};
}

}  // namespace dfftapp
