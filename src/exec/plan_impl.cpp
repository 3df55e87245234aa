// SPDX-License-Identifier: MIT
#include "exec/plan_impl.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <utility>

#include "backend/cpu/fftw_wisdom.hpp"
#include "backend/cpu/work_pool.hpp"
#include "codec/codec.hpp"
#include "exec/gather.hpp"
#include "exec/padded_fft.hpp"
#include "plan/axes.hpp"
#include "plan/geometry.hpp"
#include "transport/stage.hpp"
#include "util/check.hpp"

namespace dfft {

using namespace detail;

namespace {
// Work buffers start on this boundary inside a workspace: cudaMalloc's alignment, a multiple
// of every SIMD width FFTW plans for, so a workspace from Plan::allocate() runs the aligned
// FFT plans made on the plan's own buffers.
constexpr std::int64_t kWorkAlign = 256;
}  // namespace

PlanImpl::PlanImpl(MPI_Comm comm, const std::vector<std::int64_t>& shape, const Options& opt,
                   bool is_double, const Layout* user_in, const Layout* user_out)
    : shape_(shape), opt_(opt), is_double_(is_double) {
  DFFT_MPI(MPI_Comm_dup(comm, &comm_));
  // Errors on our communicators come back as codes (and then as dfft::Error), not aborts.
  DFFT_MPI(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
  DFFT_MPI(MPI_Comm_rank(comm_, &rank_));
  DFFT_MPI(MPI_Comm_size(comm_, &size_));
  try {
    taper_ = env_switch("DFFT_SLICE_TAPER");
    chunk_taper_ = env_switch("DFFT_CHUNK_TAPER");
    queue_ = env_switch("DFFT_OVERLAP_QUEUE");
    check_same_everywhere(shape);
    for (auto [v, name] : {std::pair{taper_, "DFFT_SLICE_TAPER"}, std::pair{chunk_taper_, "DFFT_CHUNK_TAPER"},
                           std::pair{queue_, "DFFT_OVERLAP_QUEUE"}})
      if (v < 0) fail(name, " must be 0 or 1, got '", std::getenv(name), "'");
    topo_ = make_topology(comm_, opt.ranks_per_node);
    // Every rank agreed on backend and threads above: a refusal here is the same on all of them.
    if (opt.backend == Backend::cuda && opt.threads > 1)
      unsupported("threads is a CPU backend option (threads per rank); the CUDA backend takes threads = 0 or 1, got ", opt.threads);
    // Asked-for CUDA-aware MPI that is not there is refused whether or not this plan exchanges
    // anything (a 1-rank plan does not): the same options must not fail only at a larger scale.
    if (opt.backend == Backend::cuda && opt.staging == Staging::cuda_aware) use_cuda_aware(opt.staging);
    dev_ = opt.backend == Backend::cuda ? make_cuda_device(comm_, opt.device, opt.stream)
                                        : make_cpu_device(resolve_threads(opt.threads, comm_, &threads_why_));
    find_devices_per_node();
    // The automatic fields are settled before anything reads them; the device is made first,
    // since which GPUs the ranks use decides which methods can run.
    if (has_automatic(opt)) choose_automatically(user_in != nullptr);
    auto grid = choose_grid(opt_.decomposition, opt_.grid, size_, static_cast<int>(shape.size()));
    if (opt_.grid.empty() && opt_.decomposition == Decomposition::pencil) grid = node_aware_grid(grid, topo_);
    const auto coords = grid_coords(grid, rank_);
    UserLayouts user;
    if (user_in && user_out) {
      user.in = allgather_layout(*user_in, static_cast<int>(shape.size()));
      user.out = allgather_layout(*user_out, static_cast<int>(shape.size()));
    }
    path_ = make_path(shape, opt_, grid, rank_, user);
    for (std::size_t g = 0; g < grid.size(); ++g) {
      // Members of sub-communicator g share every coordinate but g; their index is coords[g].
      const auto parent = grid_line(grid, rank_, static_cast<int>(g));
      MPI_Comm s;
      DFFT_MPI(MPI_Comm_split(comm_, parent[0], coords[g], &s));
      sub_.push_back(s);
      DFFT_MPI(MPI_Comm_set_errhandler(s, MPI_ERRORS_RETURN));
      sub_node_.push_back(topo_.restrict_to(parent).node);
    }
    FftwWisdomFile wisdom(fftw_wisdom_path(opt_, is_double_), is_double_);
    build_steps();
    // Planning goes on without the file, but the caller learns that FFTW's wisdom was not kept
    // (every later plan of this size plans again). This rank's own write: no collective here, as
    // a rank that failed to plan must not leave the others waiting in one.
    if (const std::string why = wisdom.save(); !why.empty())
      warnings_.push_back("FFTW wisdom not saved (planning of this size will not be faster next time): " + why);
  } catch (...) {
    for (auto& s : sub_) MPI_Comm_free(&s);
    MPI_Comm_free(&comm_);
    throw;
  }
}

PlanImpl::~PlanImpl() {
  int fin = 0;
  MPI_Finalized(&fin);
  if (fin) {  // destroyed after MPI_Finalize: MPI objects are gone already, free only memory
    for (auto& e : exec_) e.fwd_x.release(), e.inv_x.release();
    for (auto& d : dir_)
      for (auto& g : d.groups)
        for (auto& s : g.slices) s.x.release();
    sub_.clear();
    comm_ = MPI_COMM_NULL;
  }
  // Transports and FFT plans (whole and sliced) before buffers, communicators and device.
  dir_[0] = Direction{};
  dir_[1] = Direction{};
  exec_.clear();
  a_ = {};
  b_ = {};
  c_ = {};
  dev_.reset();
  for (auto& s : sub_) MPI_Comm_free(&s);
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void PlanImpl::check_same_everywhere(const std::vector<std::int64_t>& shape) const {
  // A plan made with different parameters on different ranks would deadlock or corrupt data
  // later; compare them now, collectively, so every rank gets the same clear error.
  std::vector<std::int64_t> mine{static_cast<std::int64_t>(shape.size())};
  std::vector<std::int64_t> lo(1), hi(1);
  DFFT_MPI(MPI_Allreduce(mine.data(), lo.data(), 1, MPI_INT64_T, MPI_MIN, comm_));
  DFFT_MPI(MPI_Allreduce(mine.data(), hi.data(), 1, MPI_INT64_T, MPI_MAX, comm_));
  if (lo[0] != hi[0]) fail("ranks disagree on the number of dimensions (", lo[0], " vs ", hi[0], ")");
  mine = shape;
  for (auto v : {static_cast<int>(opt_.decomposition), static_cast<int>(opt_.variant),
                 static_cast<int>(opt_.transform), static_cast<int>(opt_.backend),
                 static_cast<int>(opt_.grid.size()), static_cast<int>(opt_.methods.size()),
                 static_cast<int>(opt_.norm), static_cast<int>(is_double_)})
    mine.push_back(v);
  for (auto g : opt_.grid) mine.push_back(g);
  // Method values and message limit decide the MPI calls each rank makes; a mismatch deadlocks.
  for (auto m : opt_.methods) mine.push_back(static_cast<int>(m));
  for (std::int64_t v : {opt_.max_message_bytes, std::int64_t{opt_.batch}, std::int64_t{opt_.in_place},
                         std::int64_t{opt_.destroy_input}, static_cast<std::int64_t>(opt_.directions),
                         std::int64_t{opt_.transposed_out},
                         std::int64_t{opt_.overlap}, std::int64_t{opt_.adapt}, std::int64_t{opt_.chunks},
                         std::int64_t{opt_.in_flight}, std::int64_t{opt_.threads}, std::int64_t{taper_},
                         std::int64_t{chunk_taper_}, std::int64_t{queue_}})
    mine.push_back(v);
  mine.push_back(static_cast<std::int64_t>(opt_.axes.size()));
  for (int a : opt_.axes) mine.push_back(a);
  mine.push_back(static_cast<std::int64_t>(opt_.padding.size()));
  for (double f : opt_.padding) mine.push_back(static_cast<std::int64_t>(std::llround(f * 1e9)));
  // The halo widths decide whether the first and last steps read the caller's arrays or reshape.
  for (const auto* w : {&opt_.input_halo.lo, &opt_.input_halo.hi, &opt_.output_halo.lo, &opt_.output_halo.hi}) {
    mine.push_back(static_cast<std::int64_t>(w->size()));
    mine.insert(mine.end(), w->begin(), w->end());
  }
  mine.push_back(static_cast<std::int64_t>(opt_.r2r.size()));
  for (auto k : opt_.r2r) mine.push_back(static_cast<int>(k));
  lo.resize(mine.size());
  hi.resize(mine.size());
  const int n = static_cast<int>(mine.size());
  std::int64_t ln = n, lmin = 0, lmax = 0;
  DFFT_MPI(MPI_Allreduce(&ln, &lmin, 1, MPI_INT64_T, MPI_MIN, comm_));
  DFFT_MPI(MPI_Allreduce(&ln, &lmax, 1, MPI_INT64_T, MPI_MAX, comm_));
  if (lmin != lmax) fail("ranks disagree on the plan parameters (grid or method lists differ)");
  DFFT_MPI(MPI_Allreduce(mine.data(), lo.data(), n, MPI_INT64_T, MPI_MIN, comm_));
  DFFT_MPI(MPI_Allreduce(mine.data(), hi.data(), n, MPI_INT64_T, MPI_MAX, comm_));
  if (lo != hi) {
    std::ostringstream s;
    s << "ranks disagree on the plan parameters: shape";
    for (std::size_t i = 0; i < shape.size(); ++i) s << (i ? "x" : " ") << shape[i];
    s << " on rank " << rank_ << " but other ranks differ (size, decomposition, variant, transform, "
      << "backend, grid, methods, normalization, precision, halo widths or a DFFT_ environment switch); make the plan with the same "
      << "arguments on every rank";
    fail(s.str());
  }
}

std::vector<Layout> PlanImpl::allgather_layout(const Layout& l, int d) const {
  return detail::allgather_layouts(comm_, l, d);
}

void PlanImpl::build_steps() {
  const std::size_t nsteps = path_.steps.size();
  const std::size_t cplx = is_double_ ? 16 : 8, real = cplx / 2;
  const bool reals = opt_.transform == Transform::r2r;
  // Workspace: the largest local array any step reads or writes (padding included).
  std::int64_t bytes = 1;
  for (const Step& st : path_.steps) {
    if (st.kind == Step::Kind::fft) {
      const auto out_elem = static_cast<std::int64_t>(reals ? real : cplx);
      const auto in_elem = st.fft.r2c ? static_cast<std::int64_t>(real) : out_elem;
      bytes = std::max({bytes, st.fft.in.alloc_count() * in_elem, st.fft.out.alloc_count() * out_elem,
                        st.fft.wide.alloc_count() * out_elem});
    } else {
      const auto e = static_cast<std::int64_t>(st.exchange.real ? real : cplx);
      bytes = std::max({bytes, st.exchange.src[st.exchange.me].alloc_count() * e,
                        st.exchange.dst[st.exchange.me].alloc_count() * e});
    }
  }
  work_bytes_ = static_cast<std::size_t>((bytes + kWorkAlign - 1) / kWorkAlign * kWorkAlign);
  const auto nx = static_cast<std::size_t>(path_.exchanges);
  if (opt_.methods.size() != 1 && opt_.methods.size() != nx)
    fail("give one method or one per exchange (", nx, " for ", to_string(opt_.decomposition),
         " on grid of ", path_.grid.size(), " dims), got ", opt_.methods.size());
  check_overlap_options();
  exec_.resize(nsteps);
  timings_.resize(nsteps);
  names_.resize(nsteps);
  step_method_.assign(nsteps, opt_.methods[0]);
  codec_ = opt_.codec;
  if (codec_ == Codec::none && opt_.tolerance > 0)
    codec_ = codec_for_tolerance(opt_.tolerance, static_cast<int>(nx), is_double_);
  if (codec_ == Codec::fp32 && !is_double_ && opt_.codec == Codec::fp32)
    fail("codec fp32 narrows double data; this plan is single precision (use fp16 or bf16)");
  for (Method m : opt_.methods) check_method(m, codec_, dev_->on_device());
  for (std::size_t k = 0; k < nsteps; ++k) {
    const Step& st = path_.steps[k];
    std::ostringstream name;
    if (st.kind == Step::Kind::fft) {
      name << "fft(";
      for (std::size_t i = 0; i < st.fft.axes.size(); ++i) name << (i ? "," : "") << st.fft.axes[i];
      name << ")";
    } else {
      // Reshapes to/from user boxes use the first exchange's method.
      const bool reshape = st.exchange.grid_dim < 0;
      exec_[k].method = opt_.methods.size() == 1 || reshape
                            ? opt_.methods[0]
                            : opt_.methods[static_cast<std::size_t>(st.exchange.index)];
      step_method_[k] = exec_[k].method;
      if (reshape) name << "reshape[" << to_string(exec_[k].method) << "]";
      else name << "exchange" << st.exchange.grid_dim << "[" << to_string(exec_[k].method) << "]";
    }
    names_[k] = name.str();
  }
  memory_ = predict_memory();
  for (std::size_t k = 0; k < nsteps; ++k)
    if (path_.steps[k].kind == Step::Kind::fft && path_.steps[k].fft.wide.box.dims() > 0)
      memory_.add(names_[k] + " padded spectrum", 2 * padded_fft_bytes(fft_desc(path_.steps[k], false), path_.steps[k].fft.wide), 0);
  std::int64_t shared_estimate = 0;
  for (std::size_t k = 0; k < nsteps; ++k)
    if (path_.steps[k].kind == Step::Kind::fft && path_.steps[k].fft.wide.box.dims() == 0)
      for (bool inverse : {false, true}) {
        if (!runs(inverse)) continue;
        const Device::FftBytes b = dev_->fft_bytes_estimate(fft_desc(path_.steps[k], inverse));
        fft_estimate_ += b.own;
        shared_estimate = std::max(shared_estimate, b.shared);
      }
  fft_estimate_ += shared_estimate;
  check_memory();
  a_ = Buffer(*dev_, work_bytes_);
  b_ = Buffer(*dev_, work_bytes_);
  // FFT planning is each rank's own, and may fail on some ranks only (Effort::wisdom_only: FFTW
  // has wisdom for one rank's local problem and not another's): every rank learns of a failure
  // before the collective steps after it.
  collectively(comm_, "FFT planning", [&] {
    for (std::size_t k = 0; k < nsteps; ++k)
      if (path_.steps[k].kind == Step::Kind::fft) {
        // A one-direction plan (Options::directions) makes, and under Effort::measure times,
        // only the FFTs it runs: most of a CPU plan's planning time is FFTW's measuring.
        if (runs(false) && needs_out_of_place_fft(k, false)) exec_[k].fwd_fft = make_fft(path_.steps[k], false);
        if (runs(true) && needs_out_of_place_fft(k, true)) exec_[k].inv_fft = make_fft(path_.steps[k], true);
        // Known only once the FFT library has planned: not part of the check above.
        std::int64_t fft_work = 0;
        for (const auto* f : {exec_[k].fwd_fft.get(), exec_[k].inv_fft.get()})
          if (f) fft_work += f->work_bytes();
        add_fft_work(names_[k] + " FFT work areas", fft_work);
      }
  });
  plan_in_place_ends();
  tuning_ = Tuning{opt_.overlap, opt_.chunks, opt_.in_flight};
  build_transports();
  build_directions();
  collectively(comm_, "FFT planning", [&] { plan_keep_input(); });
  // The third buffer exists where an overlap group needs it (memory_ counted it for any
  // overlap > 1); adapt may still make it later.
  work_buffers_ = c_.get() ? 3 : 2;
  memory_.add("FFT library work areas, shared by the plan's FFTs", 0, dev_->shared_fft_work_bytes());
  if (opt_.overlap > 1 && work_buffers_ == 2 && !opt_.adapt && !opt_.user_workspace)
    drop_third_buffer_from_memory();
  if (opt_.user_workspace) {
    // The FFTs were planned on the plan's buffers (FFTW measures on them); from now on every
    // execution brings its own.
    a_ = {};
    b_ = {};
    c_ = {};
  }
}

namespace {

// Seconds of the first step of a direction from `a` into `b`: out of place, or (copy) a copy
// into b and the in-place FFT there; the best of two after a warm-up.
double time_first_step(Device& dev, LocalFft& f, bool copy, const Layout& l, std::size_t elem, void* a, void* b) {
  double best = std::numeric_limits<double>::infinity();
  for (int rep = 0; rep < 3; ++rep) {
    dev.zero(a, static_cast<std::size_t>(l.alloc_count()) * elem);  // planners leave anything there
    dev.synchronize();
    const double t0 = MPI_Wtime();
    if (copy) {
      dev.copy_box(a, l, b, l, l.box, elem);
      f.execute(b, b);
    } else {
      f.execute(a, b);
    }
    dev.synchronize();
    if (rep > 0) best = std::min(best, MPI_Wtime() - t0);
  }
  return best;
}

}  // namespace

int& detail::first_step_copy_choice() {
  static int choice = -1;
  return choice;
}

void PlanImpl::plan_in_place_ends() {
  // FFTW runs a strided c2c stage in place much faster than out of place: with every core of a
  // node busy, the x-FFT of a slab took 1.6-1.8x as long out of place (docs/results/cpu-fftw.md).
  // So a direction that ends with exchange -> c2c FFT lets the exchange write the output array
  // and the FFT transform it there. A direction that starts with a c2c FFT reads the caller's
  // array, which it must not change: there a copy into the work buffer and the in-place FFT are
  // timed against the out-of-place FFT (Effort::measure), and the faster is kept, unless the
  // out-of-place FFT streams its output (LocalFft::streams: nothing moves the data less).
  // GPUs keep out-of-place stages: in place is measured on host memory only.
  const std::size_t n = path_.steps.size();
  if (n < 3 || dev_->on_device()) return;
  const std::size_t elem = is_double_ ? 16 : 8;
  collectively(comm_, "FFT planning", [&] {
  for (bool inverse : {false, true})
    for (bool first : {false, true}) {
      if (!plans_end_in_place(inverse, first)) continue;
      const std::size_t k = inverse == first ? n - 1 : 0;
      const FftDesc d = fft_desc(path_.steps[k], inverse);
      const int forced = first_step_copy_choice();
      auto f = dev_->make_fft(d, a_.get(), a_.get());
      // With destroy_input the inverse's first FFT transforms the caller's array where it lies
      // (run()): no copy and no out-of-place plan to time against.
      if (first && inverse && opt_.destroy_input) {
        exec_[k].inv_in_caller_array = true;
      } else if (first && forced < 0 && f->copies()) {
        // Copying block by block reads the caller's array once and transforms each block in
        // cache: nothing an out-of-place FFT could do in fewer passes.
        (inverse ? exec_[k].inv_copy_first : exec_[k].fwd_copy_first) = true;
      } else if (const LocalFft* oop = (inverse ? exec_[k].inv_fft : exec_[k].fwd_fft).get();
                 first && forced < 0 && oop && oop->streams()) {
        // The out-of-place FFT streams its output: one read and one write, nothing to time.
      } else if (first && forced != 0 && !(forced < 0 && d.effort == Effort::estimate)) {
        bool copy = true;
        if (forced < 0) {
          LocalFft& out_of_place = *(inverse ? exec_[k].inv_fft : exec_[k].fwd_fft);
          const double copied = time_first_step(*dev_, *f, true, d.in, elem, a_.get(), b_.get());
          copy = copied < time_first_step(*dev_, out_of_place, false, d.in, elem, a_.get(), b_.get());
        }
        (inverse ? exec_[k].inv_copy_first : exec_[k].fwd_copy_first) = copy;
      }
      add_fft_work(names_[k] + " in-place FFT work area", f->work_bytes());
      (inverse ? exec_[k].inv_fft_in_place : exec_[k].fwd_fft_in_place) = std::move(f);
    }
  });
  // Each rank timed its own first steps; the normalisation may ride on the first step only where
  // all ranks' first steps apply it, since the exchanges that follow mix the ranks' data: where
  // every rank copies an array of one run (a device with a scaling copy: the CPU's), or
  // transforms the caller's array where it lies (destroy_input) with an FFT that scales block
  // by block. A scaling copy is a pass of its own unless the FFT copies block by block
  // (copies()); it is taken only where not every rank's last FFT applies the normalisation
  // anyway (FFTW's blocks scale in cache). Then no rank scales twice.
  for (bool inverse : {false, true}) {
    const std::size_t k = inverse ? n - 1 : 0;
    const Layout& l = inverse ? path_.output : path_.input;
    const StepExec& e = exec_[n - 1 - k];
    const StepExec& first = exec_[k];
    const LocalFft* last = inverse ? (e.inv_fft_in_place ? e.inv_fft_in_place : e.inv_fft).get()
                                   : (e.fwd_fft_in_place ? e.fwd_fft_in_place : e.fwd_fft).get();
    const LocalFft* in_place = (inverse ? first.inv_fft_in_place : first.fwd_fft_in_place).get();
    const bool copying = in_place && in_place->copies();
    const bool packed = l.alloc_count() == l.box.count() && !has_offset(l);
    const bool copy_first = inverse ? first.inv_copy_first : first.fwd_copy_first;
    const bool in_caller = inverse && first.inv_in_caller_array;
    int mine[3] = {last && last->scales() ? 1 : 0, packed && (copy_first || (in_caller && copying)) ? 1 : 0,
                   copying ? 1 : 0};
    int all[3] = {0, 0, 0};
    DFFT_MPI(MPI_Allreduce(mine, all, 3, MPI_INT, MPI_MIN, comm_));
    (inverse ? exec_[k].inv_copy_scales : exec_[k].fwd_copy_scales) = all[1] == 1 && (all[0] == 0 || all[2] == 1);
  }
}

void PlanImpl::add_fft_work(std::string what, std::int64_t bytes) {
  // The FFTs' own work areas lie where the FFTs run: cuFFT's on the GPU, the CPU's block buffers
  // in host memory.
  const bool gpu = dev_->on_device();
  memory_.add(std::move(what), gpu ? 0 : bytes, gpu ? bytes : 0);
}

bool PlanImpl::plans_end_in_place(bool inverse, bool first) const {
  const std::size_t n = path_.steps.size();
  if (n < 3 || dev_->on_device() || !runs(inverse)) return false;
  const std::size_t k = inverse == first ? n - 1 : 0, beside = k == 0 ? 1 : n - 2;
  const Step& st = path_.steps[k];
  if (st.kind != Step::Kind::fft || path_.steps[beside].kind != Step::Kind::exchange) return false;
  const FftDesc d = fft_desc(st, inverse);
  const bool c2c = d.kind == FftDesc::Kind::forward || d.kind == FftDesc::Kind::backward;
  if (!c2c || d.real || !d.r2r.empty() || st.fft.wide.box.dims() > 0) return false;
  if (!(d.in.box == d.out.box) || d.in.order != d.out.order || d.in.strides() != d.out.strides()) return false;
  // A first step keeps its in-place plan even where copying loses: an execution in place
  // (input and output one array) runs it there, with no copy (run()).
  return !(first && d.in.box.empty() && first_step_copy_choice() != 1);
}

bool PlanImpl::needs_out_of_place_fft(std::size_t k, bool inverse) const {
  const std::size_t n = path_.steps.size();
  // A direction's last step that runs in place, and an inverse's first step that transforms the
  // caller's array where it lies (destroy_input), execute their in-place plans: planning (under
  // Effort::measure, timing) an out-of-place one as well would be a third of such a plan's
  // planning time for nothing. Where an execution still needs it, run() makes it then.
  if (n >= 3 && k == (inverse ? 0 : n - 1) && plans_end_in_place(inverse, false)) return false;
  if (n >= 3 && inverse && k == n - 1 && opt_.destroy_input && plans_end_in_place(true, true)) return false;
  // A first step whose in-place FFT copies block by block runs that FFT whatever the caller
  // passes (plan_in_place_ends times nothing against it).
  if (n >= 3 && k == (inverse ? n - 1 : 0) && first_step_copy_choice() < 0 && plans_end_in_place(inverse, true) &&
      dev_->fft_copies(fft_desc(path_.steps[k], inverse)))
    return false;
  return true;
}

bool PlanImpl::first_fft_in_caller_array(bool inverse) const {
  const Direction& d = dir_[inverse ? 1 : 0];
  if (d.sched.empty() || !d.sched[0].fft || d.group_at[0] >= 0) return false;
  const StepExec& e = exec_[d.sched[0].path_index];
  // The step after it reads the array: it must not write the output array (the same one), nor
  // run in a group, whose sliced FFT after the exchange may write the output while the exchange
  // still reads.
  return (inverse ? e.inv_fft_in_place : e.fwd_fft_in_place) &&
         (d.sched.size() == 1 || (d.out_buf[1] != 1 && d.group_at[1] < 0));
}

void PlanImpl::plan_keep_input() {
  // Only the inverse's first step reads the caller's array, and only outside an overlap group.
  const Direction& d = dir_[1];
  if (!runs(true) || d.sched.empty() || !d.sched[0].fft || d.group_at[0] >= 0) return;
  const std::size_t k = d.sched[0].path_index;
  const Step& st = path_.steps[k];
  // A padded inverse reads its input into its own zero-padded buffer; c2c keeps its input; with
  // destroy_input the c2r runs on the caller's array (run()), with nothing to keep.
  if (!st.fft.r2c || st.fft.wide.box.dims() > 0 || opt_.destroy_input) return;
  exec_[k].inv_keep = make_keep_input_c2r(*dev_, fft_desc(st, true), *exec_[k].inv_fft, a_.get(), b_.get(),
                                          norm_factor(opt_, shape_, true));
  if (exec_[k].inv_keep)
    add_fft_work(names_[k] + " input-keeping inverse FFT work areas", exec_[k].inv_keep->work_bytes());
}

std::int64_t PlanImpl::workspace_bytes() const {
  return static_cast<std::int64_t>(work_bytes_) * work_buffers_;
}

void PlanImpl::use_workspace(void* work, std::int64_t work_bytes) {
  if (!work) {
    if (opt_.user_workspace)
      fail("this plan was made with Options::user_workspace: pass a workspace of at least ",
           workspace_bytes(), " bytes (Plan::workspace_bytes()) to forward() and inverse()");
    work_[0] = a_.get(), work_[1] = b_.get(), work_[2] = c_.get();
    return;
  }
  if (work_bytes < workspace_bytes())
    fail("the workspace has ", work_bytes, " bytes; this plan needs at least ", workspace_bytes(),
         " (Plan::workspace_bytes())");
  if (reinterpret_cast<std::uintptr_t>(work) % 16 != 0)
    fail("the workspace must start on a 16-byte boundary (memory from Plan::allocate() does)");
  char* w = static_cast<char*>(work);
  work_[0] = w;
  work_[1] = w + work_bytes_;
  // A third buffer that adapt made later stays the plan's own.
  work_[2] = work_buffers_ == 3 ? w + 2 * work_bytes_ : c_.get();
}

void PlanImpl::check_overlap_options() const {
  if (opt_.overlap < 1) fail("overlap must be at least 1 slice, got ", opt_.overlap);
  if (opt_.chunks < 1) fail("chunks must be at least 1, got ", opt_.chunks);
  if (opt_.in_flight < 1) fail("in_flight must be at least 1, got ", opt_.in_flight);
  if ((opt_.overlap > 1 || opt_.adapt) && size_ > 1) {
    int provided = MPI_THREAD_SINGLE;
    DFFT_MPI(MPI_Query_thread(&provided));
    if (provided < MPI_THREAD_SERIALIZED)
      unsupported("overlap and adapt run exchanges on a communication thread: initialise MPI with "
           "MPI_Init_thread(..., MPI_THREAD_SERIALIZED or MPI_THREAD_MULTIPLE, ...) (this MPI "
           "provides level ", provided, "), or use overlap = 1");
  }
}

FftDesc PlanImpl::fft_desc(const Step& st, bool inverse) const {
  FftDesc d;
  d.axes = st.fft.axes;
  d.is_double = is_double_;
  d.effort = opt_.effort;
  d.in = st.fft.in;
  d.out = st.fft.out;
  d.r2r = st.fft.r2r;
  d.real = opt_.transform == Transform::r2r;
  d.kind = st.fft.r2c ? FftDesc::Kind::r2c : FftDesc::Kind::forward;
  if (inverse) {
    std::swap(d.in, d.out);
    d.kind = st.fft.r2c ? FftDesc::Kind::c2r : FftDesc::Kind::backward;
    for (R2R& k : d.r2r) k = r2r_inverse(k);
  }
  // The direction's last FFT may apply the normalisation as it stores (a cuFFT callback), which
  // saves a pass over the output. The inverse runs the path backwards.
  const bool periodic = std::all_of(d.r2r.begin(), d.r2r.end(), [](R2R k) { return k == R2R::none; });
  if (&st == (inverse ? &path_.steps.front() : &path_.steps.back()) && st.fft.wide.box.dims() == 0 &&
      !d.real && periodic)
    d.scale = norm_factor(opt_, shape_, inverse);
  return d;
}

std::unique_ptr<LocalFft> PlanImpl::make_fft(const Step& st, bool inverse) const {
  if (st.fft.wide.box.dims() == 0) return dev_->make_fft(fft_desc(st, inverse), a_.get(), b_.get());
  const int o = opt_.batch > 1 ? 1 : 0;
  const std::int64_t halved_n = st.fft.r2c ? shape_[static_cast<std::size_t>(st.fft.axes.back() - o)] : 0;
  return make_padded_fft(*dev_, fft_desc(st, inverse), st.fft.wide, halved_n, a_.get(), b_.get());
}

ExchangeSpec PlanImpl::exchange_spec(const Step& st, bool inverse) const {
  const std::size_t cplx = is_double_ ? 16 : 8;
  const bool reshape = st.exchange.grid_dim < 0;
  ExchangeSpec s;
  s.src = st.exchange.src;
  s.dst = st.exchange.dst;
  s.me = st.exchange.me;
  s.elem = st.exchange.real ? cplx / 2 : cplx;
  s.max_message_bytes = opt_.max_message_bytes;
  s.staging = opt_.staging;
  s.is_double = is_double_;
  s.codec = reshape ? Codec::none : codec_;
  s.node = reshape ? topo_.node : sub_node_[st.exchange.grid_dim];
  if (inverse) std::swap(s.src, s.dst);
  return s;
}

MPI_Comm PlanImpl::exchange_comm(const Step& st) const {
  return st.exchange.grid_dim < 0 ? comm_ : sub_[st.exchange.grid_dim];
}

std::unique_ptr<Transport> PlanImpl::make_x(const Step& st, Method m, const ExchangeSpec& s) const {
  TransportTuning tune{opt_.onesided_sync, tuning_.chunks, tuning_.in_flight, comm_, chunk_taper_ == 1};
  return make_transport(m, exchange_comm(st), s, *dev_, tune);
}

void PlanImpl::build_transports() {
  NodeTraffic mine;
  for (std::size_t k = 0; k < path_.steps.size(); ++k) {
    const Step& st = path_.steps[k];
    if (st.kind != Step::Kind::exchange) continue;
    const auto fwd = exchange_spec(st, false);
    if (runs(false)) exec_[k].fwd_x = make_x(st, step_method_[k], fwd);
    if (runs(true)) exec_[k].inv_x = make_x(st, step_method_[k], exchange_spec(st, true));
    const auto t = sent_traffic(step_method_[k], fwd);
    mine.intra_node_messages += t.intra_node_messages;
    mine.intra_node_bytes += t.intra_node_bytes;
    mine.inter_node_messages += t.inter_node_messages;
    mine.inter_node_bytes += t.inter_node_bytes;
  }
  std::int64_t v[4] = {mine.intra_node_messages, mine.intra_node_bytes, mine.inter_node_messages,
                       mine.inter_node_bytes};
  std::int64_t sum[4] = {};
  DFFT_MPI(MPI_Allreduce(v, sum, 4, MPI_INT64_T, MPI_SUM, comm_));
  traffic_ = NodeTraffic{sum[0], sum[1], sum[2], sum[3]};
}

void PlanImpl::choose_automatically(bool user_boxes) {
  const MachineFacts f = machine_facts(comm_, opt_, topo_, dev_->ordinal());
  // A tuned entry for this problem wins over the model: it was measured on this machine. One rank
  // has nothing to choose, and the wisdom key does not hold the boxes of the box API.
  if (size_ > 1 && !user_boxes && choose_from_wisdom(comm_, f, shape_, opt_, is_double_, auto_)) {
    opt_ = auto_.chosen;
    return;
  }
  std::vector<std::string> warnings(auto_.warnings);
  std::string source;
  // One rank exchanges nothing: no prediction is made, so no calibration is looked for.
  const auto cal = size_ > 1 ? machine_calibration(comm_, f, opt_, source, warnings) : model::Calibration{};
  auto_ = choose_automatic(f, shape_, opt_, is_double_, cal);
  auto_.calibration = source;
  // Wisdom that was there but not usable says why beside the model's choice.
  auto_.warnings.insert(auto_.warnings.begin(), warnings.begin(), warnings.end());
  opt_ = auto_.chosen;
}

void PlanImpl::find_devices_per_node() {
  const int mine = dev_->ordinal();
  std::vector<int> all(static_cast<std::size_t>(size_));
  DFFT_MPI(MPI_Allgather(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, comm_));
  for (int n = 0; n < topo_.nodes(); ++n) {
    std::vector<int> seen;
    for (int r : topo_.members(n))
      if (all[r] >= 0 && std::find(seen.begin(), seen.end(), all[r]) == seen.end()) seen.push_back(all[r]);
    topo_.devices_per_node = std::max(topo_.devices_per_node, static_cast<int>(seen.size()));
  }
}

void* PlanImpl::buffer(int id, const void* in, void* out) const {
  switch (id) {
    case 0: return const_cast<void*>(in);  // out-of-place r2c/c2c leave their input untouched
    case 1: return out;
    case 2: return work_[0];
    case 3: return work_[1];
    // adapt may make the third buffer during an execution, after use_workspace() ran
    default: return work_[2] ? work_[2] : c_.get();
  }
}

bool PlanImpl::run(bool inverse, const void* in, void* out, double factor) {
  Direction& d = dir_[inverse ? 1 : 0];
  const std::size_t n = d.sched.size();
  void* cur = const_cast<void*>(in);
  bool scaled = false;
  for (std::size_t j = 0; j < n;) {
    if (d.group_at[j] >= 0) {
      GroupExec& g = d.groups[static_cast<std::size_t>(d.group_at[j])];
      const GroupPlan& p = g.plan;
      void* p1 = p.has_pre ? buffer(d.out_buf[j], in, out) : cur;
      void* p2 = buffer(d.out_buf[p.x()], in, out);
      if (p2 == out && cur == out) {
        // Executed in place, the group's first FFT slices read the caller's array while its
        // exchange would write the output array, the same one: the exchange writes a free work
        // buffer instead, and the step after the group reads it from there (out of place).
        p2 = p1 == work_[0] ? work_[1] : work_[0];
      }
      void* p3 = p.has_post ? buffer(d.out_buf[p.x() + 1], in, out) : p2;
      // With FFT slices before the exchange every one of them has read the array before the
      // first slice after the exchange writes it (run_group issues them first); without, the
      // exchange itself would read what the FFT slices write.
      if (!p.has_pre && p3 == out && cur == out)
        fail_internal("an overlap group that reads the caller's array writes it as well (executed in place)");
      GroupTiming gt;
      // A copy of the first step that applied the normalisation leaves none to the FFT slices
      // after the exchange (on a rank whose slices scale where another rank's do not).
      run_group(g, *dev_, cur, p1, p2, p3, gt, scaled);
      if (p.has_post && std::any_of(g.slices.begin(), g.slices.end(),
                                    [](const GroupExec::Slice& s) { return s.g && s.g->scales(); }))
        scaled = true;
      if (p.has_pre) {
        timings_[j] = StageTiming{names_[d.sched[j].path_index]};
        timings_[j].fft = gt.f_busy;
      }
      StageTiming& xt = timings_[p.x()];
      xt = gt.x;
      xt.name = names_[d.sched[p.x()].path_index];
      xt.wall = gt.wall;
      xt.slices = static_cast<int>(g.slices.size());
      if (p.has_post) {
        timings_[p.x() + 1] = StageTiming{names_[d.sched[p.x() + 1].path_index]};
        timings_[p.x() + 1].fft = gt.g_busy;
      }
      cur = p3;
      j = p.last() + 1;
      continue;
    }
    const std::size_t k = d.sched[j].path_index;
    void* next = buffer(d.out_buf[j], in, out);
    StageTiming& t = timings_[j];
    t = StageTiming{names_[k]};
    if (next == cur && !d.sched[j].fft) {  // an identity exchange (see build_direction)
      ++j;
      continue;
    }
    if (d.sched[j].fft) {
      double t0 = MPI_Wtime();
      const Step& st = path_.steps[k];
      if (inverse && cur == in && cur != out && st.fft.r2c && st.fft.wide.box.dims() == 0 && !opt_.destroy_input) {
        // A multi-dimensional c2r overwrites its input (FFTW and cuFFT alike), and the caller's
        // is const: plan_keep_input chose how to keep it, or (DCT/DST axes, one axis) transform
        // a copy. The scratch is a work buffer this step does not write.
        void* scratch = next == work_[0] ? work_[1] : work_[0];
        if (exec_[k].inv_keep) {
          // The last step (it writes the output) may fold the normalisation in.
          scaled = exec_[k].inv_keep->execute(cur, scratch, next, next == out ? factor : 1) && next == out;
        } else {
          // The last step folds the normalisation into the FFT's stores where it can, else into
          // the copy (copy_spectrum).
          LocalFft& f = *exec_[k].inv_fft;
          const bool last = next == out && !f.scales();
          scaled = copy_spectrum(*dev_, cur, d.sched[j].in, scratch, is_double_, last ? factor : 1) && last;
          f.execute(scratch, next);
          scaled = scaled || f.scales();
        }
      } else if (cur == in && j == 0 &&
                 (in == out ? first_fft_in_caller_array(inverse) : inverse && exec_[k].inv_in_caller_array)) {
        // Executed in place (the caller's array is the output as well), or an inverse that may
        // destroy its input: the first FFT transforms the array where it lies, and the step
        // after it reads it from there (executed in place, never writing it: its output is a
        // work buffer).
        LocalFft& f = *(inverse ? exec_[k].inv_fft_in_place : exec_[k].fwd_fft_in_place);
        const bool agreed = factor != 1 && !scaled && (inverse ? exec_[k].inv_copy_scales : exec_[k].fwd_copy_scales);
        if (agreed && f.copies()) {
          // Block by block, each block scaled while in cache.
          f.execute_copying(in, const_cast<void*>(in), factor);
          scaled = true;
        } else {
          f.execute(const_cast<void*>(in), const_cast<void*>(in));
          scaled = scaled || f.scales();
          // Where the ranks agreed that the first step applies the normalisation, a rank that
          // copies nothing applies it here, before the exchange, as the others do.
          if (agreed && !scaled) {
            dev_->scale(const_cast<void*>(in), 2 * d.sched[j].in.box.count(), factor, is_double_);
            scaled = true;
          }
        }
        next = const_cast<void*>(in);
      } else if (cur == in && (inverse ? exec_[k].inv_copy_first : exec_[k].fwd_copy_first)) {
        // The copy into the workspace carries the normalisation where every rank's does (the
        // FFTs and exchanges that follow are linear): no pass of its own over the output.
        const Layout& l = d.sched[j].in;
        LocalFft& f = *(inverse ? exec_[k].inv_fft_in_place : exec_[k].fwd_fft_in_place);
        const bool agreed = factor != 1 && !scaled && (inverse ? exec_[k].inv_copy_scales : exec_[k].fwd_copy_scales);
        if (f.copies()) {
          f.execute_copying(cur, next, agreed ? factor : 1);
          scaled = scaled || agreed;
        } else {
          if (agreed && dev_->scale_copy(cur, next, 2 * l.box.count(), factor, is_double_))
            scaled = true;
          else
            dev_->copy_box(cur, l, next, l, l.box, is_double_ ? 16 : 8);
          f.execute(next, next);
          scaled = scaled || f.scales();
        }
      } else {
        auto& oop = inverse ? exec_[k].inv_fft : exec_[k].fwd_fft;
        LocalFft* in_place = (inverse ? exec_[k].inv_fft_in_place : exec_[k].fwd_fft_in_place).get();
        if (!(cur == next && in_place) && !oop) {
          // Not planned (needs_out_of_place_fft): an execution the schedule did not foresee
          // (an in-place call, an overlap setting adapt chose). Planned now with
          // Effort::estimate, which reads no array: the work buffers hold this execution's data.
          FftDesc desc = fft_desc(st, inverse);
          desc.effort = Effort::estimate;
          oop = dev_->make_fft(desc, work_[0], work_[1]);
        }
        LocalFft* f = oop.get();
        LocalFft* used = cur == next && in_place ? in_place : f;
        if (cur == next && !in_place && !dev_->on_device()) {
          // FFTW runs a plan made out of place only out of place: a step handed one array for
          // both (a one-step plan executed in place) transforms a copy of it in a work buffer.
          void* copy = work_[0] != cur ? work_[0] : work_[1];
          dev_->copy_box(cur, d.sched[j].in, copy, d.sched[j].in, d.sched[j].in.box, elem_in(fft_desc(st, inverse)));
          if (scaled && used->scales()) used->execute_unscaled(copy, next);
          else used->execute(copy, next);
        } else if (scaled && used->scales()) {
          used->execute_unscaled(cur, next);  // the copy of the first step applied it already
        } else {
          used->execute(cur, next);
        }
        scaled = scaled || used->scales();
      }
      dev_->synchronize();
      t.fft = MPI_Wtime() - t0;
    } else {
      (inverse ? exec_[k].inv_x : exec_[k].fwd_x)->execute(cur, next, t);
    }
    cur = next;
    ++j;
  }
  return scaled;
}

void PlanImpl::forward(const void* in, void* out, void* work, std::int64_t work_bytes) {
  transform(false, in, out, work, work_bytes);
}

void PlanImpl::inverse(const void* in, void* out, void* work, std::int64_t work_bytes) {
  transform(true, in, out, work, work_bytes);
}

namespace {

// Multiplies the box of `l` in `data` by `factor`, one run of its fastest axis at a time where
// the array has a halo or padding (those cells are the caller's: never written). `whole`: the
// padding is the transform's own (in-place r2c), scaled with the rest in one pass.
void scale_box(Device& dev, void* data, const Layout& l, bool whole, bool complex, double factor, bool is_double) {
  const std::int64_t m = complex ? 2 : 1;
  if (whole || l.alloc_count() == l.box.count()) {
    dev.scale(data, l.alloc_count() * m, factor, is_double);
    return;
  }
  if (l.box.empty()) return;
  const std::int64_t real_bytes = is_double ? 8 : 4;
  const int fast = l.order.back();
  auto idx = l.box.lo;
  for (;;) {
    dev.scale(static_cast<char*>(data) + l.offset_of(idx) * m * real_bytes, l.box.extent(fast) * m, factor, is_double);
    // Next run: count up the other axes, fastest of them first.
    int k = static_cast<int>(l.order.size()) - 2;
    for (; k >= 0; --k) {
      const int a = l.order[static_cast<std::size_t>(k)];
      if (++idx[a] < l.box.hi[a]) break;
      idx[a] = l.box.lo[a];
    }
    if (k < 0) return;
  }
}

}  // namespace

void PlanImpl::transform(bool inverse, const void* in, void* out, void* work, std::int64_t work_bytes) {
  if (!runs(inverse))
    fail("this plan runs the ", to_string(opt_.directions), " direction only (Options::directions); ",
         inverse ? "inverse()" : "forward()", " needs a plan with directions both or ", inverse ? "inverse" : "forward");
  use_workspace(work, work_bytes);
  adapt_before();
  const double t0 = MPI_Wtime();
  const double f = norm_factor(opt_, shape_, inverse);
  // The steps see the caller's arrays from their boxes' first elements (Layout::offset).
  const Layout& from = inverse ? path_.output : path_.input;
  const Layout& to = inverse ? path_.input : path_.output;
  const std::int64_t cplx = is_double_ ? 16 : 8;
  const bool real_space_complex = opt_.transform == Transform::c2c, spectral_complex = opt_.transform != Transform::r2r;
  const bool from_complex = inverse ? spectral_complex : real_space_complex;
  const bool complex = inverse ? real_space_complex : spectral_complex;
  const auto* run_in = static_cast<const char*>(in) + box_start(from) * (from_complex ? cplx : cplx / 2);
  auto* run_out = static_cast<char*>(out) + box_start(to) * (complex ? cplx : cplx / 2);
  const bool scaled = run(inverse, run_in, run_out, f);
  if (f != 1 && !scaled) {
    // The scaling is part of the last stage's FFT time.
    const double t1 = MPI_Wtime();
    scale_box(*dev_, out, to, opt_.in_place, complex, f, is_double_);
    dev_->synchronize();
    timings_.back().fft += MPI_Wtime() - t1;
  }
  dev_->synchronize();
  adapt_after(MPI_Wtime() - t0);
}

std::vector<std::int64_t> PlanImpl::exchange_bytes() const {
  std::vector<std::int64_t> v;
  for (const auto& st : path_.steps)
    if (st.kind == Step::Kind::exchange) {
      const std::size_t cplx = is_double_ ? 16 : 8;
      ExchangeSpec s;
      s.src = st.exchange.src;
      s.dst = st.exchange.dst;
      s.me = st.exchange.me;
      s.elem = st.exchange.real ? cplx / 2 : cplx;
      s.codec = st.exchange.grid_dim < 0 ? Codec::none : codec_;
      s.is_double = is_double_;
      v.push_back(Blocks(s).sent_bytes());
    }
  return v;
}

std::string PlanImpl::describe() const {
  std::ostringstream s;
  s << auto_.describe();
  for (const auto& w : warnings_) s << "warning: " << w << "\n";
  s << detail::describe(path_);
  s << "nodes: " << topo_.nodes() << (topo_.emulated ? " (emulated)" : "") << ", devices per node "
    << topo_.devices_per_node << "\n";
  if (!threads_why_.empty()) s << threads_why_ << "\n";
  s << "per transform, all ranks: intra-node " << traffic_.intra_node_messages << " messages "
    << traffic_.intra_node_bytes << " bytes, inter-node " << traffic_.inter_node_messages << " messages "
    << traffic_.inter_node_bytes << " bytes\n";
  // The caller's arrays with a halo or padding: read and written strided, or through a reshape.
  for (bool output : {false, true}) {
    const Layout& l = output ? path_.output : path_.input;
    if (opt_.in_place || (l.alloc_count() == l.box.count() && !has_offset(l))) continue;
    const Step& end = output ? path_.steps.back() : path_.steps.front();
    s << (output ? "output" : "input") << " array: offset (";
    for (int a = 0; a < l.box.dims(); ++a) s << (a ? "," : "") << l.offset_on(a);
    s << ") allocated (";
    for (int a = 0; a < l.box.dims(); ++a) s << (a ? "," : "") << l.alloc_extent(a);
    s << "): ";
    if (end.kind == Step::Kind::fft)
      s << (output ? "the last forward FFT writes it, the first inverse FFT reads it" : "the first forward FFT reads it, the last inverse FFT writes it")
        << ", strided (no copy)\n";
    else
      s << "copied by the reshape " << (output ? "to" : "from") << " the decomposition's blocks (and back)\n";
  }
  // FFT steps whose engine is not the FFT library, or was chosen by timing (a GPU's column kernel).
  for (std::size_t k = 0; k < exec_.size(); ++k)
    for (bool inverse : {false, true}) {
      // The out-of-place FFT, or the in-place one where only that was planned.
      const StepExec& e = exec_[k];
      const LocalFft* f = inverse ? (e.inv_fft ? e.inv_fft : e.inv_fft_in_place).get()
                                  : (e.fwd_fft ? e.fwd_fft : e.fwd_fft_in_place).get();
      if (!f || (f->engine().empty() && f->engine_timing().empty())) continue;
      s << names_[k] << (inverse ? " inverse: " : " forward: ") << (f->engine().empty() ? "the FFT library" : f->engine());
      if (const auto t = f->engine_timing(); !t.empty()) s << " (timed: " << t << ")";
      s << "\n";
    }
  for (const StepExec& e : exec_)
    if (e.inv_keep) {
      s << "inverse from the caller's array: " << e.inv_keep->name();
      if (const auto t = e.inv_keep->timings(); !t.empty()) s << " (timed: " << t << ")";
      s << "\n";
    }
  if (opt_.directions != Directions::both)
    s << "directions: " << to_string(opt_.directions) << " only (the other direction is not planned)\n";
  // A first FFT that reorders (a transposed input whose exchange moves nothing, CPU) gathers the
  // caller's array block by block into the workspace: it never writes it.
  auto reorders = [&](std::size_t k, bool inverse) {
    const StepExec& e = exec_[k];
    const LocalFft* f = (inverse ? e.inv_fft : e.fwd_fft).get();
    const FftStep& st = path_.steps[k].fft;
    return f && f->copies() && st.in.order != st.out.order;
  };
  for (bool inverse : {false, true})
    for (std::size_t j = 0; j < dir_[inverse ? 1 : 0].sched.size(); ++j)
      if (const auto& x = dir_[inverse ? 1 : 0].sched[j]; x.fft && reorders(x.path_index, inverse))
        s << (inverse ? "inverse: " : "forward: ") << names_[x.path_index]
          << " reorders: it gathers blocks of columns from the order before and transforms each in cache\n";
  if (const Direction& d = dir_[1]; !d.sched.empty() && d.sched[0].fft && d.group_at[0] < 0 &&
                                    !path_.steps[d.sched[0].path_index].fft.r2c && reorders(d.sched[0].path_index, true)) {
    s << "inverse input: kept (the first FFT reads it block by block while reordering"
      << (opt_.destroy_input ? "; destroy_input changes nothing" : "") << ")\n";
  } else if (!d.sched.empty() && d.sched[0].fft && d.group_at[0] < 0 && path_.steps[d.sched[0].path_index].fft.r2c) {
    const bool padded = path_.steps[d.sched[0].path_index].fft.wide.box.dims() > 0;
    s << "inverse input: " << (!opt_.destroy_input ? "kept (the c2r reads a copy, or a split that keeps it)"
                               : padded ? "kept (destroy_input; a padded c2r reads a zero-padded copy anyway)"
                                        : "overwritten (destroy_input: the c2r runs on the caller's array)")
      << "\n";
  }
  for (bool inverse : {false, true}) {
    const Direction& d = dir_[inverse ? 1 : 0];
    const std::size_t n = d.sched.size();
    if (n >= 3 && d.out_buf[n - 2] == 1)
      s << (inverse ? "inverse" : "forward") << ": the last exchange writes the output array, the last FFT runs in place there\n";
    if (n == 0) continue;
    const StepExec& first = exec_[d.sched.front().path_index];
    const bool in_place_too = first_fft_in_caller_array(inverse) && (opt_.in_place || opt_.transform == Transform::c2c);
    if (in_place_too)
      s << (inverse ? "inverse" : "forward") << " executed in place (input and output one array): the first FFT "
        << "transforms the array where it lies\n";
    const bool first_scales =
        norm_factor(opt_, shape_, inverse) != 1 && (inverse ? first.inv_copy_scales : first.fwd_copy_scales);
    const LocalFft* first_in_place = (inverse ? first.inv_fft_in_place : first.fwd_fft_in_place).get();
    const bool blocks = first_in_place && first_in_place->copies();
    if (inverse && first.inv_in_caller_array)
      s << "inverse input: overwritten (destroy_input: the first FFT transforms the caller's array where it lies"
        << (first_scales && blocks ? ", applying the normalisation to each block of columns while in cache" : "")
        << ")\n";
    if (inverse ? first.inv_copy_first : first.fwd_copy_first)
      s << (inverse ? "inverse" : "forward") << (in_place_too ? " executed out of place" : "")
        << (blocks ? ": the first FFT copies the input into the workspace block by block and transforms each block there"
                     " while in cache"
                   : ": the first FFT copies the input into the workspace and runs in place there")
        << (first_scales ? "; the copy applies the normalisation" : "") << "\n";
    const StepExec& last = exec_[d.sched.back().path_index];
    const LocalFft* f = inverse ? (last.inv_fft ? last.inv_fft : last.inv_fft_in_place).get()
                                : (last.fwd_fft ? last.fwd_fft : last.fwd_fft_in_place).get();
    // Where the first step's copy applies it, the last FFT runs without (execute_unscaled).
    // A c2r that keeps the caller's input (inv_keep) is run by the pieces its name lists.
    if (norm_factor(opt_, shape_, inverse) != 1 && d.sched.back().fft && f && f->scales() &&
        !(inverse ? first.inv_copy_scales : first.fwd_copy_scales) && !(inverse && last.inv_keep && n == 1))
      s << (inverse ? "inverse" : "forward") << ": the normalisation is applied by the last FFT as it stores ("
        << (!f->engine().empty() ? f->engine()
            : dev_->on_device()  ? std::string("cuFFT callback")
                                 : std::string("FFTW, in blocks of the batch while in cache"))
        << ")\n";
  }
  return s.str();
}

double norm_factor(const Options& opt, const std::vector<std::int64_t>& shape, bool inverse) {
  // Forward then inverse multiplies each transformed axis by its logical size (n periodic,
  // 2n most DCT/DST; padded axes by their physical size).
  const double n = transform_size(shape, opt);
  switch (opt.norm) {
    case Norm::ortho: return 1 / std::sqrt(n);
    case Norm::forward: return inverse ? 1 : 1 / n;
    case Norm::none: return 1;
    case Norm::backward: break;
  }
  return inverse ? 1 / n : 1;
}

}  // namespace dfft
