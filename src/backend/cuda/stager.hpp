// SPDX-License-Identifier: MIT
// The CUDA device's staging steps (src/transport/stage.hpp): blocks are packed on the GPU and
// handed to MPI in page-locked host memory (host staging) or in device memory (CUDA-aware MPI).
// The stager's own queues: one stream, or with lanes a pack, a copy-out and a copy-in stream
// beside it, with an event per shipped piece so that the host waits only for what it sends.
// nccl and p2p-streams use the same steps on streams of their own (the *_on calls).
#pragma once

#include <mpi.h>

#include <vector>

#include "backend/cuda/cuda_device.hpp"
#include "transport/stage.hpp"

namespace dfft::detail {

class CudaStager final : public Stager {
 public:
  /// `aware`: MPI (or NCCL) reads and writes device memory.
  CudaStager(const ExchangeSpec& s, CudaDevice& dev, bool aware, StageUse use);
  ~CudaStager() override;

  void begin(bool lanes) override;
  void pack(int k, const void* src) override;
  int ship(int k, const void* src, std::int64_t off, std::int64_t len) override;
  bool ready(int ticket) override;
  void fence() override;
  void land(int k, void* dst, std::int64_t off, std::int64_t len) override;
  void unpack(int k, void* dst) override;
  void copy_self(const void* src, void* dst) override { copy_self_on(src, dst, main_); }
  void finish() override;
  char* wire(std::size_t bytes) override;
  void pack_at(int k, const void* src, char* out) override;
  void unpack_at(int k, const char* in, void* dst) override;
  void wire_copy(char* to, const char* from, std::int64_t len) override;
  const void* whole_out(const void* src) override;
  void* whole_recv(void* dst) override;
  void whole_in(void* dst) override;

  /// The whole staging of block k out (pack, copy to the host) / in, queued on `s`.
  void stage_out_on(int k, const void* src, cudaStream_t s);
  void stage_in_on(int k, void* dst, cudaStream_t s);
  void copy_self_on(const void* src, void* dst, cudaStream_t s) const;
  CudaDevice& dev() const { return dev_; }

 private:
  char* send_area() const override { return all_staged_ ? hsend() : dsend(); }
  char* recv_area() const override { return all_staged_ ? hrecv() : drecv(); }
  char* dsend() const { return dev_.scratch(CudaDevice::Scratch::dev_send); }
  char* drecv() const { return dev_.scratch(CudaDevice::Scratch::dev_recv); }
  char* hsend() const { return dev_.scratch(CudaDevice::Scratch::host_send); }
  char* hrecv() const { return dev_.scratch(CudaDevice::Scratch::host_recv); }
  // Where block k lies on the device before it goes out / after it came in.
  const char* dev_out(int k, const void* src) const;
  char* dev_in(int k, void* dst) const;
  void pack_on(int k, const void* src, char* out, cudaStream_t s) const;
  void unpack_on(int k, const char* in, void* dst, cudaStream_t s) const;
  void copy_out(int k, const void* src, std::int64_t off, std::int64_t len, cudaStream_t s) const;
  void copy_in(int k, void* dst, std::int64_t off, std::int64_t len, cudaStream_t s) const;
  Event& next_event();

  CudaDevice& dev_;
  cudaStream_t main_ = nullptr, pack_ = nullptr, out_ = nullptr, in_ = nullptr;
  bool lanes_ = false;
  std::vector<std::unique_ptr<Event>> events_;  // per call: pack and piece events, reused
  std::size_t used_ = 0;
  std::vector<cudaEvent_t> tickets_;
  cudaEvent_t packed_ = nullptr;  // the last pack()'s event (lanes), nullptr: nothing packed
  Event start_, done_[3];
  std::vector<Buffer> wires_;
  std::vector<void*> host_wires_;
  std::size_t in_bytes_ = 0, out_bytes_ = 0;  // StageUse::whole under host staging
  bool gaps_ = false;
};

/// True when the MPI library reports CUDA support at run time (Open MPI's MPIX extension).
bool mpi_is_cuda_aware();
/// Resolve Staging::automatic; throws when cuda_aware is asked for but MPI cannot.
bool use_cuda_aware(Staging s);
/// Throws unless MPI was initialised with MPI_THREAD_MULTIPLE.
void require_thread_multiple(const char* method);

}  // namespace dfft::detail
