// SPDX-License-Identifier: MIT
// The CUDA device's staging steps (src/transport/stage.hpp): blocks are packed on the GPU and
// handed to MPI in page-locked host memory (host staging) or in device memory (CUDA-aware MPI).
// The stager's own queues: one stream, or with lanes a pack, a copy-out and a copy-in stream
// beside it, with an event per shipped piece so that the host waits only for what it sends.
// nccl and p2p-streams use the same steps on streams of their own (on()).
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
  void copy_self(const void* src, void* dst) override;
  void finish() override;
  char* wire(std::size_t bytes) override;
  void pack_at(int k, const void* src, char* out) override;
  void unpack_at(int k, const char* in, void* dst) override;
  void wire_copy(char* to, const char* from, std::int64_t len) override;

  /// Queue the following steps on `s` alone (nccl and p2p-streams bring streams of their own).
  CudaStager& on(cudaStream_t s);
  /// Pack (encode) `box`, part of a block this rank sends, at `out`; unpack such a part from peer k.
  void pack_on(const Box& box, const void* src, char* out, cudaStream_t s) const;
  void unpack_on(int k, const Box& box, const char* in, void* dst, cudaStream_t s) const;
  CudaDevice& dev() const { return gpu_; }

 private:
  char* send_area() const override { return all_staged_ ? hsend() : dsend(); }
  char* recv_area() const override { return all_staged_ ? hrecv() : drecv(); }
  char* device_recv_area() const override { return drecv(); }
  char* dsend() const { return gpu_.scratch(CudaDevice::Scratch::dev_send); }
  char* drecv() const { return gpu_.scratch(CudaDevice::Scratch::dev_recv); }
  char* hsend() const { return gpu_.scratch(CudaDevice::Scratch::host_send); }
  char* hrecv() const { return gpu_.scratch(CudaDevice::Scratch::host_recv); }
  void copy_out(int k, const void* src, std::int64_t off, std::int64_t len, cudaStream_t s) const;
  void copy_in(int k, void* dst, std::int64_t off, std::int64_t len, cudaStream_t s) const;
  Event& next_event();

  CudaDevice& gpu_;
  cudaStream_t main_ = nullptr, pack_ = nullptr, out_ = nullptr, in_ = nullptr;
  bool lanes_ = false;
  std::vector<std::unique_ptr<Event>> events_;  // per call: pack and piece events, reused
  std::size_t used_ = 0;
  std::vector<cudaEvent_t> tickets_;
  cudaEvent_t packed_ = nullptr;  // the last pack()'s event (lanes), nullptr: nothing packed
  Event start_, done_[3];
  std::vector<Buffer> wires_;
  std::vector<void*> host_wires_;
};

}  // namespace dfft::detail
