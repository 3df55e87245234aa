// SPDX-License-Identifier: MIT
// make_device_transport: the redistribution methods only the CUDA backend has. Every MPI
// schedule (a2a-sync, p2p-sync, a2a-type, p2p-type, onesided, p2p-pipelined, node-ring,
// hierarchical) lives once in src/transport and reaches the GPU through CudaStager.
//
//   method        host staging (MPI not CUDA-aware)            CUDA-aware MPI
//   p2p-streams   per-peer streams + host-function callbacks    same on device pointers
//   nccl          grouped ncclSend/ncclRecv on the plan stream (always device memory)
//   cuda-ipc      peer copies through CUDA IPC handles (always device memory)
#include "backend/cuda/stager.hpp"

namespace dfft::detail {

std::unique_ptr<Transport> make_device_p2p_streams(MPI_Comm, const ExchangeSpec&, CudaDevice&, bool);
std::unique_ptr<Transport> make_device_nccl(MPI_Comm, const ExchangeSpec&, CudaDevice&, int chunks,
                                            bool taper);
std::unique_ptr<Transport> make_device_cuda_ipc(MPI_Comm, const ExchangeSpec&, CudaDevice&);

std::unique_ptr<Transport> make_device_transport(Method m, MPI_Comm comm, const ExchangeSpec& spec,
                                                 Device& d, const TransportTuning& tuning) {
  CudaDevice& dev = as_cuda(d);
  dev.activate();
  // Codecs are fused into the device pack/unpack (src/backend/cuda/codec.cu).
  if (m == Method::nccl) return make_device_nccl(comm, spec, dev, tuning.chunks, tuning.taper);
  if (m == Method::cuda_ipc) return make_device_cuda_ipc(comm, spec, dev);
  if (m == Method::p2p_streams) return make_device_p2p_streams(comm, spec, dev, use_cuda_aware(spec.staging));
  fail_internal("method ", to_string(m), " is not a CUDA-only method");
}

}  // namespace dfft::detail
