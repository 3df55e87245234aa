// SPDX-License-Identifier: MIT
// The automatic choice of a plan's decomposition, grid, variant, methods, chunks and overlap
// (Options fields left automatic), made when the plan is made, without timed runs: the facts
// a plan can know about its ranks and GPUs rule candidates in or out, and the analytic model
// (src/model/analytic.cpp) with this machine's calibration ranks the rest.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "dfft/model.hpp"
#include "dfft/types.hpp"
#include "transport/topology.hpp"

namespace dfft::detail {

/// What the plan knows of where it runs (collective to gather; the same on every rank).
struct MachineFacts {
  Backend backend = Backend::cpu;
  int ranks = 1;
  std::vector<int> node;      // node of each rank (the plan's topology: detected or emulated)
  bool emulated_nodes = false;
  // CUDA backend:
  bool shared_gpu = false;    // two ranks use one GPU: nccl refuses them
  bool ipc = false;           // cuda-ipc can run: one memory node, peer access, IPC events
  bool ipc_in_node = false;   // peer access and IPC events among the GPUs of each node
  bool nccl = false;          // built with NCCL and no GPU shared
  bool cuda_aware = false;    // the MPI methods would hand device memory to MPI
  // CPU backend: the cores the rank may use (its affinity mask, or its share of an unbound
  // node), so whether a communication thread can run beside the FFT.
  int cores = 1;
  // MPI provides MPI_THREAD_SERIALIZED or more: a communication thread (overlap) may run.
  bool mpi_threads = true;
  int nodes() const;
};

/// The facts of the ranks of comm and their GPUs (collective): backend and ranks from `opt`, the
/// nodes from `topo`; on the CUDA backend each rank's GPU `gpu_ordinal` must be active. The plan's
/// automatic choice and the tuner gather them here alike.
MachineFacts machine_facts(MPI_Comm comm, const Options& opt, const Topology& topo, int gpu_ordinal);

/// Chunks per block for the chunked methods where nothing decides them (a plan the model cannot
/// rank, the calibration's exchanges): the value the pipelined transports were first measured
/// best at (docs/pipelined.md).
constexpr int kDefaultChunks = 4;
/// The chunk counts the tuner and the model weigh for a chunked method, fewest first (a tie of
/// the model's predictions takes the first).
constexpr int kChunkChoices[] = {1, kDefaultChunks};
/// The FFT/exchange overlap the tuner and the model weigh against none (Options::overlap).
constexpr int kOverlapChoice = 4;

/// Relative difference of two predictions below which the model cannot tell them apart.
constexpr double kModelTie = 0.02;

/// One ranked candidate of the choice.
struct AutoCandidate {
  Options options;
  std::string label;  // tune_label()
  double predicted = 0;  // seconds per forward transform (the model's)
  int order = 0;         // place in the candidate list (ties go to the earlier)
};

struct AutoChoice {
  bool made = false;           // false: nothing was left automatic
  Options chosen;              // every automatic field resolved
  std::vector<AutoCandidate> ranked;  // usable candidates, best first
  int tied = 0;  // how many leading ranked ones the model cannot tell apart (the first is taken)
  std::vector<std::string> ruled_out; // "nccl: two ranks share a GPU", ...
  std::vector<std::string> pipelines;  // why these chunks and this overlap ("overlap 1: ...")
  std::string calibration;     // where the model's constants came from
  std::string note;            // what chose instead of the model (one rank, nothing predicted)
  std::vector<std::string> warnings;
  /// Taken from a tuned wisdom entry (the model was not asked): the file, and the entry's
  /// measured seconds per forward+inverse pair. Empty: the model's choice.
  std::string wisdom_file;
  double wisdom_seconds = 0;
  /// What describe() prints: the choice, the facts, the top three with their predictions.
  std::string describe() const;
};

/// True when any of decomposition, variant, methods, chunks, overlap is left automatic.
bool has_automatic(const Options& o);

/// The values automatic chunks and overlap take where no candidate decides them (the tuner's
/// candidates start from these).
Options with_fixed_defaults(Options o);

/// Why nothing can run beside a rank's FFT with these constants and options (one core per rank,
/// a shared GPU), or empty: then the model weighs overlap by its predictions (src/model).
std::string overlap_blocked(const model::Calibration& c, const Options& opt);

/// The pure part (no MPI): rank the candidates that `facts` allow with `cal`, keep the fields the
/// caller set. Throws InvalidArgument when an explicit field leaves no candidate the planner can
/// build (e.g. a pencil grid the array cannot be cut into), naming the field.
AutoChoice choose_automatic(const MachineFacts& facts, const std::vector<std::int64_t>& shape,
                            const Options& opt, bool is_double, const model::Calibration& cal);

/// The calibration the choice uses (collective): the matching one of the wisdom file
/// (Options::wisdom_file, else the machine's default wisdom file if it exists), else the
/// built-in constants of the device class. `source` says which; a file that is unreadable,
/// corrupt or made on another machine adds one warning and is not used.
model::Calibration machine_calibration(MPI_Comm comm, const MachineFacts& facts, const Options& opt,
                                       std::string& source, std::vector<std::string>& warnings);

/// The machine's default wisdom file (tuning entries and calibrations): $DFFT_WISDOM when it names
/// a file, none when it is `off`, else dfft-wisdom-<host>.json in the directory of the FFTW wisdom
/// files (Options::fftw_wisdom_dir, $DFFT_WISDOM_DIR, $XDG_CACHE_HOME/dfft, ~/.cache/dfft); empty
/// when there is none.
std::string default_wisdom_file(const Options& opt);

/// The wisdom file a plan or the tuner uses: Options::wisdom_file, none for `off`, the default
/// file for empty; empty when none.
std::string wisdom_path(const Options& opt);
/// True when wisdom_path(opt) is the default file rather than one the caller named.
bool wisdom_is_default(const Options& opt);
/// The value of Options::wisdom_file and DFFT_WISDOM that turns wisdom off.
constexpr const char* kWisdomOff = "off";

/// A tuned entry of the wisdom file for this problem, for a plan whose decomposition, variant,
/// methods, chunks or overlap are left automatic (collective). Taken only when it is complete (not
/// cut short by a time budget), valid for these ranks, and agrees with every field the caller set;
/// otherwise nothing, with a warning where an entry was there but not usable.
bool choose_from_wisdom(MPI_Comm comm, const MachineFacts& facts, const std::vector<std::int64_t>& shape,
                        const Options& opt, bool is_double, AutoChoice& out);

}  // namespace dfft::detail
