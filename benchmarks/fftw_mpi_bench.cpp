// SPDX-License-Identifier: MIT
// fftw-mpi-bench: times FFTW's own distributed transform (libfftw3-mpi), double r2c forward and
// c2r inverse, so that `dfft bench` has a baseline measured the same way: every
// repetition starts after a barrier, and the time of a repetition is the maximum over ranks.
//
//   mpirun -np 2 build/bin/fftw-mpi-bench --size 128 128 128 --effort measure --json f.jsonl
//
// FFTW-MPI is a slab decomposition: input split in x. With --transposed the forward output stays
// transposed (split in y, stored y,x,z), which skips FFTW's final transpose and matches the output
// distribution of dfft's slab-2d1d. --threads T gives each rank T FFTW threads (hybrid MPI +
// threads, FFTW manual "Combining MPI and Threads": MPI_Init_thread with MPI_THREAD_FUNNELED,
// fftw_init_threads before fftw_mpi_init, fftw_plan_with_nthreads before planning).
//
// --in-place transforms one array (the real input padded in z, the spectrum over it), as dfft
// bench --in-place does; out of place (the default), FFTW's c2r overwrites its input spectrum.
//
// --c2c times the complex transform instead (forward FFTW_FORWARD, inverse FFTW_BACKWARD, with
// --transposed the forward output and the inverse input transposed).
//
// The same binary times whichever libfftw3_mpi.so.3 the loader finds: FFTW's own, or dfft's
// (docs/fftw-mpi.md) where its folder is first on the load path; the report and the records name
// the library that ran ("fftw-mpi" or "dfft-fftw-mpi").
//
// FFTW-MPI reports only its whole time. --stages also times, with --transposed, each direction
// built from FFTW's own pieces, each after a barrier: the local 2-D r2c over y and z
// (fftw_plan_many_dft_r2c), FFTW's distributed transpose (fftw_mpi_plan_many_transpose, x-split
// to y-split, output y,x,z) and the 1-D FFT along x (fftw_plan_guru64_dft); the inverse the same
// backwards (the c2r by fftw_plan_many_dft_c2r). With --in-place every piece runs in place in one
// array. Their sums beside the whole transforms say how FFTW-MPI's time splits, to set beside
// the stage times of `dfft bench`.
#include <fftw3-mpi.h>
#include <mpi.h>

#include <dlfcn.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report.hpp"
#include "stats.hpp"

namespace {

void check_mpi(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, msg, &len) != MPI_SUCCESS) len = 0;
  throw std::runtime_error(std::string(call) + " failed: " + std::string(msg, len));
}
#define BENCH_MPI(call) check_mpi((call), #call)

struct Args {
  std::vector<std::ptrdiff_t> size{64, 64, 64};
  std::string effort = "estimate";
  int reps = 10;
  int warmup = 2;
  bool transposed = false;
  bool in_place = false;
  bool stages = false;
  bool c2c = false;
  int threads = 1;
  std::string json;
};

// Milliseconds: every repetition, and dfft bench's statistics of them (apps/dfft/stats.hpp).
struct Stats {
  std::vector<double> samples;
  double min = 0, median = 0, max = 0;
};

Stats stats_of(const std::vector<double>& seconds) {
  Stats s;
  for (double t : seconds) s.samples.push_back(t * 1e3);
  const dfftapp::SampleStats st = dfftapp::sample_stats(s.samples);
  s.min = st.min;
  s.median = st.median;
  s.max = st.max;
  return s;
}

// Which libfftw3_mpi the loader took: dfft's defines a marker symbol FFTW's does not.
const char* library_name() {
  return dlsym(RTLD_DEFAULT, "dfft_fftw_mpi_marker") != nullptr ? "dfft-fftw-mpi" : "fftw-mpi";
}

// Owns the FFTW-MPI arrays and plans. The real array is padded in z to 2*(nz/2+1), as FFTW-MPI
// requires even out of place.
class FftwMpi {
 public:
  FftwMpi(const Args& a, MPI_Comm comm) : n_(a.size), c2c_(a.c2c) {
    const std::ptrdiff_t nzc = c2c_ ? n_[2] : n_[2] / 2 + 1;
    std::ptrdiff_t n1_local = 0, n1_start = 0;
    const std::ptrdiff_t alloc = fftw_mpi_local_size_3d_transposed(
        n_[0], n_[1], nzc, comm, &n0_local_, &n0_start_, &n1_local, &n1_start);
    if (alloc < 0) throw std::runtime_error("fftw_mpi_local_size_3d_transposed failed");
    // fftw_alloc_* of 0 may return nullptr; ranks without data still take part in the plans.
    spec_ = fftw_alloc_complex(static_cast<std::size_t>(std::max<std::ptrdiff_t>(alloc, 1)));
    real_ = a.in_place ? reinterpret_cast<double*>(spec_)
                       : fftw_alloc_real(static_cast<std::size_t>(std::max<std::ptrdiff_t>(2 * alloc, 2)));
    if (!real_ || !spec_) throw std::runtime_error("fftw_alloc failed");
    const unsigned effort = a.effort == "measure" ? FFTW_MEASURE : FFTW_ESTIMATE;
    const double t0 = MPI_Wtime();
    if (c2c_) {
      // The complex input in the real array's place (2 alloc doubles: alloc complex numbers).
      auto* in = reinterpret_cast<fftw_complex*>(real_);
      fwd_ = fftw_mpi_plan_dft_3d(n_[0], n_[1], n_[2], in, spec_, comm, FFTW_FORWARD,
                                  effort | (a.transposed ? FFTW_MPI_TRANSPOSED_OUT : 0u));
      inv_ = fftw_mpi_plan_dft_3d(n_[0], n_[1], n_[2], spec_, in, comm, FFTW_BACKWARD,
                                  effort | (a.transposed ? FFTW_MPI_TRANSPOSED_IN : 0u));
      plan_seconds_ = MPI_Wtime() - t0;
      if (!fwd_ || !inv_) throw std::runtime_error("fftw_mpi_plan_dft_3d returned NULL");
      return;
    }
    fwd_ = fftw_mpi_plan_dft_r2c_3d(n_[0], n_[1], n_[2], real_, spec_, comm,
                                    effort | (a.transposed ? FFTW_MPI_TRANSPOSED_OUT : 0u));
    inv_ = fftw_mpi_plan_dft_c2r_3d(n_[0], n_[1], n_[2], spec_, real_, comm,
                                    effort | (a.transposed ? FFTW_MPI_TRANSPOSED_IN : 0u));
    plan_seconds_ = MPI_Wtime() - t0;
    if (!fwd_ || !inv_) throw std::runtime_error("fftw_mpi_plan_dft_r2c_3d/c2r_3d returned NULL");
  }
  ~FftwMpi() {
    if (fwd_) fftw_destroy_plan(fwd_);
    if (inv_) fftw_destroy_plan(inv_);
    if (real_ != reinterpret_cast<double*>(spec_)) fftw_free(real_);
    fftw_free(spec_);
  }
  FftwMpi(const FftwMpi&) = delete;
  FftwMpi& operator=(const FftwMpi&) = delete;

  // A smooth, non-symmetric test field so that every frequency bin is exercised.
  static double field(std::ptrdiff_t i, std::ptrdiff_t j, std::ptrdiff_t k) {
    return std::sin(0.7 * static_cast<double>(i) + 0.1) * std::cos(0.3 * static_cast<double>(j)) +
           0.25 * std::sin(1.3 * static_cast<double>(k) + 0.2 * static_cast<double>(i));
  }

  // Writes the test field (scale 1) or divides the current data by `scale` (after an inverse).
  // Returns {sum of squared errors vs the field, sum of squared field} over this rank.
  std::pair<double, double> fill_or_compare(bool fill, double scale) {
    // c2c: the field in the real parts, zero imaginary parts (compared too).
    const std::ptrdiff_t pad = c2c_ ? 2 * n_[2] : 2 * (n_[2] / 2 + 1), step = c2c_ ? 2 : 1;
    double err = 0, ref = 0;
    for (std::ptrdiff_t i = 0; i < n0_local_; ++i)
      for (std::ptrdiff_t j = 0; j < n_[1]; ++j)
        for (std::ptrdiff_t k = 0; k < n_[2]; ++k) {
          if (c2c_) {
            double& im = real_[(i * n_[1] + j) * pad + step * k + 1];
            if (fill) im = 0;
            else err += (im / scale) * (im / scale), im /= scale;
          }
          double& v = real_[(i * n_[1] + j) * pad + step * k];
          const double f = field(n0_start_ + i, j, k);
          if (fill) {
            v = f;
          } else {
            v /= scale;
            err += (v - f) * (v - f);
            ref += f * f;
          }
        }
    return {err, ref};
  }

  // Where the forward plan runs, as the plan itself says: dfft's plans on the GPU
  // (DFFT_FFTW_MPI_GPU) print "on the GPU"; FFTW's run on the CPU.
  std::string backend() const {
    char* text = fftw_sprint_plan(fwd_);
    const bool gpu = text != nullptr && std::string(text).find(" on the GPU") != std::string::npos;
    std::free(text);
    return gpu ? "cuda" : "cpu";
  }
  void forward() { fftw_execute(fwd_); }
  void inverse() { fftw_execute(inv_); }
  double plan_seconds() const { return plan_seconds_; }

 private:
  std::vector<std::ptrdiff_t> n_;
  bool c2c_ = false;
  std::ptrdiff_t n0_local_ = 0, n0_start_ = 0;
  double* real_ = nullptr;
  fftw_complex* spec_ = nullptr;
  fftw_plan fwd_ = nullptr, inv_ = nullptr;
  double plan_seconds_ = 0;
};

// The transform with transposed output, each direction as three separately timed FFTW plans,
// out of place or (with --in-place) each piece in place in the one padded array, as FFTW-MPI's
// in-place plans run them. Forward: r2c over (y, z), transpose x <-> y, FFT along x. Inverse: FFT
// along x, transpose back, c2r over (y, z).
class FftwStages {
 public:
  FftwStages(const Args& a, MPI_Comm comm) : n_(a.size) {
    const std::ptrdiff_t nzc = n_[2] / 2 + 1;
    // The transpose moves n0 x n1 elements of 2*nzc doubles; its local sizes decide everything.
    const std::ptrdiff_t alloc = fftw_mpi_local_size_many_transposed(
        2, std::array<std::ptrdiff_t, 2>{n_[0], n_[1]}.data(), 2 * nzc, FFTW_MPI_DEFAULT_BLOCK,
        FFTW_MPI_DEFAULT_BLOCK, comm, &n0_local_, &n0_start_, &n1_local_, &n1_start_);
    if (alloc < 0) throw std::runtime_error("fftw_mpi_local_size_many_transposed failed");
    doubles_ = static_cast<std::size_t>(std::max<std::ptrdiff_t>(alloc, 2));
    real_ = fftw_alloc_real(doubles_);
    spec_ = a.in_place ? real_ : fftw_alloc_real(doubles_);
    work_ = a.in_place ? real_ : fftw_alloc_real(doubles_);
    if (!real_ || !spec_ || !work_) throw std::runtime_error("fftw_alloc failed");
    const unsigned effort = a.effort == "measure" ? FFTW_MEASURE : FFTW_ESTIMATE;
    // Local 2-D r2c over (y, z) of each x plane; real rows padded to 2*nzc like FFTW-MPI's.
    const int yz[2] = {static_cast<int>(n_[1]), static_cast<int>(n_[2])};
    const int rpad[2] = {static_cast<int>(n_[1]), static_cast<int>(2 * nzc)};
    const int cpad[2] = {static_cast<int>(n_[1]), static_cast<int>(nzc)};
    const int planes = static_cast<int>(n0_local_), rdist = static_cast<int>(n_[1] * 2 * nzc),
              cdist = static_cast<int>(n_[1] * nzc);
    auto* spec = reinterpret_cast<fftw_complex*>(spec_);
    if (n0_local_ > 0) {
      r2c_ = fftw_plan_many_dft_r2c(2, yz, planes, real_, rpad, 1, rdist, spec, cpad, 1, cdist, effort);
      c2r_ = fftw_plan_many_dft_c2r(2, yz, planes, spec, cpad, 1, cdist, real_, rpad, 1, rdist, effort);
    }
    // (x_local, y, z) -> (y_local, x, z) and back; out of place the input may be overwritten, as
    // FFTW-MPI's own plans may overwrite their scratch.
    transpose_ = fftw_mpi_plan_many_transpose(n_[0], n_[1], 2 * nzc, FFTW_MPI_DEFAULT_BLOCK,
                                              FFTW_MPI_DEFAULT_BLOCK, spec_, work_, comm,
                                              effort | FFTW_DESTROY_INPUT);
    back_ = fftw_mpi_plan_many_transpose(n_[1], n_[0], 2 * nzc, FFTW_MPI_DEFAULT_BLOCK,
                                         FFTW_MPI_DEFAULT_BLOCK, work_, spec_, comm,
                                         effort | FFTW_DESTROY_INPUT);
    // 1-D along x in (y_local, x, z): x at a distance of nzc, in place.
    const fftw_iodim64 dim{n_[0], nzc, nzc};
    const fftw_iodim64 loops[2] = {{n1_local_, n_[0] * nzc, n_[0] * nzc}, {nzc, 1, 1}};
    auto* w = reinterpret_cast<fftw_complex*>(work_);
    if (n1_local_ > 0) {
      x_ = fftw_plan_guru64_dft(1, &dim, 2, loops, w, w, FFTW_FORWARD, effort);
      x_inv_ = fftw_plan_guru64_dft(1, &dim, 2, loops, w, w, FFTW_BACKWARD, effort);
    }
    if ((n0_local_ > 0 && (!r2c_ || !c2r_)) || !transpose_ || !back_ || (n1_local_ > 0 && (!x_ || !x_inv_)))
      throw std::runtime_error("FFTW could not plan a stage of the split transform");
    // Planning with FFTW_MEASURE overwrote the arrays.
    for (std::size_t i = 0; i < doubles_; ++i) real_[i] = std::sin(1e-3 * static_cast<double>(i));
  }
  ~FftwStages() {
    for (fftw_plan p : {r2c_, c2r_, transpose_, back_, x_, x_inv_})
      if (p) fftw_destroy_plan(p);
    if (work_ != real_) fftw_free(work_);
    if (spec_ != real_) fftw_free(spec_);
    fftw_free(real_);
  }
  FftwStages(const FftwStages&) = delete;
  FftwStages& operator=(const FftwStages&) = delete;

  // Forward, then the inverse of what the forward left.
  void r2c() { if (r2c_) fftw_execute(r2c_); }
  void transpose() { fftw_execute(transpose_); }
  void along_x() { if (x_) fftw_execute(x_); }
  void along_x_inverse() { if (x_inv_) fftw_execute(x_inv_); }
  void transpose_back() { fftw_execute(back_); }
  void c2r() { if (c2r_) fftw_execute(c2r_); }
  // Untimed, after each round trip: keeps the values bounded over the repetitions.
  void rescale() {
    const double f = 1.0 / static_cast<double>(n_[0] * n_[1] * n_[2]);
    for (std::size_t i = 0; i < doubles_; ++i) real_[i] *= f;
  }

 private:
  std::vector<std::ptrdiff_t> n_;
  std::ptrdiff_t n0_local_ = 0, n0_start_ = 0, n1_local_ = 0, n1_start_ = 0;
  std::size_t doubles_ = 0;
  double *real_ = nullptr, *spec_ = nullptr, *work_ = nullptr;
  fftw_plan r2c_ = nullptr, c2r_ = nullptr, transpose_ = nullptr, back_ = nullptr, x_ = nullptr,
            x_inv_ = nullptr;
};

template <class F>
double timed_max(MPI_Comm comm, F&& run) {
  BENCH_MPI(MPI_Barrier(comm));
  const double t0 = MPI_Wtime();
  run();
  double t = MPI_Wtime() - t0, tmax = 0;
  BENCH_MPI(MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, comm));
  return tmax;
}

struct Result {
  Stats fwd, inv;
  double error = 0, plan_ms = 0;
  std::string backend = "cpu";
  // Each direction split into FFTW's pieces (--stages): forward r2c over (y, z), transpose, FFT
  // along x; inverse FFT along x, transpose back, c2r over (y, z).
  std::vector<Stats> stages;
};

std::vector<Stats> run_stages(const Args& a, MPI_Comm comm) {
  FftwStages f(a, comm);
  std::vector<double> t[6];
  for (int r = -a.warmup; r < a.reps; ++r) {
    const double s[6] = {timed_max(comm, [&] { f.r2c(); }),       timed_max(comm, [&] { f.transpose(); }),
                         timed_max(comm, [&] { f.along_x(); }),   timed_max(comm, [&] { f.along_x_inverse(); }),
                         timed_max(comm, [&] { f.transpose_back(); }), timed_max(comm, [&] { f.c2r(); })};
    f.rescale();
    if (r < 0) continue;
    for (int k = 0; k < 6; ++k) t[k].push_back(s[k]);
  }
  std::vector<Stats> out;
  for (auto& v : t) out.push_back(stats_of(v));
  return out;
}

Result run(const Args& a, MPI_Comm comm) {
  FftwMpi f(a, comm);
  const double n = static_cast<double>(a.size[0] * a.size[1] * a.size[2]);
  std::vector<double> tf, ti;
  double err2 = 0, ref2 = 0;
  f.fill_or_compare(true, 1);
  for (int r = -a.warmup; r < a.reps; ++r) {
    const double t_fwd = timed_max(comm, [&] { f.forward(); });
    const double t_inv = timed_max(comm, [&] { f.inverse(); });
    // Normalising (untimed) keeps the data bounded over repetitions and gives a round-trip check.
    auto [e, q] = f.fill_or_compare(false, n);
    err2 = e;
    ref2 = q;
    if (r >= 0) {
      tf.push_back(t_fwd);
      ti.push_back(t_inv);
    }
  }
  double loc[2] = {err2, ref2}, glob[2] = {0, 0};
  BENCH_MPI(MPI_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_SUM, comm));
  double plan_max = 0, plan = f.plan_seconds();
  BENCH_MPI(MPI_Allreduce(&plan, &plan_max, 1, MPI_DOUBLE, MPI_MAX, comm));
  Result res{stats_of(tf), stats_of(ti), std::sqrt(glob[0] / std::max(glob[1], 1e-300)),
             plan_max * 1e3, f.backend(), {}};
  if (a.stages) res.stages = run_stages(a, comm);
  return res;
}

double gflops(const Args& a, double ms) {
  const double n = static_cast<double>(a.size[0] * a.size[1] * a.size[2]);
  return (a.c2c ? 5.0 : 2.5) * n * std::log2(n) / (ms * 1e-3) / 1e9;
}

// The record in dfft bench's format, through its writer (apps/dfft/report.hpp), as a peer
// library's: the common fields plus library and plan_ms (docs/results-format.md).
dfftapp::Record record(const Args& a, int ranks, bool forward, const Stats& s, const Result& r) {
  dfftapp::Record d;
  d.library = library_name();
  d.plan_ms = r.plan_ms;
  // FFTW-MPI's slab split is none of dfft's decompositions; the rest are dfft's option values.
  d.labels = {{"decomposition", "slab"}, {"variant", "-"}};
  d.precision = "double";
  d.direction = forward ? "forward" : "inverse";
  d.size.assign(a.size.begin(), a.size.end());
  d.ranks = ranks;
  // The option fields the flags and the run give, as the option table's text
  // (dfft/option_fields.hpp), so each is written as dfft's records write it.
  const std::pair<std::string_view, std::string> fields[] = {
      {"transform", dfft::to_string(a.c2c ? dfft::Transform::c2c : dfft::Transform::r2c)},
      {"grid", std::to_string(ranks)},
      {"threads", std::to_string(a.threads)},
      {"backend", r.backend},
      {"effort", a.effort},
      // FFTW does not scale; the round-trip check divides by N outside the timing.
      {"norm", dfft::to_string(dfft::Norm::none)},
      {"transposed_out", a.transposed ? "true" : "false"},
      {"in_place", a.in_place ? "true" : "false"},
  };
  for (const auto& [name, text] : fields) dfft::set_option(d.options, name, text);
  d.warmup = a.warmup;
  d.reps = a.reps;
  d.time_min = s.min;
  d.time_median = s.median;
  d.time_max = s.max;
  d.samples_ms = s.samples;
  d.fft = d.pack = d.comm = d.unpack = dfftapp::kNotRun;  // FFTW-MPI reports its whole time only
  d.gflops = gflops(a, s.median);
  d.roundtrip_error = r.error;
  if (!forward) d.error = r.error;  // as dfft's records: the inverse row holds the round trip
  // Same shape as dfft bench's stages_ms: per stage, the medians of fft, pack, comm, unpack.
  if (!r.stages.empty() && forward)
    d.stages = {{"fft(1,2)", {r.stages[0].median, 0, 0, 0}},
                {"transpose", {0, 0, r.stages[1].median, 0}},
                {"fft(0)", {r.stages[2].median, 0, 0, 0}}};
  if (!r.stages.empty() && !forward)
    d.stages = {{"fft(0)", {r.stages[3].median, 0, 0, 0}},
                {"transpose", {0, 0, r.stages[4].median, 0}},
                {"fft(1,2)", {r.stages[5].median, 0, 0, 0}}};
  d.timestamp = dfftapp::utc_timestamp();
  d.host = dfftapp::host_name();
  return d;
}

void report(const Args& a, int ranks, const Result& r) {
  std::printf("fftw-mpi-bench (%s): %tdx%tdx%td double %s, %d ranks x %d threads, effort %s, output split in %s, %s\n",
              library_name(), a.size[0], a.size[1], a.size[2], a.c2c ? "c2c" : "r2c", ranks, a.threads, a.effort.c_str(),
              a.transposed ? "y (FFTW_MPI_TRANSPOSED_OUT)" : "x", a.in_place ? "in place" : "out of place");
  std::printf("plan %.1f ms, %d warmup + %d reps, time = max over ranks per rep, runs on the %s\n", r.plan_ms,
              a.warmup, a.reps, r.backend == "cuda" ? "GPU" : "CPU");
  std::printf("%-9s %10s %10s %10s %9s\n", "direction", "min_ms", "median_ms", "max_ms", "GFlop/s");
  std::printf("%-9s %10.3f %10.3f %10.3f %9.2f\n", "forward", r.fwd.min, r.fwd.median, r.fwd.max,
              gflops(a, r.fwd.median));
  std::printf("%-9s %10.3f %10.3f %10.3f %9.2f\n", "inverse", r.inv.min, r.inv.median, r.inv.max,
              gflops(a, r.inv.median));
  std::printf("round-trip relative L2 error %.3e\n", r.error);
  if (!r.stages.empty()) {
    const char* names[6] = {"r2c over y,z", "transpose", "fft along x", "fft along x", "transpose back", "c2r over y,z"};
    for (int dir = 0; dir < 2; ++dir) {
      double sum = 0;
      std::printf("%s from FFTW's pieces (each after a barrier, %s):\n", dir ? "inverse" : "forward",
                  a.in_place ? "in place" : "out of place");
      for (int k = 3 * dir; k < 3 * dir + 3; ++k) {
        std::printf("  %-14s %10.3f ms median\n", names[k], r.stages[static_cast<std::size_t>(k)].median);
        sum += r.stages[static_cast<std::size_t>(k)].median;
      }
      std::printf("  %-14s %10.3f ms (whole %s %.3f ms)\n", "sum", sum, dir ? "inverse" : "forward",
                  dir ? r.inv.median : r.fwd.median);
    }
  }
  if (a.json.empty()) return;
  dfftapp::JsonLines out;
  std::string why;
  if (!out.open(a.json, why)) throw std::runtime_error(why);
  out.write(record(a, ranks, true, r.fwd, r));
  out.write(record(a, ranks, false, r.inv, r));
  // The records reach the named file only when the whole file was written (OutputFile).
  if (!out.file().commit()) throw std::runtime_error(out.file().error());
}

// Returns -1 to go on, otherwise the exit code (help or a parse error, printed by rank 0).
int parse(int argc, char** argv, int rank, Args& a) {
  CLI::App app{"Times FFTW's MPI r2c/c2r transform (double) for comparison"};
  app.add_option("--size", a.size, "global size NX NY NZ")->expected(3);
  app.add_option("--effort", a.effort, "FFTW planning effort")
      ->check(CLI::IsMember({"estimate", "measure"}));
  app.add_option("--reps", a.reps, "timed repetitions")->check(CLI::PositiveNumber);
  app.add_option("--warmup", a.warmup, "untimed repetitions first")->check(CLI::NonNegativeNumber);
  app.add_flag("--transposed", a.transposed, "FFTW_MPI_TRANSPOSED_OUT/_IN (output split in y)");
  app.add_flag("--in-place", a.in_place, "one array: the padded real input and the spectrum over it");
  app.add_flag("--stages", a.stages,
               "also time each direction of the transposed transform as FFTW's three pieces (needs --transposed)");
  app.add_option("--json", a.json, "write one JSON line per direction to FILE");
  app.add_flag("--c2c", a.c2c, "the complex transform (forward and backward) instead of r2c/c2r");
  app.add_option("--threads", a.threads, "FFTW threads per rank")->check(CLI::PositiveNumber);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (rank == 0) return app.exit(e);
    return e.get_exit_code();
  }
  if (a.stages && a.c2c) {
    if (rank == 0) std::fprintf(stderr, "--stages times the r2c transform's pieces; leave out --c2c\n");
    return 1;
  }
  if (a.stages && !a.transposed) {
    if (rank == 0) std::fprintf(stderr, "--stages: times the transposed-output forward; add --transposed\n");
    return 1;
  }
  for (auto s : a.size)
    if (s < 1) {
      if (rank == 0) std::fprintf(stderr, "--size: every extent must be >= 1\n");
      return 1;
    }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = MPI_THREAD_SINGLE;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) return 1;
  // FFTW's order: threads first, then MPI. Only the calling thread makes MPI calls (FUNNELED).
  if (provided < MPI_THREAD_FUNNELED || !fftw_init_threads()) {
    std::fprintf(stderr, "fftw-mpi-bench: no MPI_THREAD_FUNNELED (level %d) or fftw_init_threads failed\n", provided);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  fftw_mpi_init();
  int rank = 0, ranks = 1, code = 0;
  try {
    // Errors come back as codes (and become exceptions) instead of aborting without a message.
    BENCH_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    BENCH_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    BENCH_MPI(MPI_Comm_size(MPI_COMM_WORLD, &ranks));
    Args a;
    code = parse(argc, argv, rank, a);
    if (code < 0) {
      fftw_plan_with_nthreads(a.threads);
      const Result r = run(a, MPI_COMM_WORLD);
      if (rank == 0) report(a, ranks, r);
      code = 0;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fftw-mpi-bench: rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);  // other ranks may be waiting in a collective
  }
  fftw_mpi_cleanup();
  if (MPI_Finalize() != MPI_SUCCESS) return 1;
  return code;
}
