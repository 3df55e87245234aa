// CudaDevice: rank-to-GPU binding, memory, streams, box copies; and make_cuda_device().
#include "backend/cuda/cuda_device.hpp"

#include "backend/cuda/codec.hpp"

#include <algorithm>
#include <numeric>

namespace dfft::detail {

namespace {

// Rank among the ranks of this node (shared-memory domain): ranks of one node spread over its
// GPUs round robin.
int local_rank(MPI_Comm comm) {
  MPI_Comm node;
  DFFT_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int r = 0;
  const int rc = MPI_Comm_rank(node, &r);
  MPI_Comm_free(&node);
  check_mpi(rc, "MPI_Comm_rank(node)");
  return r;
}

int visible_devices() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();
    fail("the CUDA backend found no usable GPU: cudaGetDeviceCount failed (",
         cudaGetErrorString(e), "); use --backend cpu");
  }
  if (n == 0) fail("the CUDA backend found no GPU (cudaGetDeviceCount = 0); use --backend cpu");
  return n;
}

}  // namespace

CudaDevice::CudaDevice(MPI_Comm comm, int requested) : comm_(comm) {
  const int n = visible_devices();
  const int local = local_rank(comm);
  if (requested >= n)
    fail("device ", requested, " requested but this rank sees ", n, " GPU(s) (0..", n - 1, ")");
  ordinal_ = requested >= 0 ? requested : local % n;
  activate();
  // A blocking stream: ordered after work the caller queued on the legacy default stream
  // (cudaMemcpy, cudaMemset, kernels), so forward() never reads input still being written.
  DFFT_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamDefault));
}

CudaDevice::~CudaDevice() {
  cudaSetDevice(ordinal_);
#if defined(DFFT_HAS_NCCL)
  for (auto& [sub, nc] : nccl_) ncclCommDestroy(nc);
#endif
  for (int i = 0; i < static_cast<int>(Scratch::count); ++i) {
    if (!scratch_[i].p) continue;
    if (i <= static_cast<int>(Scratch::host_recv)) cudaFreeHost(scratch_[i].p);
    else cudaFree(scratch_[i].p);
  }
  for (auto s : side_)
    if (s) cudaStreamDestroy(s);
  if (stream_) cudaStreamDestroy(stream_);
}

std::string CudaDevice::name() const {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, ordinal_) != cudaSuccess) {
    cudaGetLastError();
    return "cuda:" + std::to_string(ordinal_);
  }
  return "cuda:" + std::to_string(ordinal_) + " (" + p.name + ")";
}

void CudaDevice::activate() const { DFFT_CUDA(cudaSetDevice(ordinal_)); }

void* CudaDevice::alloc(std::size_t bytes) {
  activate();
  void* p = nullptr;
  const cudaError_t e = cudaMalloc(&p, std::max<std::size_t>(bytes, 1));
  if (e != cudaSuccess) {
    std::size_t free_b = 0, total_b = 0;
    cudaGetLastError();
    cudaMemGetInfo(&free_b, &total_b);
    fail("cudaMalloc of ", bytes, " bytes failed on GPU ", ordinal_, " (", cudaGetErrorString(e),
         "; ", free_b, " of ", total_b, " bytes free)");
  }
  return p;
}

void CudaDevice::release(void* p) noexcept {
  if (!p) return;
  cudaSetDevice(ordinal_);
  cudaFree(p);
}

void* CudaDevice::alloc_host(std::size_t bytes) {
  activate();
  void* p = nullptr;
  DFFT_CUDA(cudaMallocHost(&p, std::max<std::size_t>(bytes, 1)));
  return p;
}

void CudaDevice::release_host(void* p) noexcept {
  if (p) cudaFreeHost(p);
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

cudaStream_t CudaDevice::side_stream(int i) {
  if (i >= static_cast<int>(side_.size())) side_.resize(i + 1, nullptr);
  if (!side_[i]) {
    activate();
    DFFT_CUDA(cudaStreamCreateWithFlags(&side_[i], cudaStreamNonBlocking));
  }
  return side_[i];
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
    fail("box copies handle at most ", cuda::kMaxDims, " non-mergeable axes, got ", m.size());
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
  if (elem != 4 && elem != 8 && elem != 16) fail("unsupported element size ", elem, " in copy_box");
  DFFT_CUDA(cuda::launch_copy(sp, dp, g, static_cast<int>(elem), s));
}

void CudaDevice::copy_box(const void* src, const Layout& sl, void* dst, const Layout& dl,
                          const Box& box, std::size_t elem) {
  activate();
  copy_box_async(src, sl, dst, dl, box, elem, stream_);
  synchronize();
}

void CudaDevice::encode_box(const void* src, const Layout& sl, const Box& box,
                            const std::vector<int>& order, void* dst, Codec c, bool is_double) {
  activate();
  DFFT_CUDA(cuda::encode_box_async(src, sl, box, order, dst, c, is_double, stream_));
  synchronize();
}

void CudaDevice::decode_box(const void* src, const std::vector<int>& order, void* dst,
                            const Layout& dl, const Box& box, Codec c, bool is_double) {
  activate();
  DFFT_CUDA(cuda::decode_box_async(src, order, dst, dl, box, c, is_double, stream_));
  synchronize();
}

void CudaDevice::scale(void* data, std::int64_t count, double factor, bool is_double) {
  activate();
  DFFT_CUDA(cuda::launch_scale(data, count, factor, is_double, stream_));
}

// On the plan's stream and waited for: a plain cudaMemcpy from pageable memory may return
// before its DMA has landed, and work queued on the plan's stream next would race with it.
void CudaDevice::upload(void* dst, const void* src, std::size_t bytes) {
  activate();
  DFFT_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream_));
  synchronize();
}

void CudaDevice::download(void* dst, const void* src, std::size_t bytes) {
  activate();
  DFFT_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_));
  synchronize();
}

void CudaDevice::synchronize() {
  activate();
  DFFT_CUDA(cudaStreamSynchronize(stream_));
}

CudaDevice& as_cuda(Device& d) {
  auto* c = dynamic_cast<CudaDevice*>(&d);
  if (!c) fail("internal: a device transport was given a non-CUDA device");
  return *c;
}

std::unique_ptr<Device> make_cuda_device(MPI_Comm comm, int requested_device) {
  return std::make_unique<CudaDevice>(comm, requested_device);
}

}  // namespace dfft::detail
