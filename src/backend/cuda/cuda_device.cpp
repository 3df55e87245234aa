// SPDX-License-Identifier: MIT
// CudaDevice: rank-to-GPU binding, memory, streams, box copies; and make_cuda_device().
#include "backend/cuda/cuda_device.hpp"

#include "backend/cuda/codec.hpp"
#include "transport/topology.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <numeric>

#include "util/check.hpp"

namespace dfft::detail {

namespace {

int visible_devices() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();
    unsupported("the CUDA backend found no usable GPU: cudaGetDeviceCount failed (",
         cudaGetErrorString(e), "); use --backend cpu");
  }
  if (n == 0) unsupported("the CUDA backend found no GPU (cudaGetDeviceCount = 0); use --backend cpu");
  return n;
}

// More ranks than GPUs on a node: NCCL refuses ranks that share a GPU, the other methods run
// with the ranks of a GPU taking turns on it. Said once per process, by the first rank of such
// a node, when its first plan is made; distinct GPUs are told apart by UUID (per-rank
// CUDA_VISIBLE_DEVICES gives every rank ordinal 0). Collective over comm.
void note_shared_gpus(MPI_Comm comm, int ordinal) {
  cudaUUID_t mine{};
  collectively(comm, "the GPU query", [&] {
    cudaDeviceProp p{};
    DFFT_CUDA(cudaGetDeviceProperties(&p, ordinal));
    mine = p.uuid;
  });
  MPI_Comm node;
  DFFT_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int rank = 0, size = 1;
  std::vector<cudaUUID_t> all;
  int rc = MPI_Comm_rank(node, &rank);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_size(node, &size);
  if (rc == MPI_SUCCESS) {
    all.resize(static_cast<std::size_t>(size));
    rc = MPI_Allgather(&mine, sizeof(mine), MPI_BYTE, all.data(), sizeof(mine), MPI_BYTE, node);
  }
  MPI_Comm_free(&node);
  DFFT_MPI(rc);
  int distinct = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    bool seen = false;
    for (std::size_t j = 0; j < i && !seen; ++j) seen = std::memcmp(&all[i], &all[j], sizeof(cudaUUID_t)) == 0;
    distinct += seen ? 0 : 1;
  }
  static std::atomic<bool> said{false};
  if (rank != 0 || distinct >= size || said.exchange(true)) return;
  std::fprintf(stderr,
               "dfft: %d ranks share %d GPU%s on this node; method nccl (and per-peer's NCCL part) is "
               "refused for exchanges whose ranks share a GPU, as NCCL needs one GPU per rank; cuda-ipc "
               "and the MPI methods run, the ranks of a GPU taking turns on it. One rank per GPU avoids "
               "this.\n",
               size, distinct, distinct == 1 ? "" : "s");
}

}  // namespace

CudaDevice::CudaDevice(MPI_Comm comm, int requested, cudaStream_t user_stream) : comm_(comm) {
  // Ranks of one node spread over its GPUs round robin. A rank that sees no GPU, or not the one
  // asked for, fails on every rank: the others would wait for it in the collectives below.
  const int local = shared_node(comm).rank;
  collectively(comm, "choosing the GPU", [&] {
    const int n = visible_devices();
    if (requested >= n)
      fail("device ", requested, " requested but this rank sees ", n, " GPU(s) (0..", n - 1, ")");
    ordinal_ = requested >= 0 ? requested : local % n;
    activate();
  });
  note_shared_gpus(comm, ordinal_);
  if (user_stream) {
    stream_ = user_stream;
    own_stream_ = false;
    return;
  }
  // A blocking stream: ordered after work the caller queued on the legacy default stream
  // (cudaMemcpy, cudaMemset, kernels), so forward() never reads input still being written.
  DFFT_LIVE(Live::stream,
            DFFT_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamDefault)));
}

CudaDevice::~CudaDevice() {
  cudaSetDevice(ordinal_);
#if defined(DFFT_HAS_NCCL)
  for (auto& [sub, nc] : nccl_) live_released(Live::nccl_comm, ncclCommDestroy(nc));
#endif
  for (auto& w : fft_work_)
    if (w.p) release(w.p);
  for (int i = 0; i < static_cast<int>(Scratch::count); ++i) {
    if (!scratch_[i].p) continue;
    if (i <= static_cast<int>(Scratch::host_recv)) release_host(scratch_[i].p);
    else release(scratch_[i].p);
  }
  for (auto s : side_)
    if (s) live_released(Live::stream, cudaStreamDestroy(s));
  for (auto s : comm_side_)
    if (s) live_released(Live::stream, cudaStreamDestroy(s));
  if (comm_stream_) live_released(Live::stream, cudaStreamDestroy(comm_stream_));
  if (stream_ && own_stream_) live_released(Live::stream, cudaStreamDestroy(stream_));
}

std::string CudaDevice::name() const {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, ordinal_) != cudaSuccess) {
    cudaGetLastError();
    return "cuda:" + std::to_string(ordinal_);
  }
  return "cuda:" + std::to_string(ordinal_) + " (" + p.name + ")";
}

std::string CudaDevice::memory_identity() const {
  cudaDeviceProp p{};
  DFFT_CUDA(cudaGetDeviceProperties(&p, ordinal_));
  return std::string(reinterpret_cast<const char*>(&p.uuid), sizeof(p.uuid));
}

void CudaDevice::activate() const { DFFT_CUDA(cudaSetDevice(ordinal_)); }

void* CudaDevice::alloc(std::size_t bytes) {
  activate();
  void* p = nullptr;
  const cudaError_t e = cudaMalloc(&p, std::max<std::size_t>(bytes, 1));
  if (e != cudaSuccess) throw_cuda_alloc("cudaMalloc", bytes, ordinal_, e);
  live_add(Live::device_buffer, 1);
  return p;
}

void CudaDevice::release(void* p) noexcept {
  if (!p) return;
  cudaSetDevice(ordinal_);
  live_released(Live::device_buffer, cudaFree(p));
}

std::int64_t CudaDevice::available_bytes() const {
  activate();
  std::size_t free_b = 0, total_b = 0;
  DFFT_CUDA(cudaMemGetInfo(&free_b, &total_b));
  return static_cast<std::int64_t>(free_b);
}

void* CudaDevice::alloc_host(std::size_t bytes) {
  activate();
  void* p = nullptr;
  DFFT_LIVE(Live::host_buffer, DFFT_CUDA(cudaMallocHost(&p, std::max<std::size_t>(bytes, 1))));
  return p;
}

void CudaDevice::release_host(void* p) noexcept {
  if (p) live_released(Live::host_buffer, cudaFreeHost(p));
}

void CudaDevice::reserve_scratch(Scratch s, std::size_t bytes) {
  Block& b = scratch_[static_cast<int>(s)];
  if (bytes <= b.bytes) return;
  const bool host = s == Scratch::host_send || s == Scratch::host_recv;
  synchronize();  // nothing queued may still use the old block
  if (b.p) {
    if (host) release_host(b.p);
    else release(b.p);
    b = {};
  }
  b.p = host ? alloc_host(bytes) : alloc(bytes);
  b.bytes = bytes;
}

cudaStream_t CudaDevice::side_stream(int i, bool urgent) {
  auto& v = on_comm_lane() ? comm_side_ : side_;
  if (i >= static_cast<int>(v.size())) v.resize(i + 1, nullptr);
  if (!v[i]) {
    activate();
    int least = 0, greatest = 0;
    if (urgent) DFFT_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    DFFT_LIVE(Live::stream, DFFT_CUDA(cudaStreamCreateWithPriority(&v[i], cudaStreamNonBlocking,
                                                                   urgent ? greatest : least)));
  }
  return v[i];
}

cuda::CopyGeom make_copy_geom(const Layout& sl, const Layout& dl, const Box& box) {
  const auto ss = sl.strides(), ds = dl.strides();
  struct Ax {
    std::int64_t ext, ss, ds;
  };
  std::vector<Ax> ax;  // destination order, slowest first, extent-1 axes dropped
  for (int a : dl.order)
    if (box.extent(a) > 1) ax.push_back({box.extent(a), ss[a], ds[a]});
  if (ax.empty()) ax.push_back({1, 1, 1});
  // Merge an axis into the next faster one when both arrays continue the run.
  std::vector<Ax> m{ax.back()};
  for (int k = static_cast<int>(ax.size()) - 2; k >= 0; --k) {
    Ax& f = m.back();
    if (ax[k].ss == f.ss * f.ext && ax[k].ds == f.ds * f.ext) f.ext *= ax[k].ext;
    else m.push_back(ax[k]);
  }
  std::reverse(m.begin(), m.end());
  if (static_cast<int>(m.size()) > cuda::kMaxDims)
    unsupported("box copies handle at most ", cuda::kMaxDims, " non-mergeable axes, got ", m.size());
  cuda::CopyGeom g;
  g.dims = static_cast<int>(m.size());
  g.count = 1;
  for (int k = 0; k < g.dims; ++k) {
    g.ext[k] = m[k].ext;
    g.ss[k] = m[k].ss;
    g.ds[k] = m[k].ds;
    g.count *= m[k].ext;
  }
  // Tile through shared memory when the source's fastest axis is not the destination's.
  const int last = g.dims - 1;
  int fast = last;
  for (int k = 0; k < g.dims; ++k)
    if (g.ss[k] < g.ss[fast]) fast = k;
  if (fast != last && g.ss[last] > 1 && g.ext[fast] > 1) g.src_fast = fast;
  return g;
}

void CudaDevice::copy_box_async(const void* src, const Layout& sl, void* dst, const Layout& dl,
                                const Box& box, std::size_t elem, cudaStream_t s) const {
  if (box.empty()) return;
  const auto g = make_copy_geom(sl, dl, box);
  const auto* sp = static_cast<const char*>(src) + sl.offset_of(box.lo) * static_cast<std::int64_t>(elem);
  auto* dp = static_cast<char*>(dst) + dl.offset_of(box.lo) * static_cast<std::int64_t>(elem);
  if (elem != 4 && elem != 8 && elem != 16) fail_internal("unsupported element size ", elem, " in copy_box");
  DFFT_CUDA(cuda::launch_copy(sp, dp, g, static_cast<int>(elem), s));
}

bool CudaDevice::copy_box_dma_async(const void* src, const Layout& sl, void* dst, const Layout& dl,
                                    const Box& box, std::size_t elem, cudaStream_t s) const {
  if (box.empty()) return true;
  const auto g = make_copy_geom(sl, dl, box);
  const int n = g.dims;
  if (n > 3 || g.ss[n - 1] != 1 || g.ds[n - 1] != 1) return false;
  const auto e = static_cast<std::int64_t>(elem);
  const auto* sp = static_cast<const char*>(src) + sl.offset_of(box.lo) * e;
  auto* dp = static_cast<char*>(dst) + dl.offset_of(box.lo) * e;
  const auto width = static_cast<std::size_t>(g.ext[n - 1] * e);
  if (n == 1) {
    DFFT_CUDA(cudaMemcpyAsync(dp, sp, width, cudaMemcpyDefault, s));
    return true;
  }
  if (n == 2) {
    DFFT_CUDA(cudaMemcpy2DAsync(dp, static_cast<std::size_t>(g.ds[0] * e), sp,
                                static_cast<std::size_t>(g.ss[0] * e), width,
                                static_cast<std::size_t>(g.ext[0]), cudaMemcpyDefault, s));
    return true;
  }
  // Three runs: a pitched 3-D copy when each slice stride is a whole number of rows.
  if (g.ss[0] % g.ss[1] != 0 || g.ds[0] % g.ds[1] != 0) return false;
  cudaMemcpy3DParms p{};
  p.srcPtr = make_cudaPitchedPtr(const_cast<char*>(sp), static_cast<std::size_t>(g.ss[1] * e), width,
                                 static_cast<std::size_t>(g.ss[0] / g.ss[1]));
  p.dstPtr = make_cudaPitchedPtr(dp, static_cast<std::size_t>(g.ds[1] * e), width,
                                 static_cast<std::size_t>(g.ds[0] / g.ds[1]));
  p.extent = make_cudaExtent(width, static_cast<std::size_t>(g.ext[1]), static_cast<std::size_t>(g.ext[0]));
  p.kind = cudaMemcpyDefault;
  DFFT_CUDA(cudaMemcpy3DAsync(&p, s));
  return true;
}

void CudaDevice::copy_box(const void* src, const Layout& sl, void* dst, const Layout& dl,
                          const Box& box, std::size_t elem) {
  activate();
  // One contiguous run in both arrays (the whole-array copy before a one-step c2r, which
  // overwrites its input): the copy engine's memcpy instead of the element kernel.
  const bool one_run = !box.empty() && make_copy_geom(sl, dl, box).dims == 1;
  if (!one_run || !copy_box_dma_async(src, sl, dst, dl, box, elem, stream()))
    copy_box_async(src, sl, dst, dl, box, elem, stream());
  synchronize();
}

void CudaDevice::encode_box(const void* src, const Layout& sl, const Box& box,
                            const std::vector<int>& order, void* dst, Codec c, bool is_double) {
  activate();
  DFFT_CUDA(cuda::encode_box_async(src, sl, box, order, dst, c, is_double, stream()));
  synchronize();
}

void CudaDevice::decode_box(const void* src, const std::vector<int>& order, void* dst,
                            const Layout& dl, const Box& box, Codec c, bool is_double) {
  activate();
  DFFT_CUDA(cuda::decode_box_async(src, order, dst, dl, box, c, is_double, stream()));
  synchronize();
}

void CudaDevice::scale(void* data, std::int64_t count, double factor, bool is_double) {
  activate();
  DFFT_CUDA(cuda::launch_scale(data, count, factor, is_double, stream()));
}

bool CudaDevice::scale_copy(const void* src, void* dst, std::int64_t count, double factor, bool is_double) {
  activate();
  DFFT_CUDA(cuda::launch_scale_copy(src, dst, count, factor, is_double, stream()));
  return true;
}

void CudaDevice::zero(void* data, std::size_t bytes) {
  activate();
  DFFT_CUDA(cudaMemsetAsync(data, 0, bytes, stream()));
}

// On the plan's stream and waited for: a plain cudaMemcpy from pageable memory may return
// before its DMA has landed, and work queued on the plan's stream next would race with it.
void CudaDevice::upload(void* dst, const void* src, std::size_t bytes) {
  activate();
  DFFT_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream()));
  synchronize();
}

void CudaDevice::download(void* dst, const void* src, std::size_t bytes) {
  activate();
  DFFT_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream()));
  synchronize();
}

bool CudaDevice::pin_host(void* p, std::size_t bytes) {
  if (!p || bytes == 0) return false;
  activate();
  const cudaError_t e = cudaHostRegister(p, bytes, cudaHostRegisterDefault);
  if (e == cudaSuccess) return true;
  // Already locked (by the application or an overlapping range), or locking refused (the
  // memlock limit, memory CUDA cannot map): the copies still work, through bounce buffers.
  // Clear the sticky last error so that a later check does not report this one.
  (void)cudaGetLastError();
  if (e == cudaErrorHostMemoryAlreadyRegistered || e == cudaErrorInvalidValue || e == cudaErrorMemoryAllocation ||
      e == cudaErrorNotSupported)
    return false;
  detail::check_cuda(e, "cudaHostRegister");
  return false;
}

void CudaDevice::unpin_host(void* p) noexcept {
  if (!p) return;
  activate();
  // The application may have freed the array before destroying the plan; nothing to undo then.
  if (cudaHostUnregister(p) != cudaSuccess) (void)cudaGetLastError();
}

void CudaDevice::synchronize() {
  activate();
  DFFT_CUDA(cudaStreamSynchronize(stream()));
}

namespace {
// The device whose comm lane the calling thread is on (nullptr: main lane everywhere).
thread_local const CudaDevice* tl_comm_lane = nullptr;
}  // namespace

bool CudaDevice::on_comm_lane() const { return tl_comm_lane == this; }

cudaStream_t CudaDevice::stream() const { return on_comm_lane() ? comm_stream_ : stream_; }

CudaDevice::CommLane::CommLane(CudaDevice& d) : prev_(tl_comm_lane) {
  d.activate();
  if (!d.comm_stream_)
    DFFT_LIVE(Live::stream,
              DFFT_CUDA(cudaStreamCreateWithFlags(&d.comm_stream_, cudaStreamNonBlocking)));
  tl_comm_lane = &d;
}

CudaDevice::CommLane::~CommLane() { tl_comm_lane = prev_; }

namespace {
// Timing events: ordering between the main and the communication lane, and busy times.
class EventMarks final : public Marks {
 public:
  EventMarks(CudaDevice& d, int n) : dev_(d) {
    for (int i = 0; i < n; ++i) ev_.push_back(std::make_unique<Event>(true));
  }
  void record(int slot) override { ev_.at(static_cast<std::size_t>(slot))->record(dev_.stream()); }
  void stream_wait(int slot) override {
    DFFT_CUDA(cudaStreamWaitEvent(dev_.stream(), ev_.at(static_cast<std::size_t>(slot))->get(), 0));
  }
  void host_wait(int slot) override {
    DFFT_CUDA(cudaEventSynchronize(ev_.at(static_cast<std::size_t>(slot))->get()));
  }
  double seconds(int from, int to) override {
    float ms = 0;
    DFFT_CUDA(cudaEventSynchronize(ev_.at(static_cast<std::size_t>(to))->get()));
    DFFT_CUDA(cudaEventElapsedTime(&ms, ev_.at(static_cast<std::size_t>(from))->get(),
                                   ev_.at(static_cast<std::size_t>(to))->get()));
    return ms * 1e-3;
  }

 private:
  CudaDevice& dev_;
  std::vector<std::unique_ptr<Event>> ev_;
};
}  // namespace

std::unique_ptr<Marks> CudaDevice::make_marks(int n) {
  activate();
  return std::make_unique<EventMarks>(*this, n);
}

std::unique_ptr<LaneScope> CudaDevice::comm_lane() { return std::make_unique<CommLane>(*this); }

CudaDevice& as_cuda(Device& d) {
  auto* c = dynamic_cast<CudaDevice*>(&d);
  if (!c) fail_internal("a device transport was given a non-CUDA device");
  return *c;
}

std::unique_ptr<Device> make_cuda_device(MPI_Comm comm, int requested_device, void* stream) {
  return std::make_unique<CudaDevice>(comm, requested_device, static_cast<cudaStream_t>(stream));
}

}  // namespace dfft::detail
