// SPDX-License-Identifier: MIT
// gpu-halo-bench: dfft::Halo on device arrays (method nccl, and p2p-sync through MPI: CUDA-aware
// or staged through host memory) against the exchange a GPU code writes by hand with NCCL, in the
// same run on the same blocks: per axis, the two faces packed by cudaMemcpy3DAsync into
// contiguous buffers, one NCCL group of ncclSend/ncclRecv with the lower and the upper
// neighbour, and the received faces copied into the halo; with corners each axis carries the
// halo the previous axes filled (the textbook scheme, as halo-bench's MPI_Sendrecv one). Every
// case first checks that all three give the same array (bitwise), then times `reps` exchanges of
// each, alternating, `trials` times, and prints the best trial's mean per exchange (the slowest
// rank's; each exchange ends with its stream synchronised, as dfft::Halo::exchange does). All
// axes periodic, natural memory order, double, one GPU per rank (local rank modulo the visible
// GPUs). --json FILE appends one record per row (test "halo-gpu") for tools/results_pages.py's
// `halo-gpu` tables.
//   gpu-halo-bench N0 N1 N2 [reps] [trials] [--json FILE]
//   e.g. mpirun --bind-to none -np 2 gpu-halo-bench 512 512 512
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "dfft/halo.hpp"
#include "halo_bench_util.hpp"

namespace {

using namespace halo_bench;

[[noreturn]] void die(const std::string& what) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr, "gpu-halo-bench: rank %d: %s\n", rank, what.c_str());
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}
void check(int rc, const char* call) {
  if (rc != MPI_SUCCESS) die(std::string(call) + " failed (" + std::to_string(rc) + ")");
}
void check(cudaError_t rc, const char* call) {
  if (rc != cudaSuccess) die(std::string(call) + " failed: " + cudaGetErrorString(rc));
}
void check(ncclResult_t rc, const char* call) {
  if (rc != ncclSuccess) die(std::string(call) + " failed: " + ncclGetErrorString(rc));
}
#define CHECK(call) check((call), #call)

/// A box of the halo'd array (extents full[] per axis, row-major doubles) as cudaMemcpy3D sees it.
struct Region {
  std::int64_t start[3], sub[3];
};

/// The textbook exchange with NCCL on device array u of extents n + 2w per axis.
class NcclHalo {
 public:
  NcclHalo(MPI_Comm cart, ncclComm_t nccl, cudaStream_t s, const Shape& n, int w, bool corners)
      : nccl_(nccl), stream_(s) {
    for (int a = 0; a < 3; ++a) full_[a] = n[a] + 2 * w;
    std::size_t most = 0;
    for (int a = 0; a < 3; ++a) {
      Axis x{};
      CHECK(MPI_Cart_shift(cart, a, 1, &x.lower, &x.upper));
      // Other axes: the already exchanged ones (b < a) whole with corners, else the interior.
      for (int k = 0; k < 4; ++k)
        for (int b = 0; b < 3; ++b) {
          const bool whole = corners && b < a;
          x.r[k].sub[b] = whole ? full_[b] : n[b];
          x.r[k].start[b] = whole ? 0 : w;
        }
      const std::int64_t at[4] = {w, n[a], n[a] + w, 0};  // send lo, send hi, recv hi, recv lo
      for (int k = 0; k < 4; ++k) {
        x.r[k].sub[a] = w;
        x.r[k].start[a] = at[k];
      }
      x.cells = x.r[0].sub[0] * x.r[0].sub[1] * x.r[0].sub[2];
      most = std::max(most, static_cast<std::size_t>(x.cells));
      axes_.push_back(x);
    }
    for (double*& b : buf_) CHECK(cudaMalloc(reinterpret_cast<void**>(&b), std::max<std::size_t>(most, 1) * 8));
  }
  ~NcclHalo() {
    for (double* b : buf_) cudaFree(b);
  }
  NcclHalo(const NcclHalo&) = delete;
  NcclHalo& operator=(const NcclHalo&) = delete;

  void exchange(double* u) {
    for (const Axis& x : axes_) {
      // buf_: 0 send lo, 1 send hi, 2 recv from upper (into the hi halo), 3 recv from lower.
      copy(u, x.r[0], buf_[0], true);
      copy(u, x.r[1], buf_[1], true);
      const auto bytes = static_cast<std::size_t>(x.cells);
      CHECK(ncclGroupStart());
      CHECK(ncclSend(buf_[0], bytes, ncclDouble, x.lower, nccl_, stream_));
      CHECK(ncclRecv(buf_[2], bytes, ncclDouble, x.upper, nccl_, stream_));
      CHECK(ncclSend(buf_[1], bytes, ncclDouble, x.upper, nccl_, stream_));
      CHECK(ncclRecv(buf_[3], bytes, ncclDouble, x.lower, nccl_, stream_));
      CHECK(ncclGroupEnd());
      copy(u, x.r[2], buf_[2], false);
      copy(u, x.r[3], buf_[3], false);
    }
    CHECK(cudaStreamSynchronize(stream_));
  }

 private:
  struct Axis {
    int lower, upper;
    Region r[4];
    std::int64_t cells;
  };
  // Between region r of u and a dense buffer (r's extents), on the stream.
  void copy(double* u, const Region& r, double* dense, bool pack) const {
    cudaMemcpy3DParms p{};
    const cudaPitchedPtr arr = make_cudaPitchedPtr(u, static_cast<std::size_t>(full_[2]) * 8,
                                                   static_cast<std::size_t>(full_[2]), static_cast<std::size_t>(full_[1]));
    const cudaPitchedPtr buf = make_cudaPitchedPtr(dense, static_cast<std::size_t>(r.sub[2]) * 8,
                                                   static_cast<std::size_t>(r.sub[2]), static_cast<std::size_t>(r.sub[1]));
    const cudaPos at = make_cudaPos(static_cast<std::size_t>(r.start[2]) * 8, static_cast<std::size_t>(r.start[1]),
                                    static_cast<std::size_t>(r.start[0]));
    p.srcPtr = pack ? arr : buf;
    p.dstPtr = pack ? buf : arr;
    (pack ? p.srcPos : p.dstPos) = at;
    p.extent = make_cudaExtent(static_cast<std::size_t>(r.sub[2]) * 8, static_cast<std::size_t>(r.sub[1]),
                               static_cast<std::size_t>(r.sub[0]));
    p.kind = cudaMemcpyDeviceToDevice;
    CHECK(cudaMemcpy3DAsync(&p, stream_));
  }
  ncclComm_t nccl_;
  cudaStream_t stream_;
  std::int64_t full_[3] = {};
  std::vector<Axis> axes_;
  double* buf_[4] = {};
};

/// The machine block of a record: host, GPU model, MPI library (first line), NCCL version.
std::string machine_json(int size, int device) {
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, device));
  int nv = 0;
  CHECK(ncclGetVersion(&nv));
  return "{\"host\": " + json_string(host) + ", \"gpu_model\": " + json_string(prop.name) +
         ", \"mpi_library\": " + json_string(mpi_library()) + ", \"nccl_version\": " + std::to_string(nv) +
         ", \"ranks\": " + std::to_string(size) + "}";
}

struct DeviceArray {
  double* p = nullptr;
  std::size_t n = 0;
  explicit DeviceArray(const std::vector<double>& h) : n(h.size()) {
    CHECK(cudaMalloc(reinterpret_cast<void**>(&p), std::max<std::size_t>(n, 1) * 8));
    CHECK(cudaMemcpy(p, h.data(), n * 8, cudaMemcpyHostToDevice));
  }
  ~DeviceArray() { cudaFree(p); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  std::vector<double> host() const {
    std::vector<double> h(n);
    CHECK(cudaMemcpy(h.data(), p, n * 8, cudaMemcpyDeviceToHost));
    return h;
  }
};

}  // namespace

int main(int argc, char** argv) {
  halo_bench::Args args;
  if (!args.start("gpu-halo-bench", argc, argv)) return 2;
  const int rank = args.rank, size = args.size;
  const Shape& shape = args.shape;
  const int reps = args.reps, trials = args.trials;

  // One GPU per rank: the local rank modulo the visible GPUs (dfft::Halo's device -1 does the same).
  MPI_Comm local;
  CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local));
  int local_rank = 0, gpus = 0;
  CHECK(MPI_Comm_rank(local, &local_rank));
  if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus < 1) gpus = 0;
  int none = gpus == 0 ? 1 : 0, any_none = 0;
  CHECK(MPI_Allreduce(&none, &any_none, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  if (any_none) {
    if (rank == 0) std::printf("gpu-halo-bench: SKIPPED: no GPU visible on some rank\n");
    MPI_Finalize();
    return 77;
  }
  const int device = local_rank % gpus;
  CHECK(cudaSetDevice(device));
  int local_size = 0;
  CHECK(MPI_Comm_size(local, &local_size));
  int shared = local_size > gpus ? 1 : 0, any_shared = 0;
  CHECK(MPI_Allreduce(&shared, &any_shared, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  if (any_shared) {
    if (rank == 0)
      std::printf("gpu-halo-bench: SKIPPED: ranks share a GPU (NCCL needs one GPU per rank)\n");
    MPI_Finalize();
    return 77;
  }
  ncclUniqueId id{};
  if (rank == 0) CHECK(ncclGetUniqueId(&id));
  CHECK(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD));
  ncclComm_t nccl = nullptr;
  CHECK(ncclCommInitRank(&nccl, size, id, rank));
  cudaStream_t stream = nullptr;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  std::ofstream json;
  if (rank == 0 && !args.json.empty()) json.open(args.json, std::ios::app);
  const std::string machine = rank == 0 ? machine_json(size, device) : "";
  int failures = 0;
  if (rank == 0) {
    std::printf("gpu-halo-bench %lldx%lldx%lld, %d ranks (one GPU each), double, all axes periodic; %d exchanges x "
                "%d trials, best trial\n",
                static_cast<long long>(shape[0]), static_cast<long long>(shape[1]),
                static_cast<long long>(shape[2]), size, reps, trials);
    std::printf("| blocks | grid | width | corners | local box | cells moved/rank | dfft nccl (us) | dfft p2p-sync "
                "(us) | p2p-sync via | NCCL by hand (us) | nccl/by hand | same |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  }
  for (int split : {1, 2}) {  // slabs (axis 0 cut), pencils (axes 0 and 1 cut)
    const Blocks blocks(shape, split, size, rank, [](int rc, const char* call) { check(rc, call); });
    if (blocks.cart == MPI_COMM_NULL) continue;  // the same blocks as the slabs
    const auto& dims = blocks.dims;
    const auto& n = blocks.n;
    const dfft::Layout& l = blocks.layout;
    for (int w : {1, 2}) {
      for (bool corners : {false, true}) {
        const dfft::HaloSpec spec{Shape(3, w), {}, {}, corners};
        dfft::Halo<double> hn(MPI_COMM_WORLD, l, spec, dfft::Method::nccl, dfft::Backend::cuda, device);
        dfft::Halo<double> hp(MPI_COMM_WORLD, l, spec, dfft::Method::p2p_sync, dfft::Backend::cuda, device);
        NcclHalo by_hand(blocks.cart, nccl, stream, n, w, corners);
        const std::vector<double> init = blocks.array(shape, w);
        DeviceArray a(init), b(init), c(init);
        hn.exchange(std::span<double>(a.p, a.n));
        hp.exchange(std::span<double>(c.p, c.n));
        by_hand.exchange(b.p);
        const auto ha = a.host(), hb = b.host(), hc = c.host();
        int same = ha == hb && hc == hb, all_same = 0;
        CHECK(MPI_Allreduce(&same, &all_same, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
        failures += !all_same;
        double best_n = std::numeric_limits<double>::infinity(), best_p = best_n, best_h = best_n;
        for (int t = 0; t < trials; ++t) {
          best_n = std::min(best_n, time_reps(reps, [&] { hn.exchange(a.p); }));
          best_p = std::min(best_p, time_reps(reps, [&] { hp.exchange(c.p); }));
          best_h = std::min(best_h, time_reps(reps, [&] { by_hand.exchange(b.p); }));
        }
        const std::int64_t cells = hn.sent_elements() + hn.self_elements();
        const char* via = hp.staging() == dfft::Staging::cuda_aware ? "cuda-aware MPI" : "host-staged MPI";
        if (rank == 0)
          std::printf("| %s | %dx%dx%d | %d | %s | %lldx%lldx%lld | %lld | %.1f | %.1f | %s | %.1f | %.2f | %s |\n",
                      split == 1 ? "slab" : "pencil", dims[0], dims[1], dims[2], w, corners ? "yes" : "no",
                      static_cast<long long>(n[0]), static_cast<long long>(n[1]), static_cast<long long>(n[2]),
                      static_cast<long long>(cells), best_n * 1e6, best_p * 1e6, via, best_h * 1e6, best_n / best_h,
                      all_same ? "yes" : "NO");
        if (json.is_open())
          json << "{\"test\": \"halo-gpu\", \"size\": " << json_list(shape) << ", \"ranks\": " << size
               << ", \"blocks\": \"" << (split == 1 ? "slab" : "pencil") << "\", \"grid\": " << json_list(dims)
               << ", \"width\": " << w << ", \"corners\": " << (corners ? "true" : "false")
               << ", \"local_box\": " << json_list(n) << ", \"cells\": " << cells << ", \"reps\": " << reps
               << ", \"trials\": " << trials << ", \"p2p_sync_via\": " << json_string(via)
               << ", \"time_us\": {\"dfft_nccl\": " << best_n * 1e6 << ", \"dfft_p2p_sync\": " << best_p * 1e6
               << ", \"nccl_by_hand\": " << best_h * 1e6 << "}, \"same\": " << (all_same ? "true" : "false")
               << ", \"timestamp\": \"" << args.stamp << "\", \"machine\": " << machine << ", \"run\": {\"command\": "
               << json_string("mpirun --bind-to none -np " + std::to_string(size) + " " + args.command) << "}}\n";
      }
    }
  }
  CHECK(cudaStreamDestroy(stream));
  CHECK(ncclCommDestroy(nccl));
  CHECK(MPI_Comm_free(&local));
  MPI_Finalize();
  return failures ? 1 : 0;
}
