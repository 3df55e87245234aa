// SPDX-License-Identifier: MIT
// Performance models of distributed FFTs (docs/models.md):
//  - analytic: the slab-vs-pencil communication model of Egger's thesis (section 2.5.3),
//    generalised to every stage of a plan's path, with latency and bandwidth per communicator
//    size, local FFT flop rates and pack throughput measured on this machine (calibrate());
//  - power law (Orozco et al.): T_N(P) = A_N * P^-B_N, fitted by least squares in log space.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "dfft/types.hpp"

namespace dfft::model {

/// Cost of sending d bytes to one peer: latency + d / bandwidth (thesis 2.5.3).
struct Link {
  int size = 2;          // communicator size it was measured on
  double latency = 0;    // seconds
  double bandwidth = 0;  // bytes per second
};

/// Machine parameters for the analytic model, measured with `ranks` processes.
struct Calibration {
  int ranks = 1;
  std::string backend = "cpu", device, host, timestamp;
  bool measured = false;  // false: the built-in placeholder constants (not a measurement)
  /// Two ranks ping-ponging while the others wait (thesis L and B): ranks 0 and 1, so the same
  /// numbers as the link class of that pair.
  Link pingpong;
  /// Per link class, ping-pong between the first two ranks (in rank order) on one node (intra)
  /// and the first two on different nodes (inter) of the layout calibrate ran on, `nodes`
  /// nodes, emulated or real. Bandwidth 0: not measured (all ranks on one node leave inter
  /// unmeasured, one rank per node intra; calibrations made before the classes existed leave
  /// both); link(m, size, inter) then falls back to the per-size and per-method links.
  Link intra, inter;
  int nodes = 1;
  bool emulated_nodes = false;  // inter then measured the same physical link as intra
  /// MPI_Alltoall in concurrent groups of `size` ranks (every divisor >= 2 of `ranks`), as the
  /// sub-communicators of a plan exchange at the same time; latency and bandwidth per peer.
  std::vector<Link> alltoall;
  /// Local FFT flop rate (FFTW convention, 5 n log2 n per complex transform) of 1-D batches
  /// of an n^3 array along its last (contiguous), middle and first (strided) axis; [0] double,
  /// [1] float. An axis of a plan's FFT step uses the rate of its position in the memory order.
  double fft_contiguous[2] = {0, 0}, fft_middle[2] = {0, 0}, fft_strided[2] = {0, 0};
  /// Strided box copies (pack, unpack, local block), bytes read per second.
  double pack_rate = 0;
  /// Per redistribution method: latency and bandwidth per peer of a dfft exchange run by that
  /// method's transport on all `ranks` (a block pattern that needs no packing), so the link is
  /// what the method achieves (NCCL or CUDA IPC on GPUs, host staging, MPI datatypes...), not
  /// what plain MPI does. Empty in calibrations made before it existed.
  struct MethodLink {
    Method method = Method::a2a_sync;
    Link link;
  };
  std::vector<MethodLink> method_links;
  /// Facts of the run, not of the calibration (set by the plan, not stored): the cores a rank may
  /// use (its affinity mask, or its share of an unbound node) and whether ranks share a GPU.
  /// They decide whether pipelines hide time: an overlapped FFT needs a core (or, on a GPU, the
  /// copy engines of a GPU of its own) beside the one that runs the communication.
  int cores = 1;
  bool shared_gpu = false;

  /// Placeholder constants for machines without a calibration (docs/models.md lists them).
  static Calibration defaults(int ranks);
  /// Built-in constants of a device class, for the automatic choice on a machine without a
  /// calibration (docs/models.md lists them; not a measurement of this machine): a CPU node, or
  /// NVLink-connected data-centre GPUs (H100/H200 class). `shared_gpu`: ranks share one GPU
  /// (cuda-ipc then copies inside one GPU's memory); `cuda_aware`: the MPI methods hand device
  /// memory to MPI instead of staging through the host.
  static Calibration builtin(Backend backend, int ranks, bool shared_gpu, bool cuda_aware);
  /// Link parameters for exchanges within a communicator of `size` ranks: the all-to-all
  /// measurement of that size, else the nearest size measured, else the ping-pong.
  Link link(int size) const;
  /// The link of `m` measured on `size` ranks; else (only full-communicator links are measured,
  /// a pencil's sub-communicators are smaller) on the CPU the all-to-all of `size` ranks, on a GPU
  /// the link of `m` on the nearest size; else link(size).
  Link link(Method m, int size) const;
  /// link(m, size) for a message inside a node (inter_node false) or between nodes: its latency
  /// scaled by the class's latency over the ping-pong's, its bandwidth likewise, so that a
  /// measured class carries the method's and the communicator size's contention over to its
  /// wire. A class not measured leaves link(m, size) as it is.
  Link link(Method m, int size, bool inter_node) const;
};

struct CalibrateSettings {
  int reps = 15;            // repetitions per micro-benchmark (median taken)
  std::int64_t fft_n = 64;  // FFT and pack benchmarks use an fft_n^3 complex array per rank
  int device = -1;          // CUDA backend: device ordinal (-1: local rank modulo devices)
  /// Nodes as Options::ranks_per_node; empty: DFFT_RANKS_PER_NODE, else the real nodes.
  std::vector<int> ranks_per_node;
  /// Called on every rank after each micro-benchmark: `done` of `total` of them and the next
  /// one. Empty: nothing is called (the library never prints).
  std::function<void(double done, double total, const std::string& what)> progress;
};

/// Run the micro-benchmarks; collective over `comm`; same result on every rank.
Calibration calibrate(MPI_Comm comm, Backend backend, const CalibrateSettings& s = {});

struct Phases {
  double fft = 0, pack = 0, comm = 0, unpack = 0;
  /// Seconds the pipelines hide: chunks of an exchange packed while others move
  /// (Options::chunks), slices of an FFT transformed while others are exchanged
  /// (Options::overlap). The phases are busy times; the stage takes their sum less this.
  double hidden = 0;
  double total() const { return fft + pack + comm + unpack - hidden; }
};

struct StagePrediction {
  std::string name;           // "fft(1,2)", "exchange1"
  Phases t;                   // seconds, the slowest rank of this stage
  std::int64_t bytes = 0;     // exchanges: bytes sent to other ranks, max over ranks
  int peers = 0;              // exchanges: ranks messaged, max over ranks
  int comm_size = 1;          // exchanges: members of the sub-communicator
};

struct Prediction {
  std::vector<StagePrediction> stages;  // in path order (forward transform)
  Phases total;                         // sum of the stage predictions
  std::vector<int> grid;
};

/// Analytic prediction of one forward transform (the inverse walks the same path) of a plan
/// with these options on `ranks` processes. Evaluates the plan's path (the same blocks that
/// Plan::exchange_bytes() counts) for every rank (up to 64; beyond, the first and last 32),
/// without MPI. Each message is charged the link of its class (Calibration::link(m, size,
/// inter)): `node` gives the node of each of the `ranks` ranks; empty: the emulated layout a
/// plan would take (opt.ranks_per_node, else DFFT_RANKS_PER_NODE), else one node. A pencil
/// without opt.grid gets the grid order a plan on those nodes picks. Throws dfft::Error (call
/// "plan") for options the planner rejects.
Prediction predict(const Calibration& c, const std::vector<std::int64_t>& shape, const Options& opt,
                   int ranks, bool is_double, const std::vector<int>& node = {});

/// Collective over comm: the node of each of its ranks as a plan with these ranks_per_node
/// would see it (docs/nodes.md): emulated, else detected.
std::vector<int> node_layout(MPI_Comm comm, const std::vector<int>& ranks_per_node);

/// Thesis 2.5.3: pencil communicates faster than slab iff P^2 / M > 2s / (L B), with M the
/// number of complex elements exchanged (N^3 for a complex N^3 cube; N^2 (N/2+1) for r2c) and
/// s the bytes of one real. `crossover_elements` is the M where both sides are equal.
struct Crossover {
  double lhs = 0, rhs = 0;
  bool pencil_faster = false;
  double crossover_elements = 0;
};
Crossover slab_pencil_crossover(double complex_elements, int ranks, bool is_double, const Link& l);

/// T(P) = A * P^-B. r2 is the coefficient of determination of the fit in log space.
struct PowerLaw {
  double A = std::numeric_limits<double>::quiet_NaN();
  double B = std::numeric_limits<double>::quiet_NaN();
  double r2 = std::numeric_limits<double>::quiet_NaN();
  int points = 0;
  bool valid() const { return points >= 2; }
  double operator()(double P) const;
};
/// Least squares of log T = log A - B log P. Needs at least two distinct P with T > 0 (else an
/// invalid fit, points < 2).
PowerLaw fit_power_law(const std::vector<double>& ranks, const std::vector<double>& times);

/// A cluster of GPU (or CPU) nodes described by its links, for predictions past the machines at
/// hand (docs/models.md, "Predictions for clusters"; files in benchmarks/machines/clusters/).
struct Cluster {
  std::string name, description;
  int gpus_per_node = 1;
  Link intra, inter;            // per GPU: within a node (NVLink) and between nodes (network)
  double fft_rate[2] = {0, 0};  // flop/s of a local transform (5 n log2 n convention); [0] double
  double pack_rate = 0;         // bytes packed (read and written) per second
  double gpu_memory = 0;        // bytes per GPU; 0: not checked
  std::string fft_source, pack_source, link_source;  // where each number comes from
  bool fft_assumed = false, pack_assumed = false, link_assumed = false;
};
/// Parse a cluster description (docs/models.md gives the format); throws dfft::Error naming the
/// field on bad input.
Cluster cluster_from_json(const std::string& text);

/// How an exchange crosses nodes: flat (every rank messages every peer itself) or node-aware
/// (messages between two nodes aggregated into one, spread over the node's network links, the
/// data gathered to and scattered from the sending GPU over the intra-node link, overlapped).
enum class NodeExchange { flat, node_aware };

/// One all-to-all exchange in sub-communicators of `size` ranks whose members are `stride`
/// ranks apart (rank r on node r / gpus_per_node), as seen by rank 0; per rank.
struct ExchangeCost {
  int size = 1, local = 1;  // members, members on rank 0's node (itself included)
  int remote_nodes = 0;     // other nodes rank 0's node sends to (all its ranks together)
  double intra_messages = 0, intra_bytes = 0, inter_messages = 0, inter_bytes = 0;
  double intra = 0, inter = 0;  // seconds on each link; the exchange takes the larger
  double latency = 0;           // seconds of intra + inter spent in per-message latency
};
ExchangeCost cluster_exchange(const Cluster& c, int ranks, int size, int stride, double bytes_per_rank,
                              NodeExchange how);

struct ClusterPrediction {
  bool possible = false;
  std::string why;        // why not possible
  std::vector<int> grid;  // {P} slab, {P1, P2} pencil (rank = i * P2 + j)
  double fft = 0, pack = 0, intra = 0, inter = 0, comm = 0;  // seconds; comm = sum of max(intra, inter)
  double memory = 0;      // bytes per GPU: the array and one exchange buffer
  std::vector<ExchangeCost> exchanges;
  double total() const { return fft + pack + comm; }
};
/// One forward transform of a complex (c2c) or real (r2c) n^3 cube on `gpus` GPUs of cluster
/// `c`, slab (one exchange among all) or pencil (grid P1 x P2, an exchange in rows then one in
/// columns). An empty `grid` takes the fastest pencil grid with both dimensions >= 2.
ClusterPrediction predict_cluster(const Cluster& c, std::int64_t n, int gpus, bool is_double, bool r2c,
                                  bool pencil, NodeExchange how, std::vector<int> grid = {});

/// Calibrations as stored in a wisdom file ("calibrations" array, docs/models.md).
std::string to_json(const Calibration& c);  // one JSON object
Calibration calibration_from_json(const std::string& object_text);  // throws dfft::Error

}  // namespace dfft::model
