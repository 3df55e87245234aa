// SPDX-License-Identifier: MIT
// Halo (ghost cell) exchange on the blocks a plan or Reshape uses (docs/halo.md): every rank's
// local array carries `lo[a]` cells below and `hi[a]` cells above its box along each global axis
// a, and exchange() fills them, in place, from the ranks that own those cells.
//
//   dfft::Plan<double> plan(MPI_COMM_WORLD, {nx, ny, nz});
//   dfft::Halo<double> halo(plan, dfft::Side::input, {.lo = {1, 1, 1}});   // periodic, faces
//   std::vector<double> u(halo.count());    // box extent + lo + hi per axis, the plan's memory
//   order
//   ... write the interior: global index g at u[halo.layout().offset_of(g)] ...
//   halo.exchange(std::span<double>(u));
//
// Cells outside the global array along a non-periodic axis are never written (the caller's
// boundary values stay). Any width works: a halo wider than the neighbouring block takes its
// cells from the blocks further on, and a periodic halo wider than the global extent wraps
// several times (as numpy.pad(mode="wrap")).
#pragma once

#include <mpi.h>

#include <complex>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "dfft/dfft.hpp"
#include "dfft/types.hpp"

namespace dfft {

class HaloImpl;

/// The halo of every rank's local array; the same on every rank.
struct HaloSpec {
  /// Cells below the box along each global axis (one entry per axis).
  std::vector<std::int64_t> lo;
  /// Cells above the box; empty: the same as `lo` (a symmetric halo).
  std::vector<std::int64_t> hi;
  /// Per axis: periodic (the global array wraps around) or not; empty: every axis periodic.
  std::vector<bool> periodic;
  /// Also fill the edge and corner regions (cells outside the box along two or more axes), as a
  /// stencil with diagonal neighbours needs; false: the faces only (the rest stays untouched).
  bool corners = false;
};

/// Which of a plan's layouts the halo'd array follows.
enum class Side { input, output };

/// T: float, double, std::complex<float> or std::complex<double>.
///
/// Methods: `p2p_type` (the default; host arrays): MPI reads and writes the array in place
/// through datatypes made at construction. `p2p_sync`: the pieces for each peer are packed into
/// one buffer by the backend's box copy and unpacked on arrival; on the CUDA backend (device
/// arrays) a CUDA-aware MPI (MPIX_Query_cuda_support on every rank) reads and writes the device
/// buffers, any other MPI gets them staged through host memory (staging()). `nccl` (CUDA
/// backend, one GPU per rank): packed as p2p_sync, the buffers moved by grouped ncclSend and
/// ncclRecv; ranks that share a GPU are refused at construction (InvalidArgument, naming them),
/// a build without NCCL too (Unsupported). Others: InvalidArgument.
template <class T>
class Halo {
 public:
  using value_type = T;
  /// Collective: `mine` is this rank's layout (box and memory order, no padding); over all ranks
  /// the boxes tile a global array (empty boxes allowed: such ranks hold no array). `backend`
  /// cuda: exchange() takes device pointers of GPU `device` (-1: local rank modulo visible
  /// devices), method p2p_sync or nccl.
  Halo(MPI_Comm comm, const Layout& mine, const HaloSpec& spec, Method method = Method::p2p_type,
       Backend backend = Backend::cpu, int device = -1);
  /// Every rank's layout, in rank order of `comm`, the same list on every rank (checked).
  Halo(MPI_Comm comm, const std::vector<Layout>& all, const HaloSpec& spec,
       Method method = Method::p2p_type, Backend backend = Backend::cpu, int device = -1);
  /// The input (real-space) or output (spectral) layout of a plan, on the plan's communicator,
  /// backend and device: p2p_type on the CPU, p2p_sync (device arrays) on CUDA. A plan made
  /// with Options::input_halo (output_halo) of the same widths as `spec` reads (writes) this
  /// halo's array in place: forward(u.data(), ...) after exchange(u) copies nothing out.
  template <class P>
  Halo(const Plan<P>& plan, Side side, const HaloSpec& spec)
      : Halo(plan.comm(), box_of(side == Side::input ? plan.input_layout() : plan.output_layout()), spec,
             plan.options().backend == Backend::cuda ? Method::p2p_sync : Method::p2p_type,
             plan.options().backend, plan.device()) {}
  ~Halo();
  Halo(Halo&&) noexcept;
  Halo& operator=(Halo&&) noexcept;
  Halo(const Halo&) = delete;
  Halo& operator=(const Halo&) = delete;

  /// Collective. Fills the halo of `data` (host memory, or the device's with the CUDA backend),
  /// which has count() elements in layout() (not checked; the span overload checks).
  void exchange(T* data) const;
  /// The same, refusing (InvalidArgument on every rank, before anything is read or written) an
  /// array of fewer than count() elements on any rank.
  void exchange(std::span<T> data) const;

  /// Elements of this rank's halo'd array: product of box extent + lo + hi (0 for an empty box).
  std::int64_t count() const;
  /// This rank's halo'd array as a layout: the box grown by the widths (its lo may be negative
  /// or beyond the global array), in the given memory order. offset_of(global index) finds a cell.
  const Layout& layout() const;
  /// The global shape the boxes tile.
  const std::vector<std::int64_t>& shape() const;
  /// Messages this rank sends per exchange (to other ranks), and the elements in them; cells
  /// copied inside the rank (a periodic axis of one block) are counted in self_elements().
  int messages() const;
  std::int64_t sent_elements() const;
  std::int64_t self_elements() const;
  /// Phase times of the last exchange() (p2p-type: all in comm; p2p-sync: pack with the copy to
  /// the host, comm, unpack with the copy from the host).
  const StageTiming& timing() const;
  /// How the messages travel: Staging::host for host arrays and for device buffers staged
  /// through host memory, Staging::cuda_aware where the device buffers move as they are (a
  /// CUDA-aware MPI reads them, or NCCL).
  Staging staging() const;

 private:
  // A plan's layout with a halo of its own (Options::input_halo) as the box it surrounds.
  static Layout box_of(const Layout& l) { return l.offset.empty() ? l : Layout{l.box, l.order, {}, {}}; }
  std::unique_ptr<HaloImpl> impl_;
};

extern template class Halo<float>;
extern template class Halo<double>;
extern template class Halo<std::complex<float>>;
extern template class Halo<std::complex<double>>;

}  // namespace dfft
