// SPDX-License-Identifier: MIT
// dfft: distributed multidimensional FFTs over MPI (CPU) and CUDA/NCCL (GPU).
//
//   dfft::Options opt;  opt.decomposition = dfft::Decomposition::pencil;
//   dfft::Plan<double> plan(MPI_COMM_WORLD, {nx, ny, nz}, opt);
//   std::vector<double> in(plan.input_count());
//   std::vector<std::complex<double>> out(plan.output_count());
//   plan.forward(in.data(), out.data());   // r2c
//   plan.inverse(out.data(), in.data());   // c2r, scaled by 1/N (opt.norm, as numpy.fft)
//
// A plan's configuration is fixed at construction and it can be executed any number of times:
// forward() and inverse() are const and do no collective set-up of their own (batched plans are
// made by the constructor or by prepare_batch()). Plan construction is collective over the
// communicator; so are forward(), inverse() and prepare_batch(). Executions of one plan must
// not overlap in time (they share the plan's work buffers, timings and adapt state); use one
// plan per thread.
#pragma once

#include <mpi.h>

#include <complex>
#include <memory>
#include <vector>

#include "dfft/types.hpp"

namespace dfft {

class PlanImpl;  // precision-independent implementation (src/exec)
struct TuneReport;  // dfft/tune.hpp

/// Scratch memory the caller lends a plan for one execution: at least Plan::workspace_bytes()
/// bytes of the plan's backend memory (Plan::allocate() gives it the alignment the plan's own
/// buffers have; any 16-byte aligned address works). Its contents before a call do not matter
/// and are undefined after it. Empty (nullptr): the plan's own work buffers.
struct Workspace {
  void* data = nullptr;
  std::int64_t bytes = 0;
};

template <class T>
class Plan {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "float or double");

 public:
  using real_type = T;
  using complex_type = std::complex<T>;

  Plan(MPI_Comm comm, const std::vector<std::int64_t>& shape, const Options& options = {});
  /// Box API (as heFFTe and cuFFTMp): this rank's input layout (real-space box, memory order,
  /// optional padding) and output layout (spectral box). Boxes may be empty; over all ranks
  /// they must tile the global arrays. Reshapes to and from the decomposition are added only
  /// where the boxes differ from it.
  Plan(MPI_Comm comm, const std::vector<std::int64_t>& shape, const Layout& in, const Layout& out,
       const Options& options = {});
  ~Plan();
  Plan(Plan&&) noexcept;
  Plan& operator=(Plan&&) noexcept;
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;

  /// r2c forward: real input box -> complex output box.
  void forward(const T* in, complex_type* out) const;
  /// c2c forward.
  void forward(const complex_type* in, complex_type* out) const;
  /// c2r inverse: complex output-layout data -> real input-layout data.
  void inverse(const complex_type* in, T* out) const;
  /// c2c inverse.
  void inverse(const complex_type* in, complex_type* out) const;
  /// The same with a workspace of the caller's (Options::user_workspace; an empty one on other
  /// plans uses the plan's own buffers). On the CUDA backend every call is ordered on
  /// Options::stream and waits for that stream only, so plans on different streams with their
  /// own workspaces run at the same time.
  void forward(const T* in, complex_type* out, Workspace work) const;
  void forward(const complex_type* in, complex_type* out, Workspace work) const;
  void inverse(const complex_type* in, T* out, Workspace work) const;
  void inverse(const complex_type* in, complex_type* out, Workspace work) const;
  void forward(const T* in, T* out, Workspace work) const;  // r2r
  void inverse(const T* in, T* out, Workspace work) const;  // r2r
  /// Bytes of workspace one execution needs: the work buffers the steps write between the
  /// user's arrays. The exchanges' staging and the FFT libraries' work areas stay the plan's.
  std::int64_t workspace_bytes() const;

  /// Batched: `batch` independent arrays, each in this plan's layout, one after another. The
  /// batch moves in the same messages (one exchange per stage for all of it). The batched plan
  /// must exist: made by the constructor (Options::batches) or by prepare_batch(batch);
  /// otherwise InvalidArgument.
  void forward(int batch, const T* in, complex_type* out) const;
  void forward(int batch, const complex_type* in, complex_type* out) const;
  void inverse(int batch, const complex_type* in, T* out) const;
  void inverse(int batch, const complex_type* in, complex_type* out) const;

  /// Makes (collectively) the batched plan for `batch` arrays, unless it exists. Its memory
  /// counts in memory() and is checked against the limit like the plan's own.
  void prepare_batch(int batch);

  /// r2r (Options::transform = Transform::r2r, a DCT/DST kind on every axis): real -> real.
  /// forward applies the type-II transforms, inverse the type-III ones (docs/r2r.md).
  void forward(const T* in, T* out) const;
  void inverse(const T* in, T* out) const;
  void forward(int batch, const T* in, T* out) const;
  void inverse(int batch, const T* in, T* out) const;

  /// Global shape the plan was made for, and the complex shape of the spectral side (the
  /// halved axis, the last of Options::axes, n/2+1 for r2c).
  const std::vector<std::int64_t>& shape() const;
  std::vector<std::int64_t> spectral_shape() const;
  /// Global shape of the real-space (physical) side: shape() with Options::padding applied.
  std::vector<std::int64_t> physical_shape() const;
  /// This rank's input (real space) and output (spectral space) layouts: box and memory order.
  const Layout& input_layout() const;
  const Layout& output_layout() const;
  const Box& input_box() const { return input_layout().box; }
  const Box& output_box() const { return output_layout().box; }
  /// Elements (of T for r2c input and for r2r, of complex_type otherwise) this rank holds.
  std::int64_t input_count() const;
  std::int64_t output_count() const;

  /// Per-stage phase times of the last forward() or inverse() on this rank.
  const std::vector<StageTiming>& timings() const;
  /// Human-readable description of the path (stages, layouts, pack/unpack needs).
  std::string describe() const;
  /// What the plan noticed but did not refuse: a wisdom entry it could not use (the same on every
  /// rank), a failed write of FFTW's wisdom file by this rank (later plans of this size plan again).
  std::vector<std::string> warnings() const;
  /// The wisdom file whose tuned entry this plan runs (automatic fields that found an entry for
  /// the problem, or the tuner's wisdom hit); empty where the model or the options chose.
  std::string wisdom_source() const;
  const Options& options() const;
  /// The communicator the plan was made with (the caller's handle, not a duplicate).
  MPI_Comm comm() const { return comm_; }
  /// The process grid actually used.
  const std::vector<int>& grid() const;
  /// Bytes each exchange sends from this rank to other ranks per transform.
  std::vector<std::int64_t> exchange_bytes() const;
  /// Messages and bytes of one transform that stay inside a node and that cross nodes, summed
  /// over all ranks (docs/nodes.md); the same on every rank.
  NodeTraffic node_traffic() const;
  /// Wire format of the exchanges actually used (forced, or chosen by Options::tolerance).
  Codec codec() const;
  /// Where the MPI methods of a CUDA plan read and write: Staging::host or Staging::cuda_aware
  /// (Options::staging with `automatic` resolved as the exchanges resolve it). Staging::host on
  /// the CPU backend. (nccl and cuda-ipc move device memory whatever this says.)
  Staging staging() const;
  /// Host and GPU bytes this plan holds on this rank (work buffers, staging buffers, MPI
  /// windows; batched plans included), computed before allocating: a plan that would not fit
  /// in Options::memory_limit_bytes or the available memory is refused with OutOfMemory.
  /// cuFFT's work areas are added once planned (reported, not checked). Not counted: FFTW's
  /// own work areas, and with overlap > 1 the sliced exchanges' staging (docs/design.md,
  /// "Plan API").
  Memory memory() const;
  /// CUDA backend: the device ordinal in use (-1 on CPU).
  int device() const;
  /// Overlap slices, chunks and steps in flight in use; with Options::adapt these change over
  /// the first executions and settle on the fastest (adapting() is then false).
  int overlap_slices() const;
  int chunks() const;
  int in_flight() const;
  /// Threads per rank the local FFTs and copies use (Options::threads resolved; 1 on a GPU).
  int threads() const;
  bool adapting() const;
  /// With Options::tune heuristic or measure: what the tuner did (candidates and times, wisdom
  /// hit, warnings; include dfft/tune.hpp to read it). Null for plans made without tuning.
  const TuneReport* tune_report() const { return tune_.get(); }

  /// Memory of the plan's backend (device memory with CUDA, aligned host memory on CPU), and
  /// copies between it and host memory. forward()/inverse() take pointers to such memory.
  void* allocate(std::size_t bytes) const;
  void deallocate(void* p) const;
  void upload(void* dst, const void* host_src, std::size_t bytes) const;
  void download(void* host_dst, const void* src, std::size_t bytes) const;
  /// Page-locks a host array that upload/download will move (CUDA: cudaHostRegister), so that
  /// the copies run at the link's full rate; true where this call locked it, false where the
  /// backend has no use for it (CPU), it was locked already or the system refused (the copies
  /// then still work, slower). unpin_host undoes it; call it before the array is freed.
  bool pin_host(void* host, std::size_t bytes) const;
  void unpin_host(void* host) const;

 private:
  PlanImpl& batched(int batch) const;
  std::unique_ptr<PlanImpl> impl_;
  std::vector<std::unique_ptr<PlanImpl>> batched_;
  MPI_Comm comm_;
  std::unique_ptr<Layout> user_in_, user_out_;
  // The plan (single or batched) that ran last, for timings(): per-execution state, written by
  // the const forward()/inverse() (not thread-safe, like the plans' own timings).
  mutable PlanImpl* last_ = nullptr;
  std::shared_ptr<const TuneReport> tune_;
};

extern template class Plan<float>;
extern template class Plan<double>;

}  // namespace dfft
