// SPDX-License-Identifier: MIT
// `dfft model cluster`: predictions for a cluster description (docs/models.md, "Predictions for
// clusters"). Rank 0 prints; nothing is measured.
#include <cstdio>
#include <string>

#include "cli_common.hpp"
#include "model.hpp"
#include "mpi_check.hpp"

namespace dfftapp {

namespace {

using dfft::model::ClusterPrediction;
using dfft::model::NodeExchange;

std::string num(double v, const char* fmt = "%.2f") {
  char b[48];
  std::snprintf(b, sizeof b, fmt, v);
  return b;
}

std::string label(bool assumed) { return assumed ? "assumed" : "measured"; }

void print_header(const dfft::model::Cluster& c, const std::string& file) {
  std::printf("PREDICTIONS of dfft's analytic model for cluster '%s' (%s), not measurements.\n", c.name.c_str(),
              file.c_str());
  if (!c.description.empty()) std::printf("%s\n", c.description.c_str());
  std::printf("\n- %d GPUs per node%s\n", c.gpus_per_node,
              c.gpu_memory > 0 ? (", " + num(c.gpu_memory * 1e-9, "%.0f") + " GB each").c_str() : "");
  std::printf("- links per GPU (%s): intra-node %s GB/s, %s us per message; inter-node %s GB/s, %s us per message; "
              "%s\n", label(c.link_assumed).c_str(), num(c.intra.bandwidth * 1e-9, "%g").c_str(),
              num(c.intra.latency * 1e6, "%g").c_str(), num(c.inter.bandwidth * 1e-9, "%g").c_str(),
              num(c.inter.latency * 1e6, "%g").c_str(), c.link_source.c_str());
  std::printf("- local FFT (%s): float %s TFlop/s, double %s TFlop/s; %s\n", label(c.fft_assumed).c_str(),
              num(c.fft_rate[1] * 1e-12).c_str(), num(c.fft_rate[0] * 1e-12).c_str(), c.fft_source.c_str());
  std::printf("- pack (%s): %s GB/s; %s\n", label(c.pack_assumed).c_str(), num(c.pack_rate * 1e-9, "%g").c_str(),
              c.pack_source.c_str());
  std::printf("\nOne forward transform of an N^3 cube, ms. total = fft + pack + the sum over exchanges of "
              "max(intra, inter) (the two links work at once); intra and inter are sums over the exchanges. "
              "inter msgs and MB: per GPU, all exchanges. memory: the array and one exchange buffer per GPU.\n\n");
  std::printf("| GPUs | N | precision | transform | decomposition | exchange | fft | pack | intra | inter | total | "
              "inter msgs | inter MB | memory GB |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
}

std::string grid_name(const ClusterPrediction& p, bool pencil) {
  if (!pencil) return "slab";
  if (p.grid.size() != 2) return "pencil";
  return "pencil " + std::to_string(p.grid[0]) + "x" + std::to_string(p.grid[1]);
}

void print_row(const std::string& head, const std::string& exchange, const ClusterPrediction& p, bool pencil,
               double gpu_memory) {
  if (!p.possible) {
    std::printf("| %s | %s | - | - | - | - | - | - | - | impossible: %s |\n", head.c_str(),
                pencil ? "pencil" : "slab", p.why.c_str());
    return;
  }
  double msgs = 0, mb = 0;
  for (const auto& e : p.exchanges) msgs += e.inter_messages, mb += e.inter_bytes * 1e-6;
  const std::string mem = num(p.memory * 1e-9, "%.1f") +
                          (gpu_memory > 0 && p.memory > gpu_memory ? " (does not fit)" : "");
  std::printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", head.c_str(), grid_name(p, pencil).c_str(),
              exchange.c_str(), num(p.fft * 1e3).c_str(), num(p.pack * 1e3).c_str(), num(p.intra * 1e3).c_str(),
              num(p.inter * 1e3).c_str(), num(p.total() * 1e3).c_str(), num(msgs, "%g").c_str(),
              num(mb, "%.0f").c_str(), mem.c_str());
}

void print_case(const dfft::model::Cluster& c, std::int64_t n, int P, bool is_double, bool r2c) {
  const std::string head = std::to_string(P) + " | " + std::to_string(n) + "^3 | " +
                           (is_double ? "double" : "float") + " | " + (r2c ? "r2c" : "c2c");
  const bool one_node = P <= c.gpus_per_node;
  for (bool pencil : {false, true}) {
    const auto flat = dfft::model::predict_cluster(c, n, P, is_double, r2c, pencil, NodeExchange::flat);
    if (one_node || !flat.possible) {
      print_row(head, "one node", flat, pencil, c.gpu_memory);
      continue;
    }
    for (auto how : {NodeExchange::flat, NodeExchange::node_aware})
      print_row(head, how == NodeExchange::flat ? "flat" : "node-aware",
                dfft::model::predict_cluster(c, n, P, is_double, r2c, pencil, how), pencil, c.gpu_memory);
  }
}

int cluster_report(const ModelArgs& a) {
  const std::string text = read_input_here(a.machine, "cluster description");
  dfft::model::Cluster c;
  try {
    c = dfft::model::cluster_from_json(text);
  } catch (const dfft::Error& e) {
    throw InputError(a.machine + ": " + message_of(e) + " (docs/models.md gives the format)");
  }
  print_header(c, a.machine);
  for (auto n : a.cubes)
    for (const auto& prec : a.precisions)
      for (const auto& t : a.transforms)
        for (int P : a.gpus) print_case(c, n, P, prec == "double", t == "r2c");
  return 0;
}

}  // namespace

int run_model_cluster(const ModelArgs& a, MPI_Comm comm) {
  return on_rank0(comm, "dfft model cluster", [&] { return cluster_report(a); });
}

}  // namespace dfftapp
