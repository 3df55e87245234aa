// SPDX-License-Identifier: MIT
// The analytic model: thesis section 2.5.3 (each message costs L + d/B) applied to every stage
// of a plan's path, plus local FFT flops over a measured flop rate and packed bytes over a
// measured copy rate. See docs/models.md for the formulas and what they leave out.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "dfft/model.hpp"
#include "exec/overlap.hpp"
#include "plan/path.hpp"
#include "transport/methods.hpp"
#include "transport/topology.hpp"
#include "tune/automatic.hpp"

namespace dfft::model {

using namespace dfft::detail;

namespace {

constexpr int kAllRanksUpTo = 64;  // beyond: the first and last 32 ranks (largest/smallest boxes)

int position(const std::vector<int>& order, int axis) {
  return static_cast<int>(std::find(order.begin(), order.end(), axis) - order.begin());
}

// The calibrated rate for an axis at memory position `pos` (0 slowest) of `dims`: contiguous for
// the fastest, middle for the next, strided for the rest. Of the input and output layouts the
// better position counts (FFTW's guru plans can read strided and write contiguously).
double rate_of(const Calibration& c, int prec, int pos, int dims) {
  if (pos >= dims - 1) return c.fft_contiguous[prec];
  if (pos == dims - 2) return c.fft_middle[prec];
  return c.fft_strided[prec];
}

// True when the step's axes are the fastest ones of `order` (a block at its end): a
// multi-dimensional plan (FFTW guru rank > 1, cuFFT rank-2/3) then transforms them together over
// contiguous data, and every one of them runs at the contiguous rate.
bool fastest_block(const std::vector<int>& axes, const std::vector<int>& order) {
  const std::size_t n = axes.size(), d = order.size();
  if (n < 2 || n > d) return false;
  for (std::size_t i = d - n; i < d; ++i)
    if (std::find(axes.begin(), axes.end(), order[i]) == axes.end()) return false;
  return true;
}

double fft_seconds(const FftStep& f, const Calibration& c, int prec, bool reals) {
  double t = 0;
  const bool in_block = fastest_block(f.axes, f.in.order), out_block = fastest_block(f.axes, f.out.order);
  const bool block = in_block || out_block;
  // A block read contiguously and written with its axes apart, or the reverse (the FFT beside
  // realigned's exchange), moves its data once more as a transpose does: one pass at the packing
  // rate. The 2-D r2c of 256^3 on 2 ranks took 16 ms more written apart than written as a block
  // (53 against 69 ms forward, 2-core machine), where a pass of its 68 MB at the built-in 4 GB/s
  // is 17 ms; without the pass the model chose realigned, the slower plan.
  if (in_block != out_block) {
    const double elem = (prec == 0 ? 8.0 : 4.0) * (f.r2c || !reals ? 2.0 : 1.0);
    t += static_cast<double>(f.out.box.count()) * elem / std::max(c.pack_rate, 1.0);
  }
  for (int a : f.axes) {
    const bool halved = f.r2c && a == f.axes.back();
    // The r2c axis works on real input of the full length; other axes on complex elements.
    const double n = static_cast<double>(halved ? f.in.box.extent(a) : f.out.box.extent(a));
    const bool real_axis = halved || reals || (!f.r2r.empty() && f.r2r[a] != R2R::none);
    const double count = static_cast<double>(halved ? f.in.box.count() : f.out.box.count());
    const double flops = (real_axis ? 2.5 : 5.0) * count * std::log2(std::max(n, 1.0));
    const int dims = static_cast<int>(f.in.order.size());
    const double rate = block ? c.fft_contiguous[prec]
                              : rate_of(c, prec, std::max(position(f.in.order, a), position(f.out.order, a)), dims);
    if (flops > 0) t += flops / std::max(rate, 1.0);
  }
  return t;
}

// Two engines side by side, one computing or packing (a seconds), one moving data (b seconds),
// the work cut in k pieces: the pipeline takes the longer engine's time plus the piece of the
// shorter one that nothing hides (the first pack or FFT slice, the last transfer).
double pipelined(double a, double b, int k) { return std::max(a, b) + std::min(a, b) / std::max(k, 1); }

// Built-in costs of FFT/exchange overlap (docs/models.md lists them; not measured per machine).
// Per slice: the hand-off to the communication thread and its wait (CPU), a stream wait and an
// event pair (GPU). At 512^3 on 2 GPUs 4 slices lost to the plain plan, at 1024^3 they won.
constexpr double kSliceSecondsCpu = 2e-5, kSliceSecondsGpu = 5e-5;
// A GPU's FFT slices share its memory with the exchange's copies: a slab's 2-D FFT took 1.22x its
// time beside them (3.91 -> 4.76 ms, 2 x H200, 1024^3 float, docs/results/overlap.md). Slices
// along a pencil's common axis are strided, and their cuFFT plans were 2-3x slower.
constexpr double kGpuOverlapFft = 1.22, kGpuOverlapStridedFft = 2.5;

// How much longer a sliced FFT takes beside the exchange than alone, or 0 where nothing can run
// beside it (`why` then says why). A CPU rank's communication thread needs a core: one the FFT
// does not use, else it takes one of the FFT's threads' cores; with one core per rank it
// shares the FFT's (overlapped plans were 0.95-1.58x the plain ones so, 2 ranks of one core
// each and 4 on a 32-core host; with a second core per rank 0.85-0.96x).
double overlap_fft_factor(const Calibration& c, const Options& opt, bool strided, std::string* why) {
  if (opt.backend == Backend::cuda) {
    if (c.shared_gpu) {
      if (why) *why = "ranks share a GPU, whose processes take turns";
      return 0;
    }
    return strided ? kGpuOverlapStridedFft : kGpuOverlapFft;
  }
  const int cores = std::max(c.cores, 1);
  const int threads = opt.threads > 0 ? opt.threads : cores;
  if (cores > threads) return 1;
  if (threads >= 2) return threads / (threads - 1.0);
  if (why) *why = "one core per rank, which the communication thread would take from the FFT";
  return 0;
}

// FFT/exchange overlap in K slices (docs/overlap.md) for one rank's stages of path p: each group
// the executor forms hides the shorter of its sliced FFTs and its exchange but one slice; the
// exchange pays each slice's hand-off and messages.
void add_overlap(std::vector<StagePrediction>& st, const Path& p, const Options& opt, const Calibration& c) {
  const int k = opt.overlap;
  if (k <= 1) return;
  const auto sched = oriented_steps(p, false);
  const bool gpu = opt.backend == Backend::cuda;
  const Link msg = c.pingpong.bandwidth > 0 ? c.pingpong : Calibration::defaults(c.ranks).pingpong;
  for (const GroupPlan& g : plan_groups(sched, MPI_COMM_NULL)) {
    auto& x = st[sched[g.x()].path_index];
    x.t.comm += k * (gpu ? kSliceSecondsGpu : kSliceSecondsCpu) + (k - 1) * x.peers * msg.latency;
    const double factor = overlap_fft_factor(c, opt, g.mode == GroupPlan::Mode::common, nullptr);
    if (factor == 0) continue;
    double sliced = 0;
    auto slice = [&](std::size_t i) {
      auto& f = st[sched[i].path_index].t;
      f.fft *= factor;
      sliced += f.fft;
    };
    if (g.has_pre && g.mode != GroupPlan::Mode::post) slice(g.first);
    if (g.has_post && g.mode != GroupPlan::Mode::pre) slice(g.last());
    const double xt = x.t.total();
    x.t.hidden += sliced + xt - pipelined(sliced, xt, k);
  }
}

// Seconds of the messages counted in t, each on the link of its class.
double message_seconds(const NodeTraffic& t, const Link& intra, const Link& inter) {
  return static_cast<double>(t.intra_node_messages) * intra.latency +
         static_cast<double>(t.intra_node_bytes) / std::max(intra.bandwidth, 1.0) +
         static_cast<double>(t.inter_node_messages) * inter.latency +
         static_cast<double>(t.inter_node_bytes) / std::max(inter.bandwidth, 1.0);
}

// `node`: the node of each member of the exchange's communicator (empty: one node).
StagePrediction exchange_stage(const ExchangeStep& e, Method m, const Options& opt,
                               const Calibration& c, bool is_double, const std::vector<int>& node) {
  ExchangeSpec s;
  s.src = e.src;
  s.dst = e.dst;
  s.me = e.me;
  s.node = node;
  const std::size_t cplx = is_double ? 16 : 8;
  s.elem = e.real ? cplx / 2 : cplx;
  s.codec = e.grid_dim < 0 ? Codec::none : opt.codec;
  s.is_double = is_double;
  Blocks b(s);
  StagePrediction st;
  st.comm_size = b.size();
  // One member with the same layout on both sides (a pencil grid dimension of 1): the executor
  // skips it.
  if (s.src.size() == 1 && s.src[0].box == s.dst[0].box && s.src[0].order == s.dst[0].order &&
      s.src[0].strides() == s.dst[0].strides())
    return st;
  const double pr = std::max(c.pack_rate, 1.0);
  const bool gpu = opt.backend == Backend::cuda;
  double pack = 0, unpack = 0, own = 0;
  const auto elem = static_cast<double>(s.elem);
  for (int k = 0; k < b.size(); ++k) {
    if (k == e.me) {
      own = static_cast<double>(b.send[k].count()) * elem / pr;  // the block this rank keeps
      unpack += own;
      continue;
    }
    if (b.send_bytes[k] > 0) {
      ++st.peers;
      st.bytes += b.send_bytes[k];
      if (!b.direct_send[k]) pack += static_cast<double>(b.send[k].count()) * elem / pr;
    }
    if (b.recv_bytes[k] > 0 && !b.direct_recv[k]) unpack += static_cast<double>(b.recv[k].count()) * elem / pr;
  }
  // The messages the method sends (hierarchical: gathers, one aggregate per node pair from a
  // leader, scatters), each on its class's link; what the rank receives is what it sends in
  // the inverse exchange.
  // per-peer sends the flat exchange's messages, each class on its own transport's link.
  const Method mi = m == Method::per_peer ? per_peer_intra_method(gpu) : m;
  const Method mx = m == Method::per_peer ? per_peer_inter_method(gpu) : m;
  const Link intra = c.link(mi, b.size(), false), inter = c.link(mx, b.size(), true);
  ExchangeSpec back = s;
  std::swap(back.src, back.dst);
  st.t.comm = std::max(message_seconds(sent_traffic(m, s), intra, inter),
                       message_seconds(sent_traffic(m, back), intra, inter));
  st.t.pack = pack;
  st.t.unpack = unpack;
  if (m == Method::cuda_ipc) {
    // Copy engines move each peer block from the source straight into the peer's destination,
    // and the rank's own block is copied on a side stream meanwhile: neither is packed, and
    // the exchange ran at 98% of the NVLink copy rate (docs/results/gpu-multi.md).
    // Every execution first allgathers the targets and ends in an allreduce that acts as the
    // barrier (src/backend/cuda/ipc.cpp): two latencies per exchange, whatever the peers.
    st.t.pack = 0;
    st.t.unpack = own;
    st.t.comm += 2 * intra.latency;
    st.t.hidden = std::min(own, st.t.comm);
  }
  if (method_info(m).chunks && opt.chunks > 1) {
    // Every block goes in `chunks` messages. On a GPU chunk c+1 is packed while chunk c moves and
    // chunk c-1 is unpacked, on three streams (docs/pipelined.md; NCCL's exchange phase went from
    // 226-244 to 299-300 GB/s with 4 chunks). On the CPU one thread packs and drives MPI, whose
    // shared-memory copies run on the ranks' own cores: nothing is hidden (16 ranks, 256^3:
    // 1 to 32 chunks within the runs' spread, suite chunks-cpu16).
    st.t.comm += (opt.chunks - 1) * st.peers * intra.latency;
    if (gpu) {
      const double work = st.t.pack + st.t.unpack;
      st.t.hidden = work + st.t.comm - pipelined(work, st.t.comm, opt.chunks);
    }
  }
  if (method_info(m).buffers == MethodBuffers::in_place) {
    // MPI packs derived datatypes inside the communication call: same bytes, counted as comm.
    st.t.comm += st.t.pack + st.t.unpack;
    st.t.pack = st.t.unpack = 0;
  }
  return st;
}

// `topo`: the nodes of all ranks (no nodes: one node).
std::vector<StagePrediction> rank_stages(const Path& p, int rank, const Options& opt, const Calibration& c,
                                         bool is_double, const Topology& topo) {
  std::vector<StagePrediction> out;
  const int prec = is_double ? 0 : 1;
  for (const Step& st : p.steps) {
    if (st.kind == Step::Kind::fft) {
      StagePrediction sp;
      std::ostringstream name;
      name << "fft(";
      for (std::size_t i = 0; i < st.fft.axes.size(); ++i) name << (i ? "," : "") << st.fft.axes[i];
      name << ")";
      sp.name = name.str();
      sp.t.fft = fft_seconds(st.fft, c, prec, opt.transform == Transform::r2r);
      out.push_back(sp);
      continue;
    }
    const bool reshape = st.exchange.grid_dim < 0;
    Method m = opt.methods.size() == 1 || reshape
                   ? opt.methods[0]
                   : opt.methods[std::min(static_cast<std::size_t>(st.exchange.index), opt.methods.size() - 1)];
    std::vector<int> node;
    if (!topo.node.empty())
      node = reshape ? topo.node : topo.restrict_to(grid_line(p.grid, rank, st.exchange.grid_dim)).node;
    StagePrediction sp = exchange_stage(st.exchange, m, opt, c, is_double, node);
    sp.name = reshape ? "reshape" : "exchange" + std::to_string(st.exchange.grid_dim);
    out.push_back(sp);
  }
  return out;
}

}  // namespace

Calibration Calibration::defaults(int ranks) {
  // Placeholders of the right order for one shared-memory node; not a measurement.
  Calibration c;
  c.ranks = ranks;
  c.measured = false;
  c.device = "uncalibrated";
  c.pingpong = {2, 5e-6, 5e9};
  c.fft_contiguous[0] = 2e9;
  c.fft_middle[0] = 1.5e9;
  c.fft_strided[0] = 1e9;
  c.fft_contiguous[1] = 4e9;
  c.fft_middle[1] = 3e9;
  c.fft_strided[1] = 2e9;
  c.pack_rate = 4e9;
  return c;
}

Calibration Calibration::builtin(Backend backend, int ranks, bool shared_gpu, bool cuda_aware) {
  Calibration c;
  c.ranks = ranks;
  c.measured = false;
  c.backend = to_string(backend);
  auto set = [&](Method m, double latency, double bandwidth) {
    c.method_links.push_back({m, Link{ranks, latency, bandwidth}});
  };
  if (backend == Backend::cpu) {
    // One core per rank of a current x86 server node, FFTW measure plans. The exchange rates are
    // per peer under the contention of a full node: MPI datatypes (a2a-type, p2p-type) let MPI
    // copy strided blocks once, where the packing methods add a pass through staging buffers
    // and a second copy through shared memory (docs/results/cpu-fftw.md).
    c.device = "built-in: cpu node";
    c.fft_contiguous[0] = 12e9, c.fft_middle[0] = 9e9, c.fft_strided[0] = 6e9;
    c.fft_contiguous[1] = 20e9, c.fft_middle[1] = 15e9, c.fft_strided[1] = 10e9;
    c.pack_rate = 4e9;
    c.pingpong = c.intra = {2, 2e-6, 3e9};
    c.inter = {2, 1.5e-5, 1e9};
    // About 1 us per message inside a node: on 4, 8 and 16 ranks of a 16-core host a slab's
    // exchange of a 16^3 array (messages of 64-1024 bytes) took 7, 15 and 19 us for 3, 7 and 15
    // messages (suite crossover-cpu, docs/results/cpu-fftw.md). With 4 us the automatic choice
    // took pencils at 2-3 planes per rank on 8 and 16 ranks, 1.25-1.79x the faster decomposition
    // there; with 1 us it takes them at 1-1.5 planes per rank on 16 ranks, where the pencil was
    // ahead.
    for (const auto& i : method_table()) {
      if (!i.cpu) continue;
      const bool datatypes = i.buffers == MethodBuffers::in_place;
      set(i.method, i.chunks ? 2e-6 : 1e-6, datatypes ? 1.6e9 : 1.1e9);
    }
    return c;
  }
  // NVLink GPUs of the H100/H200 class, cuFFT: a 1024^3 float r2c at about 1e13 flop/s
  // (FFTW's flop count) on one GPU; peer copies near NVLink's 390 GB/s, NCCL a little below.
  // The host-staged MPI methods cross PCIe twice and the host's MPI (about 7 GB/s).
  c.device = shared_gpu ? "built-in: gpus shared by ranks" : "built-in: nvlink gpus";
  c.shared_gpu = shared_gpu;
  c.fft_contiguous[1] = 1.2e13, c.fft_middle[1] = 9e12, c.fft_strided[1] = 6e12;
  c.fft_contiguous[0] = 6e12, c.fft_middle[0] = 4.5e12, c.fft_strided[0] = 3e12;
  c.pack_rate = 1.5e12;
  const double peer = shared_gpu ? 1e12 : 3.5e11;
  c.pingpong = c.intra = {2, 2e-5, peer};
  c.inter = {2, 3e-5, 2.5e10};
  for (const auto& i : method_table()) {
    if (!i.cuda) continue;
    if (i.method == Method::cuda_ipc) set(i.method, 2e-5, peer);
    else if (i.method == Method::nccl) set(i.method, 3e-5, 0.8 * peer);
    else if (!cuda_aware) set(i.method, 5e-5, i.method == Method::p2p_pipelined ? 8e9 : 6e9);
    // A CUDA-aware Open MPI 4.1 packs a derived datatype in device memory one contiguous piece
    // at a time: on 4 H200s the datatype methods moved about 1.6 GB/s per rank at their best
    // layout (slab-2d1d, 256^3 double) and 30-70x less where the pieces are small.
    else set(i.method, 3e-5, i.buffers == MethodBuffers::in_place ? 1.5e9 : 0.7 * peer);
  }
  return c;
}

Link Calibration::link(Method m, int size) const {
  const Link* best = nullptr;
  for (const auto& x : method_links)
    if (x.method == m && (!best || std::abs(x.link.size - size) < std::abs(best->size - size)))
      best = &x.link;
  if (best && best->size == size) return *best;
  // A pencil's sub-communicators are smaller than the calibration's rank count. On the CPU
  // every method runs over the host MPI, whose all-to-all was measured on groups of that very
  // size; on a GPU the methods have their own links (NVLink for cuda-ipc and nccl, host staging
  // for the MPI methods), which the method's nearest-size link describes far better.
  if (backend == "cpu")
    for (const auto& l : alltoall)
      if (l.size == size) return l;
  if (best) return *best;
  return link(size);
}

Link Calibration::link(Method m, int size, bool inter_node) const {
  Link l = link(m, size);
  const Link& x = inter_node ? inter : intra;
  if (x.bandwidth > 0 && pingpong.bandwidth > 0 && pingpong.latency > 0) {
    l.latency *= x.latency / pingpong.latency;
    l.bandwidth *= x.bandwidth / pingpong.bandwidth;
  }
  return l;
}

Link Calibration::link(int size) const {
  const Link* best = nullptr;
  for (const auto& l : alltoall)
    if (!best || std::abs(l.size - size) < std::abs(best->size - size)) best = &l;
  if (best) return *best;
  if (pingpong.bandwidth > 0) return pingpong;
  return defaults(ranks).pingpong;
}

Prediction predict(const Calibration& c, const std::vector<std::int64_t>& shape, const Options& opt,
                   int ranks, bool is_double, const std::vector<int>& node) {
  if (ranks < 1) throw InvalidArgument("plan", -1, "predict: ranks must be at least 1");
  if (!node.empty() && static_cast<int>(node.size()) != ranks)
    throw InvalidArgument("plan", -1, "predict: give the node of each of the " + std::to_string(ranks) + " ranks");
  Topology topo;
  topo.node = node.empty() ? emulated_layout(opt.ranks_per_node, ranks) : node;
  if (has_automatic(opt)) {
    // Automatic fields: predict the plan the automatic choice makes with these constants, on
    // GPUs that are not shared, have peer access inside each node and NCCL across.
    MachineFacts f;
    f.backend = opt.backend;
    f.ranks = ranks;
    f.node = topo.node.empty() ? std::vector<int>(static_cast<std::size_t>(ranks), 0) : topo.node;
    f.ipc_in_node = true;
    f.ipc = f.nodes() == 1;
    f.nccl = true;
    f.cores = c.cores;
    f.shared_gpu = c.shared_gpu;
    return predict(c, shape, choose_automatic(f, shape, opt, is_double, c).chosen, ranks, is_double, node);
  }
  Prediction pred;
  pred.grid = choose_grid(opt.decomposition, opt.grid, ranks, static_cast<int>(shape.size()));
  if (opt.grid.empty() && opt.decomposition == Decomposition::pencil) pred.grid = node_aware_grid(pred.grid, topo);
  std::vector<int> which;
  for (int r = 0; r < ranks; ++r)
    if (ranks <= kAllRanksUpTo || r < kAllRanksUpTo / 2 || r >= ranks - kAllRanksUpTo / 2) which.push_back(r);
  for (int r : which) {
    const Path path = make_path(shape, opt, pred.grid, r);
    auto stages = rank_stages(path, r, opt, c, is_double, topo);
    add_overlap(stages, path, opt, c);
    if (pred.stages.empty()) {
      pred.stages = stages;
      continue;
    }
    // Each stage ends when its slowest rank ends: keep, per stage, the slowest rank's phases.
    for (std::size_t k = 0; k < stages.size(); ++k) {
      auto& s = pred.stages[k];
      if (stages[k].t.total() > s.t.total()) s.t = stages[k].t;
      s.bytes = std::max(s.bytes, stages[k].bytes);
      s.peers = std::max(s.peers, stages[k].peers);
    }
  }
  for (const auto& s : pred.stages) {
    pred.total.fft += s.t.fft;
    pred.total.pack += s.t.pack;
    pred.total.comm += s.t.comm;
    pred.total.unpack += s.t.unpack;
    pred.total.hidden += s.t.hidden;
  }
  return pred;
}

Crossover slab_pencil_crossover(double complex_elements, int ranks, bool is_double, const Link& l) {
  Crossover x;
  const double s = is_double ? 8 : 4;  // bytes of one real; a complex element is 2s
  const double P = ranks;
  x.lhs = P * P / complex_elements;
  x.rhs = 2 * s / (l.latency * l.bandwidth);
  x.pencil_faster = x.lhs > x.rhs;
  x.crossover_elements = P * P * l.latency * l.bandwidth / (2 * s);
  return x;
}

double PowerLaw::operator()(double P) const { return A * std::pow(P, -B); }

PowerLaw fit_power_law(const std::vector<double>& ranks, const std::vector<double>& times) {
  PowerLaw f;
  std::vector<double> x, y;
  for (std::size_t i = 0; i < ranks.size() && i < times.size(); ++i)
    if (ranks[i] > 0 && times[i] > 0 && std::isfinite(times[i])) {
      x.push_back(std::log(ranks[i]));
      y.push_back(std::log(times[i]));
    }
  const double n = static_cast<double>(x.size());
  if (x.size() < 2) return f;
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) mx += x[i] / n, my += y[i] / n;
  double sxx = 0, sxy = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx <= 0) return f;  // every point at the same P: no slope to fit
  const double slope = sxy / sxx;
  f.B = -slope;
  f.A = std::exp(my - slope * mx);
  double ss_res = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double r = y[i] - (my + slope * (x[i] - mx));
    ss_res += r * r;
  }
  // A constant T (syy = 0) is fitted exactly by B = 0.
  f.r2 = syy > 0 ? 1 - ss_res / syy : 1.0;
  f.points = static_cast<int>(x.size());
  return f;
}

}  // namespace dfft::model

namespace dfft::detail {
std::string overlap_blocked(const model::Calibration& c, const Options& opt) {
  std::string why;
  model::overlap_fft_factor(c, opt, false, &why);
  return why;
}
}  // namespace dfft::detail
