// SPDX-License-Identifier: MIT
// The CUDA backend's Device: one GPU per rank, cudaMalloc memory, one main stream per plan plus
// side streams (batched FFT loops, per-peer copies), box copies as kernels, cuFFT plans.
#pragma once

#include <cuda_runtime.h>
#include <cufft.h>
#include <mpi.h>

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#if defined(DFFT_HAS_NCCL)
#include <nccl.h>
#endif

#include "backend/cuda/check.hpp"
#include "backend/cuda/kernels.hpp"
#include "backend/cuda/live_counts.hpp"
#include "backend/device.hpp"

namespace dfft::detail {

class CudaDevice final : public Device {
 public:
  /// `user_stream`: the caller's stream as the main stream (not destroyed here); nullptr: own.
  CudaDevice(MPI_Comm comm, int requested, cudaStream_t user_stream = nullptr);
  ~CudaDevice() override;
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  std::string name() const override;
  bool on_device() const override { return true; }
  int ordinal() const override { return ordinal_; }
  void* alloc(std::size_t bytes) override;
  void release(void* p) noexcept override;
  std::int64_t available_bytes() const override;
  std::string memory_identity() const override;
  std::unique_ptr<LocalFft> make_fft(const FftDesc& d, void* scratch_in, void* scratch_out) override;
  /// make_fft without dfft's plane kernel: cuFFT, the column kernel or a split onto it (what the
  /// plane kernel is timed against).
  std::unique_ptr<LocalFft> make_fft_without_plane(const FftDesc& d, void* scratch_in, void* scratch_out);
  std::size_t fft_launches(const FftDesc& d) const override;
  FftBytes fft_bytes_estimate(const FftDesc& d) override;
  std::int64_t shared_fft_work_bytes() const override;
  bool own_fft_applies(const FftDesc& d) const override;
  /// cuFFT work areas shared by this device's FFTs (created with auto-allocation off): slot i
  /// serves the i-th plan of every FFT, as an FFT's plans run side by side on side streams and
  /// two FFTs of a plan never run at once. Grows slot `slot` to `bytes` (re-pointing every
  /// handle on it once the plan's streams are idle) and points `h` at it.
  void attach_fft_work(cufftHandle h, std::size_t slot, std::size_t bytes);
  /// Before `h` is destroyed.
  void detach_fft_work(cufftHandle h) noexcept;
  /// Queues the copy on the main stream and waits for it (callers outside this backend
  /// hand the result to MPI next). Transports of this backend use copy_box_async.
  void copy_box(const void* src, const Layout& sl, void* dst, const Layout& dl, const Box& box,
                std::size_t elem_bytes) override;
  void scale(void* data, std::int64_t count, double factor, bool is_double) override;
  bool scale_copy(const void* src, void* dst, std::int64_t count, double factor, bool is_double) override;
  void zero(void* data, std::size_t bytes) override;
  void encode_box(const void* src, const Layout& sl, const Box& box, const std::vector<int>& order,
                  void* dst, Codec c, bool is_double) override;
  void decode_box(const void* src, const std::vector<int>& order, void* dst, const Layout& dl,
                  const Box& box, Codec c, bool is_double) override;
  void upload(void* dst, const void* host_src, std::size_t bytes) override;
  void download(void* host_dst, const void* src, std::size_t bytes) override;
  bool pin_host(void* p, std::size_t bytes) override;
  void unpin_host(void* p) noexcept override;
  void synchronize() override;
  std::unique_ptr<Marks> make_marks(int n) override;
  std::unique_ptr<LaneScope> comm_lane() override;
  /// src/backend/cuda/stager.cpp; host staging or CUDA-aware MPI per ExchangeSpec::staging.
  std::unique_ptr<Stager> make_stager(const ExchangeSpec& s, StageUse use) override;
  void nccl_prepare(MPI_Comm comm) override;
  void nccl_send_recv(MPI_Comm comm, const std::vector<Message>& sends, const std::vector<Message>& recvs) override;

  /// Make this device current on the calling thread (several plans may use several GPUs).
  void activate() const;
  /// The calling thread's stream: the plan's main stream, or on a thread inside a
  /// CommLane scope (the overlap executor's communication thread) a second stream, so that
  /// exchanges queued there run beside FFTs queued on the main stream.
  cudaStream_t stream() const;
  /// Side stream i (created on first use), for work that may overlap the calling thread's
  /// stream; a CommLane thread gets its own set. `urgent`: created with the device's highest
  /// priority, so that its kernels (NCCL's) get SMs as soon as any block of the pack or FFT
  /// kernels filling the GPU retires (the first call for an index decides).
  cudaStream_t side_stream(int i, bool urgent = false);
  /// While alive, this thread's stream()/side_stream()/synchronize() use the comm lane.
  class CommLane final : public LaneScope {
   public:
    explicit CommLane(CudaDevice& d);
    ~CommLane() override;
    CommLane(const CommLane&) = delete;
    CommLane& operator=(const CommLane&) = delete;

   private:
    const CudaDevice* prev_;
  };
  void copy_box_async(const void* src, const Layout& sl, void* dst, const Layout& dl,
                      const Box& box, std::size_t elem_bytes, cudaStream_t s) const;
  /// The same copy on a copy engine (cudaMemcpy/2D/3DAsync, no SMs: runs beside FFT kernels)
  /// when the box is at most three runs deep with a contiguous innermost run in both arrays;
  /// returns false (nothing queued) otherwise.
  bool copy_box_dma_async(const void* src, const Layout& sl, void* dst, const Layout& dl,
                          const Box& box, std::size_t elem_bytes, cudaStream_t s) const;
  /// Page-locked host memory for staging (fast, asynchronous copies).
  void* alloc_host(std::size_t bytes);
  void release_host(void* p) noexcept;
  /// Staging buffers shared by all transports of the plan: they run one at a time, so one set
  /// of the largest size serves them all (pinned host memory is slow to allocate and scarce).
  /// reserve() at construction (may reallocate), get() during execution.
  enum class Scratch { host_send, host_recv, dev_send, dev_recv, count };
  void reserve_scratch(Scratch s, std::size_t bytes);
  char* scratch(Scratch s) const { return static_cast<char*>(scratch_[static_cast<int>(s)].p); }
  /// The plan's communicator (collective checks at plan time).
  MPI_Comm comm() const { return comm_; }

#if defined(DFFT_HAS_NCCL)
  /// One NCCL communicator per MPI sub-communicator, built on first use (collective over sub).
  ncclComm_t nccl_comm(MPI_Comm sub);
#endif

 private:
  struct FftWorkSlot {
    void* p = nullptr;
    std::size_t bytes = 0;
    std::vector<cufftHandle> users;
  };
  std::vector<FftWorkSlot> fft_work_;
  MPI_Comm comm_;
  int ordinal_ = 0;
  cudaStream_t stream_ = nullptr;
  bool own_stream_ = true;
  cudaStream_t comm_stream_ = nullptr;  // created with the first CommLane
  std::vector<cudaStream_t> side_, comm_side_;
  bool on_comm_lane() const;
  struct Block {
    void* p = nullptr;
    std::size_t bytes = 0;
  };
  Block scratch_[static_cast<int>(Scratch::count)];
#if defined(DFFT_HAS_NCCL)
  std::map<MPI_Comm, ncclComm_t> nccl_;
#endif
};

/// The CudaDevice behind a Device& handed to this backend's transports.
CudaDevice& as_cuda(Device& d);

/// Reduce a box copy to the kernel's geometry (merged axes, destination order).
cuda::CopyGeom make_copy_geom(const Layout& sl, const Layout& dl, const Box& box);

/// RAII CUDA event (timing disabled unless asked: cheaper for pure ordering).
class Event {
 public:
  explicit Event(bool timing = false) {
    const unsigned flags = timing ? cudaEventDefault : cudaEventDisableTiming;
    DFFT_LIVE(Live::event, DFFT_CUDA(cudaEventCreateWithFlags(&e_, flags)));
  }
  ~Event() { live_released(Live::event, cudaEventDestroy(e_)); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return e_; }
  void record(cudaStream_t s) { DFFT_CUDA(cudaEventRecord(e_, s)); }

 private:
  cudaEvent_t e_ = nullptr;
};

}  // namespace dfft::detail
