// SPDX-License-Identifier: MIT
#include "measure.hpp"

#include <algorithm>
#include <complex>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "dfft/dfft.hpp"
#include "dfft/option_fields.hpp"
#include "dfft/tune.hpp"
#include "dfft/validate.hpp"
#include "mpi_check.hpp"
#include "stats.hpp"

namespace dfftapp {

namespace {

constexpr std::uint64_t kSeed = 20240607;

// Plan memory (device memory with the CUDA backend), freed through the plan.
template <class T>
class PlanBuffer {
 public:
  PlanBuffer(const dfft::Plan<T>& p, std::size_t bytes)
      : plan_(p), bytes_(bytes), ptr_(p.allocate(std::max<std::size_t>(bytes, 1))) {}
  ~PlanBuffer() { plan_.deallocate(ptr_); }
  PlanBuffer(const PlanBuffer&) = delete;
  PlanBuffer& operator=(const PlanBuffer&) = delete;
  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  const dfft::Plan<T>& plan_;
  std::size_t bytes_;
  void* ptr_;
};

// Runs body(begin, end) over [0, n) split into `threads` ranges, one per thread (the calling one
// among them). Ranges whose thread could not be started run on the calling thread.
template <class F>
void parallel_ranges(std::int64_t n, int threads, F&& body) {
  threads = static_cast<int>(std::clamp<std::int64_t>(threads, 1, std::max<std::int64_t>(n, 1)));
  auto range = [&](int t) { body(n * t / threads, n * (t + 1) / threads); };
  std::vector<std::thread> pool;
  int started = 1;
  try {
    for (; started < threads; ++started) pool.emplace_back(range, started);
  } catch (const std::system_error&) {
  }
  range(0);
  for (int t = started; t < threads; ++t) range(t);
  for (auto& th : pool) th.join();
}

// Pseudo-random input that depends only on the global index, so every decomposition transforms
// the same global array. Generated a row (the last global axis) at a time on `threads` threads:
// at 1024^3 an element-by-element walk over the layout took longer than the configuration's
// timed runs.
template <class T>
void fill_input(const dfft::Plan<T>& plan, bool real, PlanBuffer<T>& dst, int threads) {
  const dfft::Layout& l = plan.input_layout();
  // A batched plan's layouts carry the batch as a leading axis.
  std::vector<std::int64_t> shape = plan.physical_shape();
  if (l.box.dims() == static_cast<int>(shape.size()) + 1) shape.insert(shape.begin(), plan.options().batch);
  if (l.box.dims() != static_cast<int>(shape.size()))
    throw std::logic_error("fill_input: the input box has " + std::to_string(l.box.dims()) + " axes, the array " +
                           std::to_string(shape.size()));
  const std::size_t count = static_cast<std::size_t>(plan.input_count()) * (real ? 1 : 2);
  auto host = std::make_unique_for_overwrite<T[]>(count);
  // Padding and halo cells are zero; the box is written below.
  parallel_ranges(static_cast<std::int64_t>(count), threads, [&](std::int64_t lo, std::int64_t hi) {
    std::fill(host.get() + lo, host.get() + hi, T(0));
  });
  if (!l.box.empty()) {
    const int d = l.box.dims();
    const std::int64_t row = l.box.extent(d - 1), step = l.strides()[static_cast<std::size_t>(d - 1)];
    std::int64_t rows = 1;
    for (int a = 0; a + 1 < d; ++a) rows *= l.box.extent(a);
    parallel_ranges(rows, threads, [&](std::int64_t first, std::int64_t last) {
      std::vector<std::int64_t> idx(static_cast<std::size_t>(d));
      for (std::int64_t r = first; r < last; ++r) {
        std::int64_t rest = r;
        for (int a = d - 2; a >= 0; --a) {
          idx[static_cast<std::size_t>(a)] = l.box.lo[static_cast<std::size_t>(a)] + rest % l.box.extent(a);
          rest /= l.box.extent(a);
        }
        idx[static_cast<std::size_t>(d - 1)] = l.box.lo[static_cast<std::size_t>(d - 1)];
        std::int64_t lin = 0;
        for (int a = 0; a < d; ++a) lin = lin * shape[static_cast<std::size_t>(a)] + idx[static_cast<std::size_t>(a)];
        const std::int64_t off = l.offset_of(idx);
        for (std::int64_t j = 0; j < row; ++j) {
          const auto u = static_cast<std::uint64_t>(lin + j);
          const auto o = static_cast<std::size_t>(off + j * step);
          if (real) {
            host[o] = static_cast<T>(dfft::validate::random_value(u, kSeed));
          } else {
            host[2 * o] = static_cast<T>(dfft::validate::random_value(2 * u, kSeed));
            host[2 * o + 1] = static_cast<T>(dfft::validate::random_value(2 * u + 1, kSeed));
          }
        }
      }
    });
  }
  plan.upload(dst.get(), host.get(), count * sizeof(T));
}

// Threads for host-side set-up work: the node's cores shared among its ranks.
int setup_threads(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  APP_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int local = 1;
  APP_MPI(MPI_Comm_size(node, &local));
  APP_MPI(MPI_Comm_free(&node));
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::max(1, cores / std::max(1, local));
}

// Reports run `k` of the `2 * (warmup + reps)` of a configuration (forward, then inverse).
void report_step(const MeasureSettings& s, const char* what, int k) {
  if (!s.step) return;
  const int per_direction = s.warmup + s.reps;
  s.step(std::string(what) + " run " + std::to_string(k % per_direction + 1) + " of " + std::to_string(per_direction),
         static_cast<double>(k) / (2.0 * per_direction));
}

template <class T, class Run>
DirectionTiming time_direction(dfft::Plan<T>& plan, Run&& run, const MeasureSettings& s, MPI_Comm comm,
                               const char* what, int first_run, const std::function<void()>& prepare = {}) {
  for (int i = 0; i < s.warmup; ++i) {
    report_step(s, what, first_run + i);
    if (prepare) prepare();
    run();
  }
  std::vector<double> total, phase[4], own[4];
  const std::size_t nst = plan.timings().size();
  std::vector<std::array<std::vector<double>, 4>> stage(nst);
  for (int i = 0; i < s.reps; ++i) {
    report_step(s, what, first_run + s.warmup + i);
    if (prepare) prepare();
    APP_MPI(MPI_Barrier(comm));
    double t0 = MPI_Wtime();
    run();
    // total, the four phases, then each stage's four phases
    std::vector<double> mine(5 + 4 * nst, 0.0), worst(mine.size());
    mine[0] = MPI_Wtime() - t0;
    for (std::size_t k = 0; k < nst; ++k) {
      const auto& st = plan.timings()[k];
      const double v[4] = {st.fft, st.pack, st.comm, st.unpack};
      for (int p = 0; p < 4; ++p) {
        mine[1 + static_cast<std::size_t>(p)] += v[p];
        mine[5 + 4 * k + static_cast<std::size_t>(p)] = v[p];
      }
    }
    APP_MPI(MPI_Allreduce(mine.data(), worst.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_MAX, comm));
    total.push_back(worst[0] * 1e3);
    for (int p = 0; p < 4; ++p) {
      phase[p].push_back(worst[1 + static_cast<std::size_t>(p)] * 1e3);
      own[p].push_back(mine[1 + static_cast<std::size_t>(p)] * 1e3);
      for (std::size_t k = 0; k < nst; ++k) stage[k][static_cast<std::size_t>(p)].push_back(worst[5 + 4 * k + static_cast<std::size_t>(p)] * 1e3);
    }
  }
  DirectionTiming t;
  t.min = *std::min_element(total.begin(), total.end());
  t.max = *std::max_element(total.begin(), total.end());
  t.median = median(total);
  t.fft = median(phase[0]);
  t.pack = median(phase[1]);
  t.comm = median(phase[2]);
  t.unpack = median(phase[3]);
  t.samples = total;
  for (std::size_t k = 0; k < nst; ++k)
    t.stages.push_back({plan.timings()[k].name, {median(stage[k][0]), median(stage[k][1]), median(stage[k][2]), median(stage[k][3])}});
  // Per-rank phases show load imbalance that the max over ranks hides.
  int rank = 0, size = 1;
  APP_MPI(MPI_Comm_rank(comm, &rank));
  APP_MPI(MPI_Comm_size(comm, &size));
  std::array<double, 4> mine{median(own[0]), median(own[1]), median(own[2]), median(own[3])};
  std::vector<std::array<double, 4>> all(rank == 0 ? static_cast<std::size_t>(size) : 0);
  APP_MPI(MPI_Gather(mine.data(), 4, MPI_DOUBLE, all.data(), 4, MPI_DOUBLE, 0, comm));
  t.rank_phases = std::move(all);
  return t;
}

// The benchmark's own arrays, on every rank or on none. The plan's memory check covers what the
// plan holds, not the caller's arrays; a rank whose allocation failed alone would leave the others
// waiting in the first exchange. Arrays that do not fit skip the configuration, like a plan that
// does not fit.
template <class T>
std::vector<std::unique_ptr<PlanBuffer<T>>> allocate_arrays(const dfft::Plan<T>& plan,
                                                            const std::vector<std::size_t>& bytes, MPI_Comm comm) {
  std::vector<std::unique_ptr<PlanBuffer<T>>> arrays;
  std::string why;
  try {
    for (std::size_t b : bytes) arrays.push_back(std::make_unique<PlanBuffer<T>>(plan, b));
  } catch (const dfft::OutOfMemory& e) {
    why = e.what();
  }
  int mine = why.empty() ? 0 : 1, any = 0;
  APP_MPI(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm));
  if (any == 0) return arrays;
  arrays.clear();
  std::size_t total = 0;
  for (std::size_t b : bytes) total += b;
  throw Rejected("the benchmark's input, output and inverse arrays (" + std::to_string(total) +
                 " bytes per rank) do not fit beside the plan (" + std::to_string(plan.memory().device_bytes) +
                 " bytes of GPU and " + std::to_string(plan.memory().host_bytes) + " of host memory per rank)" +
                 (why.empty() ? std::string(": another rank's allocation failed") : ": " + why));
}

template <class T>
std::unique_ptr<dfft::Plan<T>> make_plan(const Config& c, MPI_Comm comm) {
  try {
    return std::make_unique<dfft::Plan<T>>(comm, c.shape, c.opt);
  } catch (const dfft::Error& e) {
    if (e.call() == "plan") throw Rejected(e.what());  // input validation, not a failure
    throw;
  }
}

template <class T>
Measurement measure_typed(const Config& c, const MeasureSettings& s, MPI_Comm comm) {
  using C = std::complex<T>;
  if (s.step) s.step(c.opt.tune == dfft::Tune::none ? "planning" : "planning (tuning)", 0.0);
  auto plan = make_plan<T>(c, comm);
  // r2c: real input; r2r: real input and output (DCT/DST on every axis).
  const bool r2r = c.opt.transform == dfft::Transform::r2r;
  const bool real = c.opt.transform == dfft::Transform::r2c || r2r;
  const std::size_t in_bytes = static_cast<std::size_t>(plan->input_count()) * (real ? sizeof(T) : sizeof(C));
  const std::size_t out_bytes = static_cast<std::size_t>(plan->output_count()) * (r2r ? sizeof(T) : sizeof(C));
  Measurement m;
  {
    // The inverse writes to its own buffer so the forward input stays the same random array.
    auto arrays = allocate_arrays(*plan, {in_bytes, out_bytes, std::max(in_bytes, out_bytes)}, comm);
    PlanBuffer<T>& in = *arrays[0];
    PlanBuffer<T>& out = *arrays[1];
    PlanBuffer<T>& back = *arrays[2];
    fill_input(*plan, real, in, setup_threads(comm));
    // One call of each direction from `src` to `dst` (the same buffer for an in-place run).
    auto forward = [&](void* src, void* dst) {
      if (r2r) plan->forward(static_cast<const T*>(src), static_cast<T*>(dst));
      else if (real) plan->forward(static_cast<const T*>(src), static_cast<C*>(dst));
      else plan->forward(static_cast<const C*>(src), static_cast<C*>(dst));
    };
    auto inverse = [&](void* src, void* dst) {
      if (r2r) plan->inverse(static_cast<const T*>(src), static_cast<T*>(dst));
      else if (real) plan->inverse(static_cast<const C*>(src), static_cast<T*>(dst));
      else plan->inverse(static_cast<const C*>(src), static_cast<C*>(dst));
    };
    auto fwd = [&] { forward(in.get(), out.get()); };
    auto inv = [&] { inverse(out.get(), back.get()); };
    // Online tuning settles before timing (bounded: it ends after a few dozen calls).
    for (int i = 0; i < 500 && plan->adapting(); ++i) {
      if (i % 2) inv();
      else fwd();
    }
    if (c.opt.in_place) {
      // An in-place plan runs in place, as its users run it: forward and inverse on one buffer
      // (`back`), which an untimed upload resets to the input or the spectrum before each run.
      const std::size_t bytes = std::max(in_bytes, out_bytes);
      std::vector<T> input(bytes / sizeof(T)), spectrum(bytes / sizeof(T));
      plan->download(input.data(), in.get(), in_bytes);
      fwd();
      plan->download(spectrum.data(), out.get(), out_bytes);
      void* w = back.get();
      auto fwd_in_place = [&] { forward(w, w); };
      auto inv_in_place = [&] { inverse(w, w); };
      m.forward = time_direction(*plan, fwd_in_place, s, comm, "forward", 0,
                                 [&] { plan->upload(w, input.data(), in_bytes); });
      m.inverse = time_direction(*plan, inv_in_place, s, comm, "inverse", s.warmup + s.reps,
                                 [&] { plan->upload(w, spectrum.data(), out_bytes); });
    } else {
      m.forward = time_direction(*plan, fwd, s, comm, "forward", 0);
      m.inverse = time_direction(*plan, inv, s, comm, "inverse", s.warmup + s.reps);
    }
  }
  m.used = dfft::resolved_options(*plan);
  if (const auto* tr = plan->tune_report()) m.tune_log = dfft::describe(*tr);
  // What the plan noticed (a failed FFTW wisdom write) is said above the table, not dropped.
  for (const auto& w : plan->warnings()) m.tune_log += (m.tune_log.empty() ? "" : "\n") + ("warning: " + w);
  m.traffic = plan->node_traffic();
  auto bytes = plan->exchange_bytes();
  m.exchange_bytes.resize(bytes.size());
  APP_MPI(MPI_Allreduce(bytes.data(), m.exchange_bytes.data(), static_cast<int>(bytes.size()),
                        MPI_INT64_T, MPI_MAX, comm));
  const dfft::Memory mem = plan->memory();
  std::int64_t mine[2] = {mem.host_bytes, mem.device_bytes}, most[2] = {0, 0};
  APP_MPI(MPI_Allreduce(mine, most, 2, MPI_INT64_T, MPI_MAX, comm));
  m.memory_host_bytes = most[0];
  m.memory_device_bytes = most[1];
  m.reference_error = m.roundtrip_error = m.laplacian_error = dfft::validate::not_run;
  if (s.validate) {
    if (s.step) s.step("validating", 1.0);
    m.reference_error = dfft::validate::reference_error(*plan, comm);
    m.roundtrip_error = dfft::validate::roundtrip_error(*plan, comm);
    m.laplacian_error = dfft::validate::laplacian_error(*plan, comm);
  }
  if (s.describe) m.description = plan->describe();
  return m;
}

}  // namespace

Measurement measure(const Config& c, const MeasureSettings& s, MPI_Comm comm) {
  return c.is_double ? measure_typed<double>(c, s, comm) : measure_typed<float>(c, s, comm);
}

}  // namespace dfftapp
