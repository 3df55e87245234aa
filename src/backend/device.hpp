// SPDX-License-Identifier: MIT
// Device backends: memory, strided local FFTs, box copies (pack/unpack/local transpose).
// A backend knows nothing of MPI or of decompositions; it sees layouts and boxes.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dfft/types.hpp"
#include "util/check.hpp"

namespace dfft::detail {

struct ExchangeSpec;
class Stager;
enum class StageUse;

struct FftDesc {
  enum class Kind { r2c, c2r, forward, backward } kind;
  std::vector<int> axes;  // with r2c/c2r the last listed axis is the halved one
  Layout in, out;         // same box but for the halved axis; any memory orders
  bool is_double = true;
  Effort effort = Effort::estimate;
  /// Per axis of the layouts (empty: all periodic): the DCT/DST kind this step applies along
  /// each axis (the inverse transform's steps carry the inverse kinds). `real`: the elements are
  /// reals (Transform::r2r), not complex.
  std::vector<R2R> r2r;
  bool real = false;
  /// A factor the FFT may apply to every element as it stores it (the normalisation, on a
  /// direction's last FFT); LocalFft::scales() says whether it did. 1: none.
  double scale = 1;
  /// Apply `scale` as the FFT reads its input instead (a cuFFT load callback): the same result,
  /// as the FFT is linear, at a cost that may differ.
  bool scale_on_load = false;
  /// What runs this FFT where the device has its own kernel for it besides the FFT library's
  /// (Device::own_fft_applies: a GPU's column FFT, src/backend/cuda/column_fft.hpp, which
  /// applies `scale` as it stores): `automatic` times both under Effort::measure and above and
  /// takes the library under estimate.
  enum class Engine { automatic, library, own } engine = Engine::automatic;
};

/// Bytes of one element of an FFT step's input and of its output (real or complex).
inline std::size_t elem_in(const FftDesc& d) {
  const std::size_t c = d.is_double ? 16 : 8;
  return d.kind == FftDesc::Kind::r2c || d.real ? c / 2 : c;
}
inline std::size_t elem_out(const FftDesc& d) {
  const std::size_t c = d.is_double ? 16 : 8;
  return d.kind == FftDesc::Kind::c2r || d.real ? c / 2 : c;
}

class LocalFft {
 public:
  virtual ~LocalFft() = default;
  /// `in` may be overwritten by c2r (as FFTW's multi-dimensional c2r does).
  virtual void execute(void* in, void* out) = 0;
  /// Bytes of work area the FFT library allocated for this FFT: cuFFT reports them; FFTW does
  /// not (0).
  virtual std::int64_t work_bytes() const { return 0; }
  /// Whether execute() multiplies its output by FftDesc::scale (a cuFFT store callback, the
  /// column kernel's stores, or FFTW's blocks of the batch while in cache); the caller scales
  /// otherwise.
  virtual bool scales() const { return false; }
  /// What runs it where that is not the FFT library (FftDesc::engine): "dfft's column kernel";
  /// empty for the library.
  virtual std::string engine() const { return {}; }
  /// Where the engine was chosen by timing: each one's time ("cuFFT 3.01 ms, ..."); else empty.
  virtual std::string engine_timing() const { return {}; }
  /// execute() without the normalisation where scales() (the caller applied it already): FFTW's
  /// blocked FFTs, whose scaling is a pass of their own; a GPU FFT that scales has it linked in
  /// and is never asked for this.
  virtual void execute_unscaled(void* in, void* out) { execute(in, out); }
  /// Whether execute_copying() transforms a copy in one pass (FFTW's in-place c2c of the
  /// slowest axis, whose batch is cut into cache-sized blocks).
  virtual bool copies() const { return false; }
  /// Whether execute() out of place transforms cache-sized blocks into a buffer and streams them
  /// to the output (CPU, outputs far larger than the cache): it reads the input once and writes
  /// the output once without reading it, which a copy followed by an in-place FFT cannot beat.
  virtual bool streams() const { return false; }
  /// The FFT of `src` into `dst` (one layout; `dst` may be `src`), multiplied by `factor`: each
  /// block of the batch is copied (and scaled) and then transformed while it is still in cache,
  /// so that the input is read once and the normalisation costs no pass of its own. Only where
  /// copies().
  virtual void execute_copying(const void* src, void* dst, double factor) {
    (void)src, (void)dst, (void)factor;
    fail_internal("execute_copying on an FFT that does not copy");
  }
};

/// Ordering and timing marks for overlapped execution (src/exec/overlap.cpp). A mark is
/// recorded on the calling thread's stream; on the CPU it is the host clock at that moment.
class Marks {
 public:
  virtual ~Marks() = default;
  virtual void record(int slot) = 0;
  /// The calling thread's stream waits for the work before `slot` (CPU: nothing to do).
  virtual void stream_wait(int slot) = 0;
  /// The host waits until the work before `slot` is done (CPU: nothing to do).
  virtual void host_wait(int slot) = 0;
  /// Seconds between two recorded marks whose work is done.
  virtual double seconds(int from, int to) = 0;
};

/// While alive, the calling thread queues device work on the device's communication lane (a
/// second stream beside the main one). Nothing on the CPU.
class LaneScope {
 public:
  virtual ~LaneScope() = default;
};

class Device {
 public:
  virtual ~Device() = default;
  virtual std::string name() const = 0;
  /// True when plan buffers (and the user's arrays) live in accelerator memory.
  virtual bool on_device() const = 0;
  virtual int ordinal() const { return -1; }
  /// Threads its local FFTs and copies use (the CPU backend's Options::threads).
  virtual int threads() const { return 1; }
  virtual void* alloc(std::size_t bytes) = 0;
  virtual void release(void* p) noexcept = 0;
  /// Bytes this backend's alloc() can still hand out: on the CPU the smaller of MemAvailable and
  /// the memory cgroup's room (src/backend/host_memory.hpp), the GPU's free memory with CUDA.
  virtual std::int64_t available_bytes() const = 0;
  /// Names the memory alloc() draws on, the same for every rank of a node that draws on it: the
  /// GPU's UUID with CUDA; empty on the CPU (the node's memory).
  virtual std::string memory_identity() const { return {}; }

  /// Plan a local FFT; scratch_in/scratch_out are plan-owned buffers large enough for the
  /// layouts that the planner may overwrite while measuring.
  /// Kernel launches (library calls) one execution of make_fft(d) takes: cuFFT loops over the
  /// batch members that do not collapse into its one batch stride; 1 on the CPU (FFTW's guru
  /// plans take any number of batch dimensions).
  virtual std::size_t fft_launches(const FftDesc& /*d*/) const { return 1; }
  /// Device bytes that make_fft(d) will take beyond the plan's buffers, estimated before
  /// planning: `own` (relayout temporaries of this FFT alone) and `shared` (the FFT library's
  /// work area, which the device's FFTs share: the device holds the largest); 0 where none.
  struct FftBytes {
    std::int64_t own = 0, shared = 0;
  };
  virtual FftBytes fft_bytes_estimate(const FftDesc& /*d*/) { return {}; }
  /// Device bytes of the FFT library work areas the device's FFTs share (cuFFT's).
  virtual std::int64_t shared_fft_work_bytes() const { return 0; }
  /// Whether make_fft can run `d` with the device's own kernel (FftDesc::Engine::own).
  virtual bool own_fft_applies(const FftDesc& /*d*/) const { return false; }
  /// Whether make_fft(d, p, p), in place, makes an FFT that copies() (LocalFft::copies): known
  /// before planning.
  virtual bool fft_copies(const FftDesc& /*d*/) const { return false; }
  virtual std::unique_ptr<LocalFft> make_fft(const FftDesc& d, void* scratch_in,
                                             void* scratch_out) = 0;
  /// Copy the elements of `box` from src (layout sl) to dst (layout dl). Pack, unpack and the
  /// local block of an exchange are all this one operation.
  virtual void copy_box(const void* src, const Layout& sl, void* dst, const Layout& dl,
                        const Box& box, std::size_t elem_bytes) = 0;
  /// Compressed exchanges (src/codec/codec.hpp): encode `box` of src (layout sl), visited in
  /// `wire_order`, into a coded block at dst; decode such a block into dst (layout dl).
  virtual void encode_box(const void* src, const Layout& sl, const Box& box,
                          const std::vector<int>& wire_order, void* dst, Codec c, bool is_double);
  virtual void decode_box(const void* src, const std::vector<int>& wire_order, void* dst,
                          const Layout& dl, const Box& box, Codec c, bool is_double);
  /// Multiply `count` reals of the given precision by `factor`.
  virtual void scale(void* data, std::int64_t count, double factor, bool is_double) = 0;
  /// Write `count` reals of src, multiplied by `factor`, to dst in one pass, in order with the
  /// work queued before and after; false (nothing done) where the backend has no such pass and
  /// the caller copies and scales apart. Where a plan copies the caller's array anyway (the
  /// input-keeping c2r, a first FFT run in place in the workspace) the normalisation rides
  /// along instead of taking a pass of its own.
  virtual bool scale_copy(const void* /*src*/, void* /*dst*/, std::int64_t /*count*/,
                          double /*factor*/, bool /*is_double*/) {
    return false;
  }
  /// Set `bytes` bytes at `data` to zero, in order with the work queued before and after.
  virtual void zero(void* data, std::size_t bytes) = 0;
  /// Copies between host memory and this device's memory (memcpy on CPU).
  virtual void upload(void* dst, const void* host_src, std::size_t bytes) = 0;
  virtual void download(void* host_dst, const void* src, std::size_t bytes) = 0;
  /// Page-locks `bytes` of the caller's host memory at p so that upload/download move it by
  /// DMA at the link's full rate instead of through the driver's pageable bounce buffers;
  /// true where this call locked it (unpin_host(p) undoes it). False where the backend has no
  /// use for it (CPU), the range was locked already, or the system refused.
  virtual bool pin_host(void* /*p*/, std::size_t /*bytes*/) { return false; }
  virtual void unpin_host(void* /*p*/) noexcept {}
  /// Wait for all work queued on the plan's streams (no-op on CPU).
  virtual void synchronize() {}
  /// `n` marks for overlapped execution (host clock on the CPU, CUDA events on GPUs).
  virtual std::unique_ptr<Marks> make_marks(int n);
  /// Enter the communication lane on the calling thread (nullptr where there is none).
  virtual std::unique_ptr<LaneScope> comm_lane() { return nullptr; }
  /// The staging steps of an exchange (src/transport/stage.hpp): pack, copies to and from
  /// where MPI reads and writes, and when they are done. Host staging or device-direct MPI is
  /// the device's choice (ExchangeSpec::staging).
  virtual std::unique_ptr<Stager> make_stager(const ExchangeSpec& s, StageUse use);
  /// One message of nccl_send_recv: a peer (rank in the communicator) and a device buffer.
  struct Message {
    int peer;
    void* data;
    std::size_t bytes;
  };
  /// NCCL over `comm`: nccl_prepare makes the communicator (collective over comm; refuses ranks
  /// that share a GPU, naming them), nccl_send_recv moves every send and receive of one call
  /// in one NCCL group on the plan's stream, after the work queued before, and waits for them.
  /// A device without NCCL (the CPU's, a build without it) refuses.
  virtual void nccl_prepare(MPI_Comm comm);
  virtual void nccl_send_recv(MPI_Comm comm, const std::vector<Message>& sends, const std::vector<Message>& recvs);
};

/// `threads` (>= 1, Options::threads resolved): FFTW threads and copy/codec team per plan.
std::unique_ptr<Device> make_cpu_device(int threads = 1);

/// What makes two FFTs of `dev` the same problem for a choice made by timing (the device, its
/// threads, precision, kind, axes, whether it normalises, both layouts): a process that timed
/// one takes the same choice for the next.
std::string fft_problem_key(const Device& dev, const FftDesc& d);

/// Bytes of all live Buffers of this process: what plans really hold (tests compare it with
/// Plan::memory()).
inline std::atomic<std::int64_t> live_buffer_bytes{0};

/// RAII buffer from a device.
class Buffer {
 public:
  Buffer() = default;
  Buffer(Device& d, std::size_t bytes) : dev_(&d), bytes_(bytes), p_(bytes ? d.alloc(bytes) : nullptr) {
    if (p_) live_buffer_bytes += static_cast<std::int64_t>(bytes_);
  }
  ~Buffer() {
    if (p_) {
      live_buffer_bytes -= static_cast<std::int64_t>(bytes_);
      dev_->release(p_);
    }
  }
  Buffer(Buffer&& o) noexcept { *this = std::move(o); }
  Buffer& operator=(Buffer&& o) noexcept {
    std::swap(dev_, o.dev_);
    std::swap(bytes_, o.bytes_);
    std::swap(p_, o.p_);
    return *this;
  }
  void* get() const { return p_; }
  std::size_t bytes() const { return bytes_; }

 private:
  Device* dev_ = nullptr;
  std::size_t bytes_ = 0;
  void* p_ = nullptr;
};

}  // namespace dfft::detail

namespace dfft::detail {
/// The CUDA backend (src/backend/cuda); throws dfft::Error when dfft was built without CUDA.
/// `stream`: the caller's cudaStream_t for all device work (nullptr: a stream of the device's own).
std::unique_ptr<Device> make_cuda_device(MPI_Comm comm, int requested_device, void* stream = nullptr);
/// What the automatic choice (src/tune/automatic.cpp) needs to know of the plan's GPUs.
struct GpuLinks {
  bool shared = false;       // two ranks of comm use one GPU (nccl refuses them)
  bool one_node = true;      // every rank of comm shares one memory node (cuda-ipc's reach)
  bool peer_access = true;   // every pair of distinct GPUs of the node has peer access
  bool ipc_events = true;    // every GPU supports interprocess events (cuda-ipc needs them)
  bool nccl = false;         // this dfft was built with NCCL
};
/// Collective over comm (every rank with its GPU `ordinal` active).
GpuLinks gpu_links(MPI_Comm comm, int ordinal);
/// The version of the NCCL library loaded, "2.21.5" (defined only in builds with NCCL).
std::string nccl_library_version();
}  // namespace dfft::detail
