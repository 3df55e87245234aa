// SPDX-License-Identifier: MIT
#include "tune/automatic.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "backend/cpu/fftw_wisdom.hpp"
#include "backend/cpu/work_pool.hpp"
#include "backend/device.hpp"
#include "dfft/tune.hpp"
#include "model/machine.hpp"
#include "plan/path.hpp"
#include "transport/methods.hpp"
#include "transport/stage.hpp"
#include "tune/tuner.hpp"
#include "util/check.hpp"

namespace dfft::detail {

namespace {

bool host_staged(Method m, const MachineFacts& f) {
  const auto& i = method_info(m);
  return f.backend == Backend::cuda && !f.cuda_aware && i.buffers != MethodBuffers::device;
}

// Why the facts (or the options the caller set) rule method m out, or empty when they allow it.
std::string ruled_out_because(Method m, const MachineFacts& f, const Options& opt) {
  if ((opt.codec != Codec::none || opt.tolerance > 0) && !method_info(m).codec)
    return "a codec needs a method that packs every block";
  if (f.backend != Backend::cuda) return {};
  if (m == Method::nccl && f.shared_gpu) return "two ranks share a GPU";
  if (m == Method::nccl && !f.nccl) return "this dfft was built without NCCL";
  if (m == Method::cuda_ipc && !f.ipc)
    return f.nodes() > 1 ? "the ranks span several nodes" : "no peer access or IPC events between the GPUs";
  // per-peer moves device memory only with cuda-ipc inside each node and nccl across.
  if (m == Method::per_peer)
    return f.ipc_in_node && f.nccl ? std::string() : "it needs cuda-ipc inside each node and nccl across";
  // Every method that is not device-only stages through the host here, p2p-streams included.
  if (host_staged(m, f) && (f.ipc || f.nccl))
    return std::string("host-staged MPI (MPI is not CUDA-aware) where ") + (f.ipc ? "cuda-ipc" : "nccl") +
           " can run";
  return {};
}

// Why the chosen chunks and overlap (the fields the caller left open): the prediction of the
// same plan with the other value beside the chosen one's.
void explain_pipelines(AutoChoice& r, const Options& opt, const std::string& no_slices) {
  const AutoCandidate& best = r.ranked.front();
  auto twin = [&](auto change) -> const AutoCandidate* {
    Options o = best.options;
    change(o);
    const std::string label = tune_label(o);
    for (const auto& c : r.ranked)
      if (c.label == label) return &c;
    return nullptr;
  };
  auto line = [&](const std::string& field, int value, const AutoCandidate* other, int other_value,
                  const std::string& reason) {
    std::string s = field + " " + std::to_string(value) + ": predicted " + ms_text(best.predicted);
    if (other) s += " against " + ms_text(other->predicted) + " with " + std::to_string(other_value);
    if (!reason.empty()) s += " (" + reason + ")";
    r.pipelines.push_back(s);
  };
  const Options& b = best.options;
  if (opt.overlap == 0) {
    const int other = b.overlap == 1 ? kOverlapChoice : 1;
    line("overlap", b.overlap, twin([&](Options& o) { o.overlap = other; }), other, no_slices);
  }
  const bool chunked = std::any_of(b.methods.begin(), b.methods.end(), method_uses_chunks);
  if (opt.chunks == 0 && chunked) {
    const int other = b.chunks == kChunkChoices[0] ? kChunkChoices[1] : kChunkChoices[0];
    line("chunks", b.chunks, twin([&](Options& o) { o.chunks = other; }), other, {});
  }
}

}  // namespace

int MachineFacts::nodes() const {
  int n = 0;
  for (int v : node) n = std::max(n, v + 1);
  return std::max(n, 1);
}

MachineFacts machine_facts(MPI_Comm comm, const Options& opt, const Topology& topo, int gpu_ordinal) {
  MachineFacts f;
  DFFT_MPI(MPI_Comm_size(comm, &f.ranks));
  f.backend = opt.backend;
  f.node = topo.node;
  f.emulated_nodes = topo.emulated;
  if (opt.backend == Backend::cuda) {
    const GpuLinks g = gpu_links(comm, gpu_ordinal);
    f.shared_gpu = g.shared;
    f.ipc_in_node = g.peer_access && g.ipc_events;
    f.ipc = f.ipc_in_node && g.one_node && topo.nodes() == 1;
    f.nccl = g.nccl && !g.shared;
    f.cuda_aware = opt.staging == Staging::cuda_aware || (opt.staging == Staging::automatic && mpi_is_cuda_aware());
  } else {
    f.cores = resolve_threads(0, comm);
  }
  int provided = MPI_THREAD_SINGLE;
  DFFT_MPI(MPI_Query_thread(&provided));
  f.mpi_threads = provided >= MPI_THREAD_SERIALIZED;
  return f;
}

bool has_automatic(const Options& o) {
  return o.decomposition == Decomposition::automatic || o.variant == Variant::automatic ||
         o.methods.empty() || o.chunks == 0 || o.overlap == 0;
}

Options with_fixed_defaults(Options o) {
  if (o.chunks == 0) o.chunks = kDefaultChunks;
  // The plain plan is where the candidates with slices start from (the model then weighs them),
  // and what a plan the model cannot rank gets.
  if (o.overlap == 0) o.overlap = 1;
  return o;
}

AutoChoice choose_automatic(const MachineFacts& facts, const std::vector<std::int64_t>& shape,
                            const Options& opt, bool is_double, const model::Calibration& cal) {
  AutoChoice r;
  if (!has_automatic(opt)) {
    r.chosen = opt;
    return r;
  }
  r.made = true;
  const Options base = with_fixed_defaults(opt);
  if (facts.ranks == 1) {
    // Nothing is exchanged: every decomposition and method is the same local transform.
    Options o = base;
    if (o.decomposition == Decomposition::automatic) o.decomposition = Decomposition::slab_2d1d;
    if (o.variant == Variant::automatic) o.variant = Variant::Default;
    if (o.methods.empty()) o.methods = {tune_methods(facts.backend).front()};
    r.chosen = o;
    r.note = "one rank: nothing is exchanged, every decomposition and method is the same local transform";
    return r;
  }
  const int dims = static_cast<int>(shape.size());
  // Where nothing can run beside the FFT the slices only add their costs: not worth predicting
  // (they doubled the time of the choice on 16 ranks).
  const std::string no_slices = !facts.mpi_threads ? "MPI provides no MPI_THREAD_SERIALIZED for the communication thread"
                                                    : overlap_blocked(cal, base);
  const bool slices_hide = opt.overlap == 0 && no_slices.empty();
  // A grid or method list implies what it belongs to: {P1, P2} is a pencil grid, two methods
  // mean two exchanges. The candidates below honour both; nothing explicit is overridden.
  std::vector<Options> cands;
  for (auto o : tune_candidates(base, facts.ranks, dims, facts.nodes())) {
    if (opt.overlap != 0 && o.overlap != opt.overlap) continue;
    if (opt.overlap == 0 && o.overlap > 1 && !slices_hide) continue;
    if (opt.decomposition != Decomposition::automatic && o.decomposition != opt.decomposition) continue;
    if (opt.variant != Variant::automatic && o.variant != opt.variant) continue;
    auto add = [&](const Options& x) {
      if (std::none_of(cands.begin(), cands.end(), [&](const Options& c) { return tune_label(c) == tune_label(x); }))
        cands.push_back(x);
    };
    if (opt.methods.empty()) {
      if (o.methods.size() != 1) continue;  // one method for every exchange
    } else if (o.methods != opt.methods) {
      // The caller's methods on this shape: the chunk counts weighed as the tuner's candidates
      // of a chunked method have them (a candidate of another method carries the default).
      o.methods = opt.methods;
      if (opt.chunks == 0 && std::any_of(o.methods.begin(), o.methods.end(), method_uses_chunks)) {
        for (int c : kChunkChoices) {
          o.chunks = c;
          add(o);
        }
        continue;
      }
    }
    if (opt.chunks != 0) o.chunks = opt.chunks;
    add(o);
  }
  for (const auto& o : cands) {
    std::string why;
    for (Method m : o.methods)
      if (why.empty() && opt.methods.empty()) why = ruled_out_because(m, facts, opt);
    if (!why.empty()) {
      const std::string line = to_string(o.methods[0]) + ": " + why;
      if (std::find(r.ruled_out.begin(), r.ruled_out.end(), line) == r.ruled_out.end())
        r.ruled_out.push_back(line);
      continue;
    }
    try {
      const auto p = model::predict(cal, shape, o, facts.ranks, is_double, facts.node);
      const double t = p.total.total();
      if (std::isfinite(t)) r.ranked.push_back({o, tune_label(o), t, static_cast<int>(r.ranked.size())});
    } catch (const Error&) {
      // A candidate the planner refuses (too few planes for a slab, a grid too fine) is no
      // choice: the others decide.
    }
  }
  // Predictions closer than kModelTie are the same to the model; among them the candidate listed
  // first (slab before pencil, the default variant before realigned) is taken, so that a
  // rounding difference never decides.
  std::stable_sort(r.ranked.begin(), r.ranked.end(),
                   [](const AutoCandidate& a, const AutoCandidate& b) { return a.predicted < b.predicted; });
  if (!r.ranked.empty()) {
    const double limit = r.ranked.front().predicted * (1 + kModelTie);
    std::stable_partition(r.ranked.begin(), r.ranked.end(),
                          [&](const AutoCandidate& c) { return c.predicted <= limit; });
    const auto tied = std::find_if(r.ranked.begin(), r.ranked.end(),
                                   [&](const AutoCandidate& c) { return c.predicted > limit; });
    std::stable_sort(r.ranked.begin(), tied, [&](const AutoCandidate& a, const AutoCandidate& b) {
      return a.order < b.order;
    });
    r.tied = static_cast<int>(tied - r.ranked.begin());
  }
  if (r.ranked.empty()) {
    // Nothing left: explicit fields that no decomposition can satisfy. Build what was asked with
    // the old fixed choices for the rest, so that the planner names the offending field.
    Options o = base;
    if (o.decomposition == Decomposition::automatic)
      o.decomposition = opt.grid.size() >= 2 ? Decomposition::pencil : Decomposition::slab_2d1d;
    if (o.variant == Variant::automatic) o.variant = Variant::Default;
    if (o.methods.empty()) {
      for (Method m : tune_methods(facts.backend))
        if (ruled_out_because(m, facts, opt).empty()) {
          o.methods = {m};
          break;
        }
      if (o.methods.empty()) o.methods = {Method::a2a_sync};
    }
    r.chosen = o;
    // The model ranked nothing, so describe() must not credit it with the choice.
    r.note = "no candidate could be predicted: the fixed defaults for the fields left open";
    r.warnings.push_back("no candidate could be predicted; built " + tune_label(o));
    return r;
  }
  r.chosen = r.ranked.front().options;
  explain_pipelines(r, opt, no_slices);
  // A pencil grid the caller left open that is an ordering of the planner's own factors goes back
  // to the planner, which orders the factors by the nodes (node_aware_grid): the model's
  // prediction does not tell the orderings apart well enough to overrule it. Not a grid of one
  // exchange (every factor but one is 1): its ordering decides which axes the input and that
  // exchange split (P x 1 and 1 x P are different paths, which the model does tell apart), and
  // the nodes have no say, as the exchange spans every rank either way.
  const bool one_exchange =
      std::count_if(r.chosen.grid.begin(), r.chosen.grid.end(), [](int g) { return g > 1; }) <= 1;
  if (opt.grid.empty() && r.chosen.decomposition == Decomposition::pencil && !one_exchange) {
    auto mine = r.chosen.grid;
    auto planner = choose_grid(Decomposition::pencil, {}, facts.ranks, static_cast<int>(shape.size()));
    std::sort(mine.begin(), mine.end());
    std::sort(planner.begin(), planner.end());
    if (mine == planner) r.chosen.grid.clear();
  }
  return r;
}

std::string AutoChoice::describe() const {
  if (!made) return {};
  std::ostringstream s;
  if (!wisdom_file.empty()) {
    s << "automatic choice: " << tune_label(chosen) << " (from wisdom " << wisdom_file << ": tuned, "
      << ms_text(wisdom_seconds) << " per forward+inverse)\n";
    for (const auto& w : warnings) s << "  warning: " << w << "\n";
    return s.str();
  }
  s << "automatic choice: " << tune_label(chosen) << " ("
    << (note.empty() ? "predicted by the model with " + calibration : note) << ")\n";
  const std::size_t top = std::min<std::size_t>(3, ranked.size());
  for (std::size_t i = 0; i < top; ++i)
    s << "  " << i + 1 << ". " << ranked[i].label << ": predicted " << ms_text(ranked[i].predicted)
      << " per forward\n";
  if (ranked.size() > top) s << "  (" << ranked.size() - top << " more candidates)\n";
  for (const auto& w : pipelines) s << "  " << w << "\n";
  for (const auto& w : ruled_out) s << "  ruled out " << w << "\n";
  for (const auto& w : warnings) s << "  warning: " << w << "\n";
  return s.str();
}

std::string default_wisdom_file(const Options& opt) {
  // One variable names the file every dfft program and plan shares on this machine, or turns it
  // off (tests, a read-only home, a job that must not depend on earlier runs).
  const char* env = std::getenv("DFFT_WISDOM");
  if (env && *env) return std::string(env) == kWisdomOff ? std::string() : std::string(env);
  return machine_file(opt, "dfft-wisdom-", ".json");
}

std::string wisdom_path(const Options& opt) {
  if (opt.wisdom_file == kWisdomOff) return {};
  return opt.wisdom_file.empty() ? default_wisdom_file(opt) : opt.wisdom_file;
}

bool wisdom_is_default(const Options& opt) { return opt.wisdom_file.empty(); }

namespace {

// Rank 0 looks whether the file is there (collective): a default file that does not exist is the
// common case, not a warning.
bool file_exists(MPI_Comm comm, const std::string& file) {
  int exists = 0, rank = 0;
  DFFT_MPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0 && !file.empty()) {
    std::FILE* f = std::fopen(file.c_str(), "rb");
    exists = f != nullptr;
    if (f) std::fclose(f);
  }
  DFFT_MPI(MPI_Bcast(&exists, 1, MPI_INT, 0, comm));
  return exists != 0;
}

// Why a stored choice does not fit what the caller set, or "" when it does.
std::string disagrees(const WisdomEntry& e, const Options& opt) {
  if (opt.decomposition != Decomposition::automatic && opt.decomposition != e.decomposition)
    return "decomposition";
  if (opt.variant != Variant::automatic && opt.variant != e.variant) return "variant";
  if (!opt.methods.empty() && opt.methods != e.methods) return "methods";
  if (opt.chunks != 0 && opt.chunks != e.chunks) return "chunks";
  if (opt.overlap != 0 && opt.overlap != e.overlap) return "overlap";
  return {};
}

}  // namespace

bool choose_from_wisdom(MPI_Comm comm, const MachineFacts& facts, const std::vector<std::int64_t>& shape,
                        const Options& opt, bool is_double, AutoChoice& out) {
  const std::string file = wisdom_path(opt);
  if (file.empty() || !file_exists(comm, file)) return false;
  std::vector<std::string> notes;
  const Wisdom w = load_wisdom(file, comm, notes);  // a file that is not dfft wisdom throws
  if (w.entries.empty()) return false;
  const WisdomKey key = wisdom_key(comm, shape, opt, is_double);
  std::vector<std::string> lookup;
  const auto e = find_wisdom(w, key, opt, static_cast<int>(shape.size()), lookup);
  if (!e) {
    // Entries for other problems are what a shared file holds: only a broken entry for this
    // one is worth saying.
    for (const auto& l : lookup)
      if (l.find("none of the") == std::string::npos) out.warnings.push_back(l);
    return false;
  }
  if (e->partial()) {
    out.warnings.push_back("wisdom " + file + " holds a partial tuning of this problem (" + std::to_string(e->tried) +
                           " of " + std::to_string(e->of) + " candidates, cut by a time budget); the model "
                           "chooses until a tuning completes it (dfft tune)");
    return false;
  }
  if (auto field = disagrees(*e, opt); !field.empty()) {
    out.warnings.push_back("wisdom " + file + ": the tuned entry's " + field +
                           " differs from the one given; the model chooses the fields left automatic");
    return false;
  }
  for (Method m : e->methods)
    if (auto why = ruled_out_because(m, facts, opt); !why.empty()) {
      out.warnings.push_back("wisdom " + file + ": the tuned entry's method " + to_string(m) + " cannot run (" + why +
                             "); the model chooses");
      return false;
    }
  out.made = true;
  out.chosen = with_choice(opt, *e);
  out.wisdom_file = file;
  out.wisdom_seconds = e->seconds;
  return true;
}

model::Calibration machine_calibration(MPI_Comm comm, const MachineFacts& facts, const Options& opt,
                                       std::string& source, std::vector<std::string>& warnings) {
  // The facts of this run, which no stored calibration holds.
  const auto with_facts = [&](model::Calibration c) {
    c.cores = facts.cores;
    c.shared_gpu = facts.shared_gpu;
    return c;
  };
  const auto builtin = [&] {
    auto c = model::Calibration::builtin(facts.backend, facts.ranks, facts.shared_gpu, facts.cuda_aware);
    source = c.device + " constants";
    return with_facts(c);
  };
  const std::string file = wisdom_path(opt);
  // Only an existing default file is read; its absence is the common case, not a warning.
  if (file.empty() || (wisdom_is_default(opt) && !file_exists(comm, file))) return builtin();
  std::vector<std::string> notes;
  const Wisdom w = load_wisdom(file, comm, notes);
  if (w.calibrations.empty()) {
    if (!wisdom_is_default(opt) || !notes.empty())
      warnings.push_back(file + ": no calibration used" + (notes.empty() ? std::string() : " (" + notes.front() + ")"));
    return builtin();
  }
  const std::string device = device_model(comm, facts.backend, opt.device);
  const std::string host = broadcast_string(host_name(), comm);
  const model::Calibration* best = nullptr;
  for (const auto& c : w.calibrations)
    if (c.measured && c.ranks == facts.ranks && c.backend == to_string(facts.backend) && c.device == device &&
        (c.host.empty() || c.host == host))
      best = &c;
  if (!best) {
    warnings.push_back(file + " has no calibration for " + std::to_string(facts.ranks) + " ranks on " + device +
                       " of host " + host + " (dfft model calibrate makes one); using built-in constants");
    return builtin();
  }
  source = "calibration of " + file;
  return with_facts(*best);
}

}  // namespace dfft::detail

namespace dfft {
std::string default_wisdom_file() { return detail::default_wisdom_file(Options{}); }
}  // namespace dfft
