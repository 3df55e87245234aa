// SPDX-License-Identifier: MIT
// cuda-ipc: ranks whose GPUs share a node move exchange blocks with no MPI data movement and no
// staging. The sender's copy kernel reads its block from src and stores it straight into the
// receiver's dst array, in the receiver's layout, through a CUDA IPC mapping of that array
// (NVLink or PCIe peer-to-peer; the same GPU works too). MPI only carries handles and acts as
// the barrier; GPU-side ordering uses interprocess events.
//
// dst is known only at execute time (a plan buffer, a strided view into one, or user memory),
// so every execute allgathers each rank's {IPC handle of dst's allocation, offset of dst in it};
// the mappings are opened once and cached (opening costs milliseconds). Memory that legacy IPC
// cannot export (cudaMallocAsync pools, VMM, managed memory) makes that rank alone fall back to
// a transport-owned cudaMalloc receive buffer plus a local unpack into dst.
//
// One execute, on every rank (s = the calling thread's stream):
//   1. record `ready` on s            (everything queued earlier on s, reads of dst included)
//   2. MPI_Allgather of the targets    (so every peer has recorded its `ready`)
//   3. s waits for the `ready` of each peer it writes to
//   4. copies into peers on s, the rank's own block on a side stream that s then waits for;
//      record `done` on s
//   5. MPI_Allreduce of an ok flag     (the barrier: every peer has recorded its `done`)
//   6. s waits for the `done` of each peer that writes to this rank; unpack (fallback only)
//   7. synchronize s
// (enqueue(), for the overlap executor, stops after step 6: see there.)
// Re-recording an event is safe: a rank records `ready` of execute n+1 only after step 7 of
// execute n, i.e. after every peer's copies into it (and so every GPU-side wait of those peers
// on its `ready` of execute n) have completed, and after step 5 of execute n, which every peer
// enters only after enqueuing its wait of step 3. A rank records `done` of execute n+1 after
// step 2 of execute n+1, which a peer enters only after its step 7 of execute n, when its wait
// on `done` of execute n has been enqueued and has completed. So every wait sees the record it
// was meant for, whatever the IPC event implementation does with later records. Events belong to
// one transport (forward and inverse of each exchange, each overlap slice, have their own), and
// a transport runs one execute at a time, so transports never share a record.
#include <cuda.h>  // driver API types only: the functions come from cudaGetDriverEntryPoint*, so
                   // the library needs no libcuda at link time (CPU-only machines still load it)

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <exception>
#include <functional>
#include <map>
#include <mutex>

#include "backend/cuda/cuda_device.hpp"
#include "transport/pack_common.hpp"
#include "transport/topology.hpp"
#include "util/check.hpp"

namespace dfft::detail {

namespace {

// ---- Driver API, looked up at run time. -------------------------------------------------------

using PointerGetAttributes = CUresult (*)(unsigned, CUpointer_attribute*, void**, CUdeviceptr);
using MemGetAddressRange = CUresult (*)(CUdeviceptr*, std::size_t*, CUdeviceptr);

void* driver_symbol(const char* name) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q{};
#if CUDART_VERSION >= 12050
  const cudaError_t e = cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q);
#else
  const cudaError_t e = cudaGetDriverEntryPoint(name, &fn, cudaEnableDefault, &q);
#endif
  if (e != cudaSuccess || q != cudaDriverEntryPointSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return fn;
}

struct DriverApi {
  PointerGetAttributes attributes = nullptr;
  MemGetAddressRange range = nullptr;
};

const DriverApi& driver() {
  static const DriverApi api{
      reinterpret_cast<PointerGetAttributes>(driver_symbol("cuPointerGetAttributes")),
      reinterpret_cast<MemGetAddressRange>(driver_symbol("cuMemGetAddressRange"))};
  return api;
}

struct AllocInfo {
  bool ipc = false;        // cudaIpcGetMemHandle can export it
  std::uint64_t id = 0;    // process-wide unique id of the allocation (never reused)
  std::uint64_t base = 0;  // its start address
};

AllocInfo query_allocation(const void* p) {
  AllocInfo a;
  const DriverApi& api = driver();
  if (!p || !api.attributes || !api.range) return a;
  const auto ptr = static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(p));
  // 8-byte slots whatever width the driver writes (it fills the low bytes, x86-64 and aarch64
  // are little-endian).
  unsigned long long id = 0, capable = 0;
  CUpointer_attribute at[2] = {CU_POINTER_ATTRIBUTE_BUFFER_ID,
                               CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE};
  void* data[2] = {&id, &capable};
  if (api.attributes(2, at, data, ptr) != CUDA_SUCCESS || capable == 0) return a;
  CUdeviceptr base = 0;
  std::size_t size = 0;
  if (api.range(&base, &size, ptr) != CUDA_SUCCESS) return a;
  a.ipc = true;
  a.id = id;
  a.base = base;
  return a;
}

// ---- Process-wide mapping registry. -----------------------------------------------------------

bool same_handle(const cudaIpcMemHandle_t& a, const cudaIpcMemHandle_t& b) {
  return std::memcmp(&a, &b, sizeof(a)) == 0;
}

/// One mapping per (device, handle) in the process, reference counted: every transport of every
/// plan maps the peers' plan buffers, and we do not rely on the driver counting repeated opens.
class MappingRegistry {
 public:
  void* acquire(int device, const cudaIpcMemHandle_t& h) {
    std::lock_guard<std::mutex> lock(m_);
    const Key k = key(device, h);
    auto it = map_.find(k);
    if (it == map_.end()) {
      void* p = nullptr;
      DFFT_CUDA(cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess));
      it = map_.emplace(k, Entry{p, 0}).first;
    }
    ++it->second.refs;
    return it->second.ptr;
  }
  /// The caller has made `device` current and no queued work uses the mapping any more.
  void release(int device, const cudaIpcMemHandle_t& h) noexcept {
    std::lock_guard<std::mutex> lock(m_);
    auto it = map_.find(key(device, h));
    if (it == map_.end() || --it->second.refs > 0) return;
    cudaIpcCloseMemHandle(it->second.ptr);
    map_.erase(it);
  }

 private:
  using Key = std::pair<int, std::array<char, sizeof(cudaIpcMemHandle_t)>>;
  struct Entry {
    void* ptr = nullptr;
    int refs = 0;
  };
  static Key key(int device, const cudaIpcMemHandle_t& h) {
    Key k{device, {}};
    std::memcpy(k.second.data(), &h, sizeof(h));
    return k;
  }
  std::mutex m_;
  std::map<Key, Entry> map_;
};

MappingRegistry& registry() {
  // Never destroyed: a plan held in a static may be destroyed after any function-local static.
  static auto* r = new MappingRegistry;
  return *r;
}

/// The IPC handle of allocation `a`; false when it cannot be exported. Cached process-wide by
/// the allocation's id, so every transport publishes the same handle for one allocation.
bool exported_handle(const AllocInfo& a, cudaIpcMemHandle_t& h) {
  static std::mutex m;
  static auto* cache = new std::map<std::uint64_t, cudaIpcMemHandle_t>;  // never destroyed
  std::lock_guard<std::mutex> lock(m);
  if (a.id != 0) {
    auto it = cache->find(a.id);
    if (it != cache->end()) {
      h = it->second;
      return true;
    }
  }
  if (cudaIpcGetMemHandle(&h, reinterpret_cast<void*>(static_cast<std::uintptr_t>(a.base))) !=
      cudaSuccess) {
    cudaGetLastError();  // not exportable after all: the caller falls back
    return false;
  }
  if (cache->size() >= 256) cache->clear();  // user buffers come and go; ids are never reused
  if (a.id != 0) (*cache)[a.id] = h;
  return true;
}

// ---- What a rank tells its peers each execute. ------------------------------------------------

enum Kind : std::int32_t { k_none = 0, k_direct = 1, k_fallback = 2, k_error = 3 };

struct Target {
  cudaIpcMemHandle_t handle{};
  std::uint64_t base = 0;   // the owner's address of the allocation (detects reuse of an address)
  std::int64_t offset = 0;  // bytes from the allocation's start to dst (or the fallback buffer)
  std::int32_t kind = k_none;
  std::int32_t pad = 0;
};

/// A transport's mappings of its peers' targets: a few per peer (usually one: a step writes the
/// same buffer every time), least recently used ones closed first.
class PeerMaps {
 public:
  PeerMaps(int peers, int device) : maps_(static_cast<std::size_t>(peers)), device_(device) {}
  ~PeerMaps() {
    cudaSetDevice(device_);
    for (auto& v : maps_)
      for (auto& m : v) registry().release(device_, m.handle);
  }
  PeerMaps(const PeerMaps&) = delete;
  PeerMaps& operator=(const PeerMaps&) = delete;

  /// Device address (in this process) of the allocation behind peer k's target. Called before
  /// this execute queues any copy, while every copy of earlier executes has completed, so the
  /// mappings it closes are unused.
  char* get(int k, const Target& t) {
    auto& v = maps_[static_cast<std::size_t>(k)];
    ++clock_;
    for (auto& m : v)
      if (same_handle(m.handle, t.handle)) {
        m.used = clock_;
        return m.ptr;
      }
    // Another allocation at an address already mapped: the old one is gone, close its mapping.
    for (std::size_t i = 0; i < v.size();)
      if (v[i].base == t.base)
        drop(v, i);
      else
        ++i;
    while (v.size() >= kKeep) {
      std::size_t lru = 0;
      for (std::size_t i = 1; i < v.size(); ++i)
        if (v[i].used < v[lru].used) lru = i;
      drop(v, lru);
    }
    char* p = static_cast<char*>(registry().acquire(device_, t.handle));
    v.push_back({t.handle, t.base, p, clock_});
    return p;
  }

 private:
  struct Mapping {
    cudaIpcMemHandle_t handle;
    std::uint64_t base;
    char* ptr;
    std::uint64_t used;
  };
  static constexpr std::size_t kKeep = 4;
  void drop(std::vector<Mapping>& v, std::size_t i) {
    registry().release(device_, v[i].handle);
    v.erase(v.begin() + static_cast<std::ptrdiff_t>(i));
  }
  std::vector<std::vector<Mapping>> maps_;
  int device_;
  std::uint64_t clock_ = 0;
};

/// Interprocess events: this rank's `ready` and `done`, and the peers' as opened here.
struct IpcEvents {
  explicit IpcEvents(int n)
      : ready(static_cast<std::size_t>(n)), done(static_cast<std::size_t>(n)) {}
  ~IpcEvents() {
    for (auto* v : {&ready, &done})
      for (cudaEvent_t e : *v)
        if (e) live_released(Live::event, cudaEventDestroy(e));
  }
  IpcEvents(const IpcEvents&) = delete;
  IpcEvents& operator=(const IpcEvents&) = delete;
  std::vector<cudaEvent_t> ready, done;  // [me]: created here; [k]: peer k's, opened
};

// ---- Plan-time checks. ------------------------------------------------------------------------

void check_one_node(MPI_Comm comm, int n) {
  int mine = shared_node(comm).size == n ? 1 : 0, all = 0;
  DFFT_MPI(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm));
  if (!all)
    unsupported("method cuda-ipc maps GPU memory between the processes of one node, but the ", n,
         " ranks of this exchange span several nodes; use nccl or an MPI method for this exchange ",
         "(Options::methods takes one method per exchange)");
}

/// Ordinal in this process of the GPU with this UUID; -1 when it is not visible here.
int local_ordinal(const cudaUUID_t& id) {
  // The visible GPUs do not change while the process runs; ask once.
  static const std::vector<cudaUUID_t> uuids = [] {
    int count = 0;
    DFFT_CUDA(cudaGetDeviceCount(&count));
    std::vector<cudaUUID_t> v(static_cast<std::size_t>(count));
    for (int d = 0; d < count; ++d) {
      cudaDeviceProp p{};
      DFFT_CUDA(cudaGetDeviceProperties(&p, d));
      v[static_cast<std::size_t>(d)] = p.uuid;
    }
    return v;
  }();
  for (std::size_t d = 0; d < uuids.size(); ++d)
    if (std::memcmp(&uuids[d], &id, sizeof(id)) == 0) return static_cast<int>(d);
  return -1;
}

/// Local part of the GPU check (the caller makes it collective): interprocess events, and peer
/// access to every other GPU of the exchange that this process can see. GPUs hidden from this
/// process (CUDA_VISIBLE_DEVICES per rank) are left to cudaIpcOpenMemHandle, which maps them.
void check_gpus(int me, const std::vector<cudaUUID_t>& ids, int ordinal) {
#if CUDART_VERSION >= 12000
  int events = 0;
  DFFT_CUDA(cudaDeviceGetAttribute(&events, cudaDevAttrIpcEventSupport, ordinal));
  if (!events)
    unsupported("method cuda-ipc needs interprocess events, which GPU ", ordinal,
         " does not support (cudaDevAttrIpcEventSupport = 0); use nccl or an MPI method");
#endif
  for (std::size_t k = 0; k < ids.size(); ++k) {
    if (static_cast<int>(k) == me || std::memcmp(&ids[k], &ids[me], sizeof(cudaUUID_t)) == 0)
      continue;  // the same GPU: IPC between its processes needs no peer access
    const int j = local_ordinal(ids[k]);
    if (j < 0 || j == ordinal) continue;
    int can = 0;
    DFFT_CUDA(cudaDeviceCanAccessPeer(&can, ordinal, j));
    if (!can)
      unsupported("method cuda-ipc needs peer access between GPUs ", ordinal, " and ", j,
           " (cudaDeviceCanAccessPeer says no: no NVLink or PCIe peer-to-peer path); use nccl or ",
           "an MPI method");
    const cudaError_t e = cudaDeviceEnablePeerAccess(j, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled)
      cudaGetLastError();
    else
      DFFT_CUDA(e);
  }
}

// ---- The transport. ---------------------------------------------------------------------------

class CudaIpc final : public Transport {
 public:
  CudaIpc(MPI_Comm comm, const ExchangeSpec& s, CudaDevice& dev)
      : comm_(comm),
        b_(s),
        dev_(dev),
        n_(b_.size()),
        me_(s.me),
        ev_(n_),
        maps_(n_, dev.ordinal()),
        t0_(true),
        t1_(true) {
    if (s.codec != Codec::none)
      unsupported("cuda-ipc moves working-precision data; use nccl or an MPI method with a codec (codec ",
           to_string(s.codec), " asked)");
    for (int k = 0; k < n_; ++k) {
      compact_.push_back({s.dst[k].box, s.dst[k].order, {}});
      if (k != me_) receives_ |= !b_.recv[k].empty();
    }
    if (n_ == 1) return;
    dev.activate();
    check_one_node(comm_, n_);
    cudaDeviceProp p{};
    collectively(comm_, "cuda-ipc: the GPU query",
                 [&] { DFFT_CUDA(cudaGetDeviceProperties(&p, dev.ordinal())); });
    std::vector<cudaUUID_t> ids(static_cast<std::size_t>(n_));
    DFFT_MPI(MPI_Allgather(&p.uuid, sizeof(cudaUUID_t), MPI_BYTE, ids.data(), sizeof(cudaUUID_t),
                           MPI_BYTE, comm_));
    collectively(comm_, "cuda-ipc: the GPU check", [&] { check_gpus(me_, ids, dev.ordinal()); });
    open_events();
  }

  void execute(const void* src, void* dst, StageTiming& t) override {
    dev_.activate();
    const cudaStream_t s = dev_.stream();  // per call: the calling thread's lane decides
    if (n_ == 1) {
      PhaseTimer pt(t.pack);
      copy_self(src, dst, s);
      dev_.synchronize();
      return;
    }
    const double w0 = MPI_Wtime();
    queue(src, dst, s);  // steps 1-6
    dev_.synchronize();  // step 7
    const double pack = copy_seconds(), unpack = fallback_used_ ? unpack_seconds() : 0.0;
    t.pack += pack;
    t.comm += std::max(0.0, MPI_Wtime() - w0 - pack - unpack);
    t.unpack += unpack;
  }

  // Steps 1-6 only: the calling thread's stream orders the rest. Safe without step 7 because
  // the overlap executor, the only caller, synchronises the whole group before this transport
  // (one slice's) runs again, which is what step 7 guarantees between executes.
  bool can_enqueue() const override { return true; }
  void enqueue(const void* src, void* dst) override {
    dev_.activate();
    const cudaStream_t s = dev_.stream();
    if (n_ == 1) {
      t0_.record(s);
      copy_self(src, dst, s);
      t1_.record(s);
      launched_ = true;
      fallback_used_ = false;
      return;
    }
    queue(src, dst, s);
  }
  void collect(StageTiming& t) override {
    t.pack += copy_seconds();
    if (fallback_used_) t.unpack += unpack_seconds();
  }

 private:
  /// Steps 1-6 of the protocol above, queued on s (the host does not wait for the GPU).
  void queue(const void* src, void* dst, cudaStream_t s) {
    std::exception_ptr err;
    Target mine;
    try {
      mine = describe(dst);
    } catch (...) {
      err = std::current_exception();
      mine = Target{};
      mine.kind = k_error;
    }
    DFFT_CUDA(cudaEventRecord(ev_.ready[me_], s));
    std::vector<Target> all(static_cast<std::size_t>(n_));
    DFFT_MPI(MPI_Allgather(&mine, sizeof(Target), MPI_BYTE, all.data(), sizeof(Target), MPI_BYTE,
                           comm_));
    for (int k = 0; k < n_; ++k)
      if (all[k].kind == k_error) {
        if (err) std::rethrow_exception(err);
        throw_as(Status::library_error, concat("cuda-ipc: rank ", k, " of this exchange could not "
                 "export its output buffer (that rank reports why)"));
      }
    bool launched = false;
    try {
      launched = launch(src, dst, all, s);
    } catch (...) {
      err = std::current_exception();
    }
    DFFT_CUDA(cudaEventRecord(ev_.done[me_], s));
    agree(comm_, err, "cuda-ipc: mapping a peer's buffer or queuing the copies");
    for (int k = 0; k < n_; ++k)
      if (k != me_ && !b_.recv[k].empty()) DFFT_CUDA(cudaStreamWaitEvent(s, ev_.done[k], 0));
    launched_ = launched;
    fallback_used_ = mine.kind == k_fallback;
    if (fallback_used_) {
      u0_.record(s);
      unpack_fallback(dst, s);
      u1_.record(s);
    }
  }

  /// GPU time of the last queue's copies / fallback unpack (their work must be done).
  double copy_seconds() const {
    float ms = 0;
    if (launched_) DFFT_CUDA(cudaEventElapsedTime(&ms, t0_.get(), t1_.get()));
    return ms * 1e-3;
  }
  double unpack_seconds() const {
    float ms = 0;
    DFFT_CUDA(cudaEventElapsedTime(&ms, u0_.get(), u1_.get()));
    return ms * 1e-3;
  }

  /// Events created here, handles exchanged, peers' events opened; collective, and every rank
  /// throws if any fails.
  void open_events() {
    cudaIpcEventHandle_t mine[2] = {};
    collectively(comm_, "cuda-ipc: creating interprocess events", [&] {
      for (auto* v : {&ev_.ready, &ev_.done}) {
        cudaEvent_t e = nullptr;
        DFFT_LIVE(Live::event, DFFT_CUDA(cudaEventCreateWithFlags(
                                   &e, cudaEventInterprocess | cudaEventDisableTiming)));
        (*v)[me_] = e;
      }
      DFFT_CUDA(cudaIpcGetEventHandle(&mine[0], ev_.ready[me_]));
      DFFT_CUDA(cudaIpcGetEventHandle(&mine[1], ev_.done[me_]));
    });
    std::vector<cudaIpcEventHandle_t> all(2 * static_cast<std::size_t>(n_));
    DFFT_MPI(
        MPI_Allgather(mine, sizeof(mine), MPI_BYTE, all.data(), sizeof(mine), MPI_BYTE, comm_));
    collectively(comm_, "cuda-ipc: opening the peers' interprocess events", [&] {
      for (int k = 0; k < n_; ++k) {
        if (k == me_) continue;
        DFFT_LIVE(Live::event, DFFT_CUDA(cudaIpcOpenEventHandle(&ev_.ready[k], all[2 * k])));
        DFFT_LIVE(Live::event, DFFT_CUDA(cudaIpcOpenEventHandle(&ev_.done[k], all[2 * k + 1])));
      }
    });
  }

  /// Where peers write this rank's blocks: dst itself when IPC can export its allocation,
  /// else the fallback buffer (allocated on first need).
  Target describe(void* dst) {
    Target t;
    if (!receives_) return t;
    const AllocInfo a = query_allocation(dst);
    if (a.ipc && exported_handle(a, t.handle)) {
      t.base = a.base;
      t.offset = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(dst) - a.base);
      t.kind = k_direct;
      return t;
    }
    if (!fallback_.get()) {
      const auto& me = compact_[me_];
      Buffer buf(
          dev_, static_cast<std::size_t>(std::max<std::int64_t>(me.box.count(), 1)) * b_.spec.elem);
      DFFT_CUDA(cudaIpcGetMemHandle(&fallback_handle_, buf.get()));
      fallback_ = std::move(buf);
    }
    t.handle = fallback_handle_;
    t.base = reinterpret_cast<std::uintptr_t>(fallback_.get());
    t.kind = k_fallback;
    return t;
  }

  /// Steps 3 and 4: map the peers' targets, wait for their `ready`, queue every copy. Returns
  /// whether the timing events were recorded.
  bool launch(const void* src, void* dst, const std::vector<Target>& all, cudaStream_t s) {
    const auto& sp = b_.spec;
    std::vector<char*> where(static_cast<std::size_t>(n_), nullptr);
    for (int k = 0; k < n_; ++k) {
      if (k == me_ || b_.send[k].empty()) continue;
      if (all[k].kind != k_direct && all[k].kind != k_fallback)
        fail_internal("cuda-ipc peer ", k, " receives a block but exported no buffer");
      where[k] = maps_.get(k, all[k]) + all[k].offset;
    }
    for (int k = 0; k < n_; ++k)
      if (where[k]) DFFT_CUDA(cudaStreamWaitEvent(s, ev_.ready[k], 0));
    t0_.record(s);
    // The rank's own block moves on a side stream (copy kernel, HBM only) while the blocks to
    // peers cross NVLink: the local copy does not add to the exchange time.
    const cudaStream_t side = dev_.side_stream(0);
    DFFT_CUDA(cudaStreamWaitEvent(side, t0_.get(), 0));
    copy_self(src, dst, side);
    self_done_.record(side);
    // Blocks to peers go on copy engines where their shape allows (NVLink DMA, no SMs taken
    // from FFT kernels running beside them); the rest through the copy kernel.
    for (const int k : ring_peers(me_, n_))
      if (where[k]) {
        const Layout& dl = all[k].kind == k_direct ? sp.dst[k] : compact_[k];
        if (!use_dma_ || !dev_.copy_box_dma_async(src, sp.src[me_], where[k], dl, b_.send[k], sp.elem, s))
          dev_.copy_box_async(src, sp.src[me_], where[k], dl, b_.send[k], sp.elem, s);
      }
    DFFT_CUDA(cudaStreamWaitEvent(s, self_done_.get(), 0));
    t1_.record(s);
    return true;
  }

  void unpack_fallback(void* dst, cudaStream_t s) const {
    const auto& sp = b_.spec;
    for (int k = 0; k < n_; ++k)
      if (k != me_)
        dev_.copy_box_async(fallback_.get(), compact_[me_], dst, sp.dst[me_], b_.recv[k], sp.elem,
                            s);
  }

  void copy_self(const void* src, void* dst, cudaStream_t s) const {
    const auto& sp = b_.spec;
    dev_.copy_box_async(src, sp.src[me_], dst, sp.dst[me_], b_.send[me_], sp.elem, s);
  }

  MPI_Comm comm_;
  Blocks b_;
  CudaDevice& dev_;
  int n_, me_;
  bool receives_ = false;        // some peer sends this rank a block
  // DFFT_IPC_COPY=kernel forces the copy kernel for peers' blocks (to compare with the copy
  // engines, which are the default: docs/gpu.md).
  bool use_dma_ = [] {
    const char* v = std::getenv("DFFT_IPC_COPY");
    return !(v && std::string(v) == "kernel");
  }();
  std::vector<Layout> compact_;  // dst[k] without padding: the layout of k's fallback buffer
  IpcEvents ev_;
  PeerMaps maps_;
  Event t0_, t1_;  // GPU time of the copies
  Event u0_{true}, u1_{true};  // GPU time of the fallback unpack
  Event self_done_;
  bool launched_ = false, fallback_used_ = false;  // of the last queue()
  Buffer fallback_;
  cudaIpcMemHandle_t fallback_handle_{};
};

}  // namespace

GpuLinks gpu_links(MPI_Comm comm, int ordinal) {
  GpuLinks g;
#ifdef DFFT_HAS_NCCL
  g.nccl = true;
#endif
  int n = 0, me = 0;
  DFFT_MPI(MPI_Comm_size(comm, &n));
  DFFT_MPI(MPI_Comm_rank(comm, &me));
  cudaDeviceProp p{};
  collectively(comm, "the GPU query of the automatic choice",
               [&] { DFFT_CUDA(cudaGetDeviceProperties(&p, ordinal)); });
  std::vector<cudaUUID_t> ids(static_cast<std::size_t>(n));
  DFFT_MPI(MPI_Allgather(&p.uuid, sizeof(cudaUUID_t), MPI_BYTE, ids.data(), sizeof(cudaUUID_t), MPI_BYTE, comm));
  int local[2] = {1, 1};  // peer access to every other visible GPU, interprocess events
  collectively(comm, "the GPU links of the automatic choice", [&] {
#if CUDART_VERSION >= 12000
    int events = 0;
    DFFT_CUDA(cudaDeviceGetAttribute(&events, cudaDevAttrIpcEventSupport, ordinal));
    local[1] = events != 0;
#endif
    for (int k = 0; k < n; ++k) {
      if (k == me || std::memcmp(&ids[k], &ids[me], sizeof(cudaUUID_t)) == 0) continue;
      const int j = local_ordinal(ids[k]);
      if (j < 0 || j == ordinal) continue;  // not visible here: cudaIpcOpenMemHandle decides
      int can = 0;
      DFFT_CUDA(cudaDeviceCanAccessPeer(&can, ordinal, j));
      if (!can) local[0] = 0;
    }
  });
  int all[2] = {0, 0};
  DFFT_MPI(MPI_Allreduce(local, all, 2, MPI_INT, MPI_MIN, comm));
  g.peer_access = all[0] != 0;
  g.ipc_events = all[1] != 0;
  for (int i = 0; i < n && !g.shared; ++i)
    for (int j = i + 1; j < n && !g.shared; ++j)
      g.shared = std::memcmp(&ids[i], &ids[j], sizeof(cudaUUID_t)) == 0;
  int one = shared_node(comm).size == n ? 1 : 0, every = 0;
  DFFT_MPI(MPI_Allreduce(&one, &every, 1, MPI_INT, MPI_MIN, comm));
  g.one_node = every != 0;
  return g;
}

std::unique_ptr<Transport> make_device_cuda_ipc(MPI_Comm comm, const ExchangeSpec& s,
                                                CudaDevice& dev) {
  return std::make_unique<CudaIpc>(comm, s, dev);
}

}  // namespace dfft::detail
