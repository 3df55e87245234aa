// SPDX-License-Identifier: MIT
#include "backend/cuda/stager.hpp"

#include "backend/cuda/codec.hpp"

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

namespace dfft::detail {

Stager::Stager(const ExchangeSpec& s, CudaDevice& dev, bool aware, bool uniform)
    : b_(s), dev_(dev), aware_(aware) {
  const int n = b_.size();
  for (int k = 0; k < n; ++k) {
    if (k == s.me) continue;
    if (uniform && b_.any_pack) b_.direct_send[k] = false;
    if (uniform && b_.any_unpack) b_.direct_recv[k] = false;
  }
  // Device staging only where blocks need packing; host staging holds every message.
  using S = CudaDevice::Scratch;
  if (b_.any_pack) dev.reserve_scratch(S::dev_send, static_cast<std::size_t>(b_.stage_send_bytes));
  if (b_.any_unpack) dev.reserve_scratch(S::dev_recv, static_cast<std::size_t>(b_.stage_recv_bytes));
  if (!aware) {
    dev.reserve_scratch(S::host_send, static_cast<std::size_t>(b_.stage_send_bytes));
    dev.reserve_scratch(S::host_recv, static_cast<std::size_t>(b_.stage_recv_bytes));
  }
}

const char* Stager::send_ptr(int k, const void* src) const {
  if (!aware_) return hsend() + b_.stage_send_off[k];
  if (b_.direct_send[k]) return static_cast<const char*>(src) + b_.src_offset[k];
  return dsend() + b_.stage_send_off[k];
}

char* Stager::recv_ptr(int k, void* dst) const {
  if (!aware_) return hrecv() + b_.stage_recv_off[k];
  if (b_.direct_recv[k]) return static_cast<char*>(dst) + b_.dst_offset[k];
  return drecv() + b_.stage_recv_off[k];
}

void Stager::stage_out(int k, const void* src, cudaStream_t s) const {
  if (b_.send_bytes[k] == 0) return;
  const auto& sp = b_.spec;
  const char* from = static_cast<const char*>(src) + b_.src_offset[k];
  if (!b_.direct_send[k]) {
    char* packed = dsend() + b_.stage_send_off[k];
    if (sp.codec != Codec::none)
      DFFT_CUDA(cuda::encode_box_async(src, sp.src[sp.me], b_.send[k], sp.src[sp.me].order, packed,
                                       sp.codec, sp.is_double, s));
    else
      dev_.copy_box_async(src, sp.src[sp.me], packed, b_.wire_layout(sp.me, b_.send[k]), b_.send[k],
                          sp.elem, s);
    from = packed;
  }
  if (!aware_)
    DFFT_CUDA(cudaMemcpyAsync(hsend() + b_.stage_send_off[k], from,
                              static_cast<std::size_t>(b_.send_bytes[k]), cudaMemcpyDeviceToHost, s));
}

void Stager::stage_in(int k, void* dst, cudaStream_t s) const {
  if (b_.recv_bytes[k] == 0) return;
  const auto& sp = b_.spec;
  char* packed = b_.direct_recv[k] ? static_cast<char*>(dst) + b_.dst_offset[k]
                                   : drecv() + b_.stage_recv_off[k];
  if (!aware_)
    DFFT_CUDA(cudaMemcpyAsync(packed, hrecv() + b_.stage_recv_off[k],
                              static_cast<std::size_t>(b_.recv_bytes[k]), cudaMemcpyHostToDevice, s));
  if (b_.direct_recv[k]) return;
  if (sp.codec != Codec::none)
    DFFT_CUDA(cuda::decode_box_async(packed, sp.src[k].order, dst, sp.dst[sp.me], b_.recv[k],
                                     sp.codec, sp.is_double, s));
  else
    dev_.copy_box_async(packed, b_.wire_layout(k, b_.recv[k]), dst, sp.dst[sp.me], b_.recv[k],
                        sp.elem, s);
}

void Stager::copy_self(const void* src, void* dst, cudaStream_t s) const {
  const auto& sp = b_.spec;
  dev_.copy_box_async(src, sp.src[sp.me], dst, sp.dst[sp.me], b_.send[sp.me], sp.elem, s);
}

bool mpi_is_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

bool use_cuda_aware(Staging s, Method m) {
  if (s == Staging::host) return false;
  const bool aware = mpi_is_cuda_aware();
  if (s == Staging::cuda_aware && !aware)
    unsupported("staging cuda-aware (method ", to_string(m), ") needs an MPI built with CUDA support, ",
         "but this MPI reports none (MPIX_Query_cuda_support); use staging host or auto");
  return aware;
}

void require_thread_multiple(const char* method) {
  int provided = MPI_THREAD_SINGLE;
  DFFT_MPI(MPI_Query_thread(&provided));
  if (provided < MPI_THREAD_MULTIPLE)
    unsupported(method, " sends from a second thread and needs MPI initialised with ",
         "MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...); this process has thread level ", provided,
         " (MPI_THREAD_MULTIPLE = ", MPI_THREAD_MULTIPLE, ")");
}

void post_chunks(char* base, std::int64_t bytes, std::int64_t chunk, int peer, MPI_Comm comm,
                 std::vector<MPI_Request>& reqs, bool recv) {
  for (std::int64_t c = 0, off = 0; off < bytes; ++c, off += chunk) {
    const int len = static_cast<int>(std::min(chunk, bytes - off));
    const int tag = static_cast<int>(c % 32768);
    MPI_Request r;
    if (recv) DFFT_MPI(MPI_Irecv(base + off, len, MPI_BYTE, peer, tag, comm, &r));
    else DFFT_MPI(MPI_Isend(base + off, len, MPI_BYTE, peer, tag, comm, &r));
    reqs.push_back(r);
  }
}

}  // namespace dfft::detail
