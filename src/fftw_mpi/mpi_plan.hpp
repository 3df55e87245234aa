// SPDX-License-Identifier: MIT
// The plans behind FFTW's MPI interface: a request (what an fftw_mpi_plan_* call describes)
// becomes dfft plans over dfft layouts; nothing here computes an FFT or moves data itself.
//
// A handle given to the application is a MpiPlan<R>*, cast to FFTW's opaque plan type. Its first
// word is a tag that no pointer can equal (a non-canonical x86-64/AArch64 address), so the serial
// names (fftw_execute, fftw_destroy_plan, ...) tell dfft's plans from FFTW's own by reading one
// word, which an FFTW plan handle also has, without a lock. Handles are never freed: a destroyed
// plan keeps its tag and says so when it is used again, instead of being memory FFTW may reuse.
#pragma once

#include <mpi.h>

#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dfft/dfft.hpp"
#include "dfft/fft1d.hpp"
#include "dfft/reshape.hpp"
#include "fftw_mpi/distribution.hpp"

namespace dfft::fftw_mpi {

inline constexpr std::uint64_t handle_tag = 0xdff7'5a1e'0000'dff7ULL;

/// Whether `handle` is one of dfft's plans (a non-null pointer to readable memory: any handle an
/// FFTW function returned).
inline bool is_dfft_handle(const void* handle) {
  return handle != nullptr && *static_cast<const std::uint64_t*>(handle) == handle_tag;
}

/// What an fftw_mpi_plan_* call asks for.
struct Request {
  Problem problem;
  int sign = -1;                 // dft: FFTW_FORWARD (-1) or FFTW_BACKWARD (+1)
  std::vector<int> r2r_kinds;    // r2r: FFTW's fftw_r2r_kind per axis
  unsigned flags = 0;            // FFTW's planning and MPI flags
  void* in = nullptr;
  void* out = nullptr;
  MPI_Comm comm = MPI_COMM_NULL;
  bool transpose_only = false;   // fftw_mpi_plan_many_transpose: a distributed transpose of reals
  const char* call = "";         // the FFTW function asked, for messages
};

/// Whether DFFT_VERBOSE asks for messages (set, not empty, not "0").
bool verbose();
/// One message on stderr, prefixed with the library's name; from every rank that calls it.
void say(const std::string& what);

template <class R>
class MpiPlan {
 public:
  using C = std::complex<R>;
  /// The plan, or nullptr (FFTW's answer to a problem it cannot plan); with DFFT_VERBOSE the reason
  /// is printed once. Collective over req.comm.
  static MpiPlan* make(const Request& req);

  /// Runs the plan on the arrays it was planned with (fftw_execute) or on new ones of the same
  /// layout (fftw_execute_dft and friends); `call` names the function, for messages.
  void execute(void* in, void* out, const char* call);
  void execute(const char* call) { execute(req_.in, req_.out, call); }
  /// fftw_destroy_plan: frees everything but the handle.
  void destroy(const char* call);
  /// fftw_mpi_cleanup: every live plan is destroyed.
  static void destroy_all();

  /// Flops of one execution on this rank, counted the FFTW way (5 N log2 N complex, 2.5 N log2 N
  /// real, over the ranks).
  double flops() const;
  std::string describe() const;

 private:
  MpiPlan() = default;
  void build(const Request& req);
  void run(void* in, void* out);
  void transform(const Plan<R>& plan, void* a, void* b) const;
  /// Makes the GPU plan where DFFT_FFTW_MPI_GPU asks for one and keeps it where it wins (or is
  /// forced); whether it was kept.
  /// Page-locks the caller's arrays for the GPU plan's copies; a note for describe().
  std::string pin_arrays();
  /// Frees the GPU plan, its device buffers and the page locks.
  void release_gpu();
  bool offer_gpu(const std::vector<std::int64_t>& shape, const Layout& din, const Layout& dout, const Options& o,
                 std::int64_t in_bytes, std::int64_t out_bytes);

  std::uint64_t tag_ = handle_tag;  // first member: what is_dfft_handle reads
  enum class State { live, destroyed, cleaned_up } state_ = State::live;
  Request req_;
  MPI_Comm comm_ = MPI_COMM_NULL;  // a duplicate of the caller's, as FFTW keeps one
  MPI_Comm sub_ = MPI_COMM_NULL;   // the ranks the dfft plan runs on, where not all can
  bool dfft_inverse_ = false;      // dfft plan's inverse runs the request (c2r, backward dft)
  std::unique_ptr<Plan<R>> plan_;
  // The FFTW layouts differ from the dfft plan's (a plan on fewer ranks): moves in and out.
  std::unique_ptr<Reshape<R>> real_in_, real_out_;
  std::unique_ptr<Reshape<C>> cplx_in_, cplx_out_;
  std::vector<C> scratch_in_, scratch_out_;
  std::unique_ptr<Reshape<R>> transpose_;
  std::unique_ptr<Fft1d<R>> fft1d_;  // a distributed one-dimensional DFT
  // The plan on the rank's GPU (DFFT_FFTW_MPI_GPU): the caller's host arrays are copied to device
  // buffers of the same layout and back.
  std::unique_ptr<Plan<R>> gpu_;
  void* dev_in_ = nullptr;
  void* dev_out_ = nullptr;
  std::size_t in_bytes_ = 0, out_bytes_ = 0;
  std::vector<void*> pinned_;  // host arrays this plan page-locked
  std::string placement_;  // describe(): where the plan runs and why
  bool in_place_ = false;
  std::size_t copy_bytes_ = 0;  // an in-place request run out of place from a copy (scratch_in_)
  std::uintptr_t align_in_ = 0, align_out_ = 0;
  bool warned_alignment_ = false;
};

extern template class MpiPlan<float>;
extern template class MpiPlan<double>;

}  // namespace dfft::fftw_mpi
