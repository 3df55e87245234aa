// SPDX-License-Identifier: MIT
// Moving exchange blocks between the FFT buffers (device) and where MPI reads and writes:
// page-locked host buffers (host staging) or device memory (CUDA-aware MPI). Shared by the
// device versions of a2a-sync, p2p-sync and p2p-streams.
#pragma once

#include <mpi.h>

#include <vector>

#include "backend/cuda/cuda_device.hpp"
#include "transport/pack_common.hpp"

namespace dfft::detail {

class Stager {
 public:
  /// `uniform`: when any block needs packing, pack every block (one base pointer per side,
  /// as MPI_Alltoallv needs); likewise for unpacking.
  Stager(const ExchangeSpec& s, CudaDevice& dev, bool aware, bool uniform);

  const Blocks& blocks() const { return b_; }
  bool aware() const { return aware_; }
  /// Where MPI sends block k from / receives block k into.
  const char* send_ptr(int k, const void* src) const;
  char* recv_ptr(int k, void* dst) const;
  /// Queue on `s`: pack block k on the device and, when staging through the host, copy it there.
  void stage_out(int k, const void* src, cudaStream_t s) const;
  /// Queue on `s`: move received block k into dst (host-to-device copy and/or unpack).
  void stage_in(int k, void* dst, cudaStream_t s) const;
  void copy_self(const void* src, void* dst, cudaStream_t s) const;
  CudaDevice& dev() const { return dev_; }

 private:
  char* dsend() const { return dev_.scratch(CudaDevice::Scratch::dev_send); }
  char* drecv() const { return dev_.scratch(CudaDevice::Scratch::dev_recv); }
  char* hsend() const { return dev_.scratch(CudaDevice::Scratch::host_send); }
  char* hrecv() const { return dev_.scratch(CudaDevice::Scratch::host_recv); }

  Blocks b_;
  CudaDevice& dev_;
  bool aware_;
};

/// True when the MPI library reports CUDA support at run time (Open MPI's MPIX extension).
bool mpi_is_cuda_aware();
/// Resolve Staging::automatic; throws when cuda_aware is asked for but MPI cannot.
bool use_cuda_aware(Staging s, Method m);
/// Throws unless MPI was initialised with MPI_THREAD_MULTIPLE.
void require_thread_multiple(const char* method);

/// Post one message per chunk of `bytes` (chunk index = tag), like the CPU p2p transports.
void post_chunks(char* base, std::int64_t bytes, std::int64_t chunk, int peer, MPI_Comm comm,
                 std::vector<MPI_Request>& reqs, bool recv);

}  // namespace dfft::detail
