// SPDX-License-Identifier: MIT
#include "fftw_mpi/mpi_plan.hpp"

#include <fftw3-mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <numeric>
#include <sstream>
#include <utility>

#include "fftw_mpi/serial.hpp"
#include "util/check.hpp"

namespace dfft::fftw_mpi {

bool verbose() {
  const char* v = std::getenv("DFFT_VERBOSE");
  return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}

void say(const std::string& what) {
  int rank = -1, up = 0, down = 0;
  MPI_Initialized(&up);
  MPI_Finalized(&down);
  if (up && !down) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr, "dfft fftw-mpi (rank %d): %s\n", rank, what.c_str());
  std::fflush(stderr);
}

namespace {

// Live plans, for fftw_mpi_cleanup. Handles stay allocated after destruction (mpi_plan.hpp).
std::mutex registry_mutex;
std::vector<void*>& registry() {
  static std::vector<void*> plans;
  return plans;
}

// FFTW's r2r kinds as dfft's (FFTW's numbering: R2HC 0, HC2R 1, DHT 2, REDFT00..11 3..6,
// RODFT00..11 7..10). Nullopt-like R2R::none for a kind dfft does not compute.
bool to_dfft_kind(int k, R2R& out) {
  switch (k) {
    case FFTW_R2HC: out = R2R::r2hc; return true;
    case FFTW_HC2R: out = R2R::hc2r; return true;
    case FFTW_DHT: out = R2R::dht; return true;
    case FFTW_REDFT00: out = R2R::dct1; return true;
    case FFTW_REDFT10: out = R2R::dct2; return true;
    case FFTW_REDFT01: out = R2R::dct3; return true;
    case FFTW_REDFT11: out = R2R::dct4; return true;
    case FFTW_RODFT00: out = R2R::dst1; return true;
    case FFTW_RODFT10: out = R2R::dst2; return true;
    case FFTW_RODFT01: out = R2R::dst3; return true;
    case FFTW_RODFT11: out = R2R::dst4; return true;
    default: return false;
  }
}

// The problem as integers, for checking that every rank asked for the same one.
std::vector<std::int64_t> fingerprint(const Request& r) {
  const Problem& p = r.problem;
  std::vector<std::int64_t> f{static_cast<std::int64_t>(p.kind), static_cast<std::int64_t>(p.n.size()),
                              p.howmany, p.block_in, p.block_out, p.transposed_in, p.transposed_out,
                              r.sign, static_cast<std::int64_t>(r.flags), r.transpose_only};
  f.insert(f.end(), p.n.begin(), p.n.end());
  for (int k : r.r2r_kinds) f.push_back(k);
  return f;
}

// Every rank's answer: whether all ranks hold `ok`.
bool all_ranks(MPI_Comm comm, bool ok) {
  int mine = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
  return all == 1;
}

// What is wrong with the request on this rank, or "" (checked before anything collective).
std::string local_problem(const Request& r) {
  const Problem& p = r.problem;
  if (r.comm == MPI_COMM_NULL) return "the communicator is MPI_COMM_NULL";
  if (p.n.empty()) return "rank 0 transforms are not supported";
  for (std::int64_t n : p.n)
    if (n < 1) return "every size must be at least 1";
  if (p.howmany < 1) return "howmany must be at least 1";
  if (p.block_in < 0 || p.block_out < 0) return "block sizes must be at least 0";
  if (p.kind == Kind::dft && r.sign != FFTW_FORWARD && r.sign != FFTW_BACKWARD)
    return "sign must be FFTW_FORWARD or FFTW_BACKWARD";
  if ((p.kind == Kind::r2c || p.kind == Kind::c2r) && p.n.size() < 2)
    return "one-dimensional r2c/c2r transforms are not in FFTW's MPI interface";
  if (p.kind == Kind::r2r) {
    if (r.r2r_kinds.size() != p.n.size()) return "one r2r kind per dimension";
    for (std::size_t a = 0; a < p.n.size(); ++a) {
      R2R k;
      if (!to_dfft_kind(r.r2r_kinds[a], k)) return "unknown r2r kind " + std::to_string(r.r2r_kinds[a]);
      if (k == R2R::dct1 && p.n[a] < 2) return "REDFT00 needs at least 2 points";
    }
  }
  return "";
}

// FFTW_WISDOM_ONLY: a plan only where FFTW's wisdom (imported by the application, e.g. from a
// run that planned with FFTW_MEASURE through this library) has every local FFT of dfft's plan.
Effort effort_of(unsigned flags) {
  if (flags & FFTW_WISDOM_ONLY) return Effort::wisdom_only;
  return (flags & FFTW_ESTIMATE) ? Effort::estimate : Effort::measure;
}

// With a vector axis (howmany > 1) or a one-dimensional transform the dfft array has one more,
// untransformed axis; dfft arrays have at least two.
bool needs_extra_axis(const Problem& p) { return p.howmany == 1 && p.n.size() == 1; }
Layout with_unit_axis(Layout l) {
  l.box.lo.push_back(0);
  l.box.hi.push_back(1);
  l.order.push_back(static_cast<int>(l.order.size()));
  if (!l.padded.empty()) l.padded.push_back(1);
  return l;
}

// An empty layout of `dims` axes: a rank that holds nothing of a side.
Layout empty_layout(int dims) {
  Layout l;
  l.box.lo.assign(dims, 0);
  l.box.hi.assign(dims, 0);
  l.order.resize(dims);
  std::iota(l.order.begin(), l.order.end(), 0);
  return l;
}

int planner_threads() {
  const int t = serial::planner_nthreads();
  return t > 0 ? t : 1;
}

}  // namespace

namespace {

// DFFT_FFTW_MPI_GPU: unset or 0, the CPU; 1, the GPU where one staged execution is timed faster
// than the CPU plan's; force, the GPU.
enum class GpuSwitch { off, timed, force };
GpuSwitch gpu_switch() {
  const char* v = std::getenv("DFFT_FFTW_MPI_GPU");
  if (v == nullptr || *v == '\0' || std::strcmp(v, "0") == 0) return GpuSwitch::off;
  return std::strcmp(v, "force") == 0 ? GpuSwitch::force : GpuSwitch::timed;
}

// Seconds of one run of `f` on every rank: the slowest rank's, after a barrier.
template <class F>
double timed(MPI_Comm comm, F&& f) {
  MPI_Barrier(comm);
  const double t0 = MPI_Wtime();
  f();
  double t = MPI_Wtime() - t0, most = 0;
  MPI_Allreduce(&t, &most, 1, MPI_DOUBLE, MPI_MAX, comm);
  return most;
}

}  // namespace

template <class R>
MpiPlan<R>* MpiPlan<R>::make(const Request& req) {
  const std::string bad = local_problem(req);
  if (req.comm == MPI_COMM_NULL) {
    if (verbose()) say(std::string(req.call) + ": " + bad + "; no plan");
    return nullptr;
  }
  // FFTW-MPI's plans are collective over an intracommunicator; on an intercommunicator every
  // rank sees the same flag, so all return NULL without a collective call (whose meaning would
  // differ there).
  int inter = 0;
  if (MPI_Comm_test_inter(req.comm, &inter) != MPI_SUCCESS || inter) {
    if (verbose()) say(std::string(req.call) + ": the communicator is an intercommunicator; no plan");
    return nullptr;
  }
  if (!all_ranks(req.comm, bad.empty())) {
    if (verbose()) say(std::string(req.call) + ": " + (bad.empty() ? "another rank's request is not valid" : bad) + "; no plan");
    return nullptr;
  }
  // Every rank must describe the same problem (the pointers and local sizes may differ).
  const auto f = fingerprint(req);
  long len = static_cast<long>(f.size()), lmin = 0, lmax = 0;
  MPI_Allreduce(&len, &lmin, 1, MPI_LONG, MPI_MIN, req.comm);
  MPI_Allreduce(&len, &lmax, 1, MPI_LONG, MPI_MAX, req.comm);
  bool same = lmin == lmax;
  if (same) {
    std::vector<long> mine(f.begin(), f.end()), lo(f.size()), hi(f.size());
    MPI_Allreduce(mine.data(), lo.data(), static_cast<int>(f.size()), MPI_LONG, MPI_MIN, req.comm);
    MPI_Allreduce(mine.data(), hi.data(), static_cast<int>(f.size()), MPI_LONG, MPI_MAX, req.comm);
    same = lo == hi;
  }
  if (!same) {
    if (verbose()) say(std::string(req.call) + ": the ranks asked for different problems (sizes, howmany, blocks, kinds or flags differ); no plan");
    return nullptr;
  }
  int ranks = 1;
  MPI_Comm_size(req.comm, &ranks);
  if (!distribution_fits(req.problem, ranks)) {
    if (verbose()) say(std::string(req.call) + ": the block sizes leave blocks without a rank; no plan");
    return nullptr;
  }
  auto* p = new MpiPlan;
  try {
    p->build(req);
  } catch (const std::exception& e) {
    if (verbose()) say(std::string(req.call) + ": " + e.what() + "; no plan");
    p->destroy(req.call);
    delete p;  // never handed out
    return nullptr;
  }
  if (verbose()) {
    int rank = 0;
    MPI_Comm_rank(req.comm, &rank);
    if (rank == 0) say(std::string(req.call) + ": " + p->describe());
  }
  std::lock_guard<std::mutex> lock(registry_mutex);
  registry().push_back(p);
  return p;
}

template <class R>
void MpiPlan<R>::build(const Request& req) {
  req_ = req;
  detail::check_mpi(MPI_Comm_dup(req.comm, &comm_), "MPI_Comm_dup");
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm_, &rank);
  MPI_Comm_size(comm_, &ranks);
  in_place_ = req.in == req.out;
  align_in_ = reinterpret_cast<std::uintptr_t>(req.in) % 16;
  align_out_ = reinterpret_cast<std::uintptr_t>(req.out) % 16;
  const Problem& pr = req.problem;

  if (req.transpose_only) {
    // n0 x n1 matrix of howmany-tuples, rows in blocks -> n1 x n0 (transposed), rows in blocks.
    const std::int64_t n0 = pr.n[0], n1 = pr.n[1], h = pr.howmany;
    const Range ri = block_range(n0, pr.block_in > 0 ? pr.block_in : default_block(n0, ranks), rank);
    const Range ro = block_range(n1, pr.block_out > 0 ? pr.block_out : default_block(n1, ranks), rank);
    const Layout in{{{ri.start, 0, 0}, {ri.start + ri.count, n1, h}}, {0, 1, 2}, {}};
    const Layout out{{{0, ro.start, 0}, {n0, ro.start + ro.count, h}}, {1, 0, 2}, {}};
    transpose_ = std::make_unique<Reshape<R>>(comm_, in, out);
    return;
  }

  dfft_inverse_ = pr.kind == Kind::c2r || (pr.kind == Kind::dft && req.sign == FFTW_BACKWARD);
  if (is_distributed_1d(pr, ranks)) {
    Options o;
    o.norm = Norm::none;
    o.effort = effort_of(req.flags);
    o.fftw_wisdom = false;
    o.threads = planner_threads();
    o.directions = dfft_inverse_ ? Directions::inverse : Directions::forward;
    fft1d_ = std::make_unique<Fft1d<R>>(comm_, pr.n[0], pr.howmany, o);
    return;
  }
  Side in = input_side(pr, rank, ranks), out = output_side(pr, rank, ranks);
  std::vector<std::int64_t> shape = pr.n;  // dfft's shape: the real-space (logical) one
  if (pr.howmany > 1) shape.push_back(pr.howmany);
  const bool extra = needs_extra_axis(pr);
  if (extra) {
    shape.push_back(1);
    in.layout = with_unit_axis(in.layout);
    out.layout = with_unit_axis(out.layout);
  }
  const Layout& din = dfft_inverse_ ? out.layout : in.layout;
  const Layout& dout = dfft_inverse_ ? in.layout : out.layout;
  const int rnk = static_cast<int>(pr.n.size());

  Options o;
  o.transform = pr.kind == Kind::dft ? Transform::c2c : pr.kind == Kind::r2r ? Transform::r2r : Transform::r2c;
  o.norm = Norm::none;
  if (pr.kind == Kind::r2r) {
    for (int k : req.r2r_kinds) {
      R2R d = R2R::none;
      to_dfft_kind(k, d);
      o.r2r.push_back(d);
    }
    if (shape.size() > pr.n.size()) o.r2r.push_back(R2R::none);
  }
  if (shape.size() > pr.n.size()) {
    o.axes.resize(static_cast<std::size_t>(rnk));
    std::iota(o.axes.begin(), o.axes.end(), 0);
  }
  o.in_place = in_place_ && (pr.kind == Kind::r2c || pr.kind == Kind::c2r);
  o.transposed_out = dout.order.size() > 1 && dout.order[0] == 1;
  o.effort = effort_of(req.flags);
  // FFTW_PATIENT and FFTW_EXHAUSTIVE: dfft's timed choice among its candidate plans (decomposition,
  // variant, methods); FFTW_MEASURE: the model's choice with measured local FFTs, so that
  // planning stays as quick as FFTW-MPI's.
  if (req.flags & (FFTW_PATIENT | FFTW_EXHAUSTIVE)) o.tune = Tune::measure;
  // FFTW's own decomposition: its input split along axis 0 and its transposed output along axis
  // 1 are slab-2d1d's, so the plan reads and writes the caller's arrays with no reshape (the
  // automatic choice does not count the reshapes a layout of the caller's adds).
  else if (rnk >= 2 && ranks > 1) o.decomposition = Decomposition::slab_2d1d;
  o.fftw_wisdom = false;  // the application owns FFTW's wisdom (fftw_import_wisdom_*)
  o.threads = planner_threads();
  // An FFTW plan runs one direction: the other is neither made nor measured.
  o.directions = dfft_inverse_ ? Directions::inverse : Directions::forward;
  o.destroy_input = (req.flags & FFTW_DESTROY_INPUT) ||
                    (pr.kind == Kind::c2r && !(req.flags & FFTW_PRESERVE_INPUT));

  std::string refused;  // why the last try_plan failed
  auto try_plan = [&](const Options& opts) {
    try {
      plan_ = std::make_unique<Plan<R>>(comm_, shape, din, dout, opts);
      return true;
    } catch (const Error& e) {
      // A problem dfft's planner refuses (collectively: every rank throws it).
      if (e.status() != Status::invalid_argument && e.status() != Status::unsupported) throw;
      refused = e.what();
      return false;
    }
  };
  const std::int64_t in_bytes = in.elements() * static_cast<std::int64_t>(in.real ? sizeof(R) : sizeof(C));
  const std::int64_t out_bytes = out.elements() * static_cast<std::int64_t>(out.real ? sizeof(R) : sizeof(C));
  // Forced onto the GPU, no CPU plan is made (its planning would cost as much as the GPU's).
  if (gpu_switch() == GpuSwitch::force && offer_gpu(shape, din, dout, o, in_bytes, out_bytes)) return;
  if (try_plan(o)) {
    if (gpu_switch() == GpuSwitch::timed) offer_gpu(shape, din, dout, o, in_bytes, out_bytes);
    return;
  }
  if (o.in_place) {
    // dfft's in-place r2c keeps the padded axis last, FFTW's puts the vector axis after it: the
    // plan runs out of place from a copy of the input.
    Options copied = o;
    copied.in_place = false;
    if (try_plan(copied)) {
      copy_bytes_ = static_cast<std::size_t>(in.elements()) * (in.real ? sizeof(R) : sizeof(C));
      scratch_in_.resize(copy_bytes_ / sizeof(C) + 1);
      return;
    }
  }
  // Without wisdom for its local FFTs no plan comes, on fewer ranks neither (FFTW_WISDOM_ONLY).
  if (o.effort == Effort::wisdom_only) throw InvalidArgument(req.call, rank, refused);
  // Too few elements to split over every rank: dfft's decompositions need every rank, FFTW's
  // leave ranks idle. Below, the plan runs on fewer ranks and the data moves to and from them.
  Options sub = o;
  sub.in_place = false;
  sub.transposed_out = false;
  const int dims = static_cast<int>(shape.size());
  for (int q = ranks / 2; q >= 1; q = q > 1 ? q / 2 : 0) {
    if (sub_ != MPI_COMM_NULL) MPI_Comm_free(&sub_);
    detail::check_mpi(MPI_Comm_split(comm_, rank < q ? 0 : MPI_UNDEFINED, rank, &sub_), "MPI_Comm_split");
    bool ok = true;
    std::string why;
    if (rank < q) {
      try {
        plan_ = std::make_unique<Plan<R>>(sub_, shape, sub);
      } catch (const std::exception& e) {
        ok = false;
        why = e.what();
        plan_.reset();
      }
    }
    if (!all_ranks(comm_, ok)) {
      if (q == 1) throw InvalidArgument(req.call, rank, "dfft cannot plan it even on one rank: " + why);
      continue;
    }
    break;
  }
  const Layout pin = plan_ ? plan_->input_layout() : empty_layout(dims);
  const Layout pout = plan_ ? plan_->output_layout() : empty_layout(dims);
  // The request's input goes to the plan side it feeds, the other side back to the request's output.
  const Layout& plan_from = dfft_inverse_ ? pout : pin;
  const Layout& plan_to = dfft_inverse_ ? pin : pout;
  const Layout& req_in = in.layout;
  const Layout& req_out = out.layout;
  if (in.real) real_in_ = std::make_unique<Reshape<R>>(comm_, req_in, plan_from);
  else cplx_in_ = std::make_unique<Reshape<C>>(comm_, req_in, plan_from);
  if (out.real) real_out_ = std::make_unique<Reshape<R>>(comm_, plan_to, req_out);
  else cplx_out_ = std::make_unique<Reshape<C>>(comm_, plan_to, req_out);
  auto complexes = [&](const Layout& l, bool real) {
    const std::int64_t e = l.alloc_count();
    return static_cast<std::size_t>(real ? (e + 1) / 2 : e) + 1;
  };
  scratch_in_.resize(complexes(plan_from, in.real));
  scratch_out_.resize(complexes(plan_to, out.real));
}

template <class R>
bool MpiPlan<R>::offer_gpu(const std::vector<std::int64_t>& shape, const Layout& din, const Layout& dout,
                           const Options& o, std::int64_t in_bytes, std::int64_t out_bytes) {
  const GpuSwitch sw = gpu_switch();
  placement_ = "CPU";
  if (sw == GpuSwitch::off) return false;
  Options g = o;
  g.backend = Backend::cuda;
  g.threads = 1;
  try {
    gpu_ = std::make_unique<Plan<R>>(comm_, shape, din, dout, g);
  } catch (const Error& e) {
    // No GPU, a CPU-only build, or a problem the CUDA backend does not take (collective).
    placement_ = std::string("CPU (the GPU plan was refused: ") + e.what() + ")";
    if (verbose()) say(std::string(req_.call) + ": " + placement_);
    return false;
  }
  in_bytes_ = static_cast<std::size_t>(in_bytes);
  out_bytes_ = static_cast<std::size_t>(out_bytes);
  dev_in_ = gpu_->allocate(std::max<std::size_t>(in_bytes_, 16));
  dev_out_ = in_place_ ? dev_in_ : gpu_->allocate(std::max<std::size_t>(out_bytes_, 16));
  if (sw == GpuSwitch::force) {
    placement_ = "GPU (DFFT_FFTW_MPI_GPU=force)" + pin_arrays();
    if (verbose()) say(std::string(req_.call) + ": runs on the " + placement_);
    return true;
  }
  // One execution each, on arrays of the plan's own after one untimed run: the host plan against
  // copying in, transforming on the GPU and copying back. The arrays are page-locked for the
  // timing as the caller's will be for a plan kept on the GPU.
  std::vector<C> a(in_bytes_ / sizeof(C) + 1), b(out_bytes_ / sizeof(C) + 1);
  void* out = in_place_ ? static_cast<void*>(a.data()) : static_cast<void*>(b.data());
  const bool pin_a = gpu_->pin_host(a.data(), a.size() * sizeof(C));
  const bool pin_b = !in_place_ && gpu_->pin_host(b.data(), b.size() * sizeof(C));
  auto on_cpu = [&] { transform(*plan_, a.data(), out); };
  auto on_gpu = [&] {
    gpu_->upload(dev_in_, a.data(), in_bytes_);
    transform(*gpu_, dev_in_, dev_out_);
    gpu_->download(out, dev_out_, out_bytes_);
  };
  on_cpu();
  const double cpu = timed(comm_, on_cpu);
  on_gpu();
  const double gpu = timed(comm_, on_gpu);
  if (pin_a) gpu_->unpin_host(a.data());
  if (pin_b) gpu_->unpin_host(b.data());
  std::ostringstream why;
  why << " (one staged GPU execution " << detail::ms_text(gpu) << ", the CPU plan " << detail::ms_text(cpu) << ")";
  if (gpu < cpu) {
    placement_ = "GPU" + why.str() + pin_arrays();
    plan_.reset();
  } else {
    placement_ = "CPU" + why.str();
    release_gpu();
  }
  if (verbose()) say(std::string(req_.call) + ": runs on the " + placement_);
  return gpu_ != nullptr;
}

template <class R>
std::string MpiPlan<R>::pin_arrays() {
  // The plan's own arrays are what fftw_execute moves; arrays given to the new-array execute
  // functions are copied through the driver's bounce buffers.
  const std::size_t in = in_place_ ? std::max(in_bytes_, out_bytes_) : in_bytes_;
  int locked = 0, asked = 0;
  for (auto [p, bytes] : {std::pair{req_.in, in}, std::pair{in_place_ ? nullptr : req_.out, out_bytes_}}) {
    if (!p) continue;
    ++asked;
    if (gpu_->pin_host(p, bytes)) {
      pinned_.push_back(p);
      ++locked;
    }
  }
  return locked == asked ? ", host arrays page-locked"
                         : ", host arrays not page-locked (locked already or refused: copies through bounce buffers)";
}

template <class R>
void MpiPlan<R>::release_gpu() {
  if (!gpu_) return;
  for (void* p : pinned_) gpu_->unpin_host(p);
  pinned_.clear();
  gpu_->deallocate(dev_in_);
  if (dev_out_ != dev_in_) gpu_->deallocate(dev_out_);
  dev_in_ = dev_out_ = nullptr;
  gpu_.reset();
}

template <class R>
void MpiPlan<R>::transform(const Plan<R>& plan, void* a, void* b) const {
  switch (req_.problem.kind) {
    case Kind::dft:
      if (dfft_inverse_) plan.inverse(static_cast<const C*>(a), static_cast<C*>(b));
      else plan.forward(static_cast<const C*>(a), static_cast<C*>(b));
      break;
    case Kind::r2c: plan.forward(static_cast<const R*>(a), static_cast<C*>(b)); break;
    case Kind::c2r: plan.inverse(static_cast<const C*>(a), static_cast<R*>(b)); break;
    case Kind::r2r: plan.forward(static_cast<const R*>(a), static_cast<R*>(b)); break;
  }
}

template <class R>
void MpiPlan<R>::run(void* in, void* out) {
  if (transpose_) {
    transpose_->execute(static_cast<const R*>(in), static_cast<R*>(out));
    return;
  }
  if (fft1d_) {
    if (dfft_inverse_) fft1d_->inverse(static_cast<const C*>(in), static_cast<C*>(out));
    else fft1d_->forward(static_cast<const C*>(in), static_cast<C*>(out));
    return;
  }
  if (gpu_) {
    gpu_->upload(dev_in_, in, in_bytes_);
    transform(*gpu_, dev_in_, dev_out_);
    gpu_->download(out, dev_out_, out_bytes_);
    return;
  }
  if (copy_bytes_ > 0) {
    std::memcpy(scratch_in_.data(), in, copy_bytes_);
    transform(*plan_, scratch_in_.data(), out);
    return;
  }
  if (!real_in_ && !cplx_in_) {
    transform(*plan_, in, out);
    return;
  }
  void* a = scratch_in_.data();
  void* b = scratch_out_.data();
  if (real_in_) real_in_->execute(static_cast<const R*>(in), static_cast<R*>(a));
  else cplx_in_->execute(static_cast<const C*>(in), static_cast<C*>(a));
  if (plan_) transform(*plan_, a, b);  // (ranks outside the plan's ranks hold none)
  if (real_out_) real_out_->execute(static_cast<const R*>(b), static_cast<R*>(out));
  else cplx_out_->execute(static_cast<const C*>(b), static_cast<C*>(out));
}

template <class R>
void MpiPlan<R>::execute(void* in, void* out, const char* call) {
  if (state_ != State::live) {
    say(std::string(call) + ": the plan was " +
        (state_ == State::destroyed ? "destroyed (fftw_destroy_plan)" : "freed by fftw_mpi_cleanup") +
        " before this call; nothing is computed");
    return;
  }
  if ((in == out) != in_place_) {
    say(std::string(call) + ": the plan was made " + (in_place_ ? "in place" : "out of place") +
        " and is executed " + (in_place_ ? "out of place" : "in place") +
        " (FFTW's new-array execute keeps the planned placement); nothing is computed");
    return;
  }
  const bool aligned_as_planned = reinterpret_cast<std::uintptr_t>(in) % 16 == align_in_ &&
                                  reinterpret_cast<std::uintptr_t>(out) % 16 == align_out_;
  if (!aligned_as_planned && !warned_alignment_ && verbose()) {
    say(std::string(call) + ": arrays of another alignment than at planning (FFTW requires the same); dfft computes it anyway");
    warned_alignment_ = true;
  }
  try {
    run(in, out);
  } catch (const std::exception& e) {
    // FFTW's execute cannot fail; an error here is one of MPI or of memory: say it, never throw
    // through C callers.
    say(std::string(call) + ": " + e.what());
  }
}

template <class R>
void MpiPlan<R>::destroy(const char* call) {
  if (state_ == State::destroyed) {
    say(std::string(call) + ": the plan was already destroyed; nothing is done");
    return;
  }
  const bool was_live = state_ == State::live;
  state_ = State::destroyed;
  if (!was_live) return;  // fftw_mpi_cleanup freed it already
  release_gpu();
  plan_.reset();
  real_in_.reset();
  real_out_.reset();
  cplx_in_.reset();
  cplx_out_.reset();
  transpose_.reset();
  fft1d_.reset();
  std::vector<C>().swap(scratch_in_);
  std::vector<C>().swap(scratch_out_);
  int down = 0;
  MPI_Finalized(&down);
  if (!down) {
    if (sub_ != MPI_COMM_NULL) MPI_Comm_free(&sub_);
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  }
  std::lock_guard<std::mutex> lock(registry_mutex);
  auto& r = registry();
  r.erase(std::remove(r.begin(), r.end(), static_cast<void*>(this)), r.end());
}

template <class R>
void MpiPlan<R>::destroy_all() {
  std::vector<void*> live;
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    live = registry();
  }
  for (void* h : live) {
    auto* p = static_cast<MpiPlan*>(h);
    p->destroy("fftw_mpi_cleanup");
    p->state_ = State::cleaned_up;
  }
}

template <class R>
double MpiPlan<R>::flops() const {
  const Problem& p = req_.problem;
  if (state_ != State::live || req_.transpose_only) return 0;
  const double n = std::accumulate(p.n.begin(), p.n.end(), 1.0, std::multiplies<>());
  const double per = (p.kind == Kind::dft ? 5.0 : 2.5) * n * std::log2(std::max(n, 1.0)) * static_cast<double>(p.howmany);
  int ranks = 1;
  MPI_Comm_size(comm_, &ranks);
  return per / ranks;
}

template <class R>
std::string MpiPlan<R>::describe() const {
  std::ostringstream s;
  const Problem& p = req_.problem;
  const char* kinds[] = {"dft", "r2c", "c2r", "r2r"};
  s << "(dfft-mpi " << (req_.transpose_only ? "transpose" : kinds[static_cast<int>(p.kind)]);
  for (std::size_t a = 0; a < p.n.size(); ++a) s << (a ? "x" : " ") << p.n[a];
  if (p.howmany > 1) s << " howmany " << p.howmany;
  if (p.transposed_in) s << " transposed-in";
  if (p.transposed_out) s << " transposed-out";
  s << (req_.in == req_.out ? " in place" : " out of place");
  const unsigned f = req_.flags;
  s << ((f & FFTW_ESTIMATE) ? " estimate" : (f & FFTW_EXHAUSTIVE) ? " exhaustive" : (f & FFTW_PATIENT) ? " patient" : " measure");
  if (f & FFTW_DESTROY_INPUT) s << " destroy-input";
  if (f & FFTW_PRESERVE_INPUT) s << " preserve-input";
  if (state_ != State::live) s << " destroyed";
  else if (gpu_) s << " on the " << placement_ << "\n" << gpu_->describe();
  else if (plan_) s << (sub_ != MPI_COMM_NULL ? " on fewer ranks" : "") << (placement_.size() > 3 ? " on the " + placement_ : "") << "\n" << plan_->describe();
  else if (fft1d_) s << "\n" << fft1d_->describe();
  s << ")";
  return s.str();
}

template class MpiPlan<float>;
template class MpiPlan<double>;

}  // namespace dfft::fftw_mpi
