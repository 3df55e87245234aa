// SPDX-License-Identifier: MIT
// Built when dfft has no CUDA backend: asking for it is a clear plan-time error.
#include "backend/device.hpp"
#include "dfft/reference.hpp"
#include "transport/transport.hpp"
#include "util/check.hpp"

namespace dfft::detail {

std::unique_ptr<Device> make_cuda_device(MPI_Comm, int, void*) {
  unsupported("this dfft was built without the CUDA backend (configure with -DDFFT_CUDA=ON on a machine "
       "with the CUDA toolkit); use --backend cpu");
}

GpuLinks gpu_links(MPI_Comm, int) {
  unsupported("this dfft was built without the CUDA backend; use --backend cpu");
}

std::unique_ptr<Transport> make_device_transport(Method, MPI_Comm, const ExchangeSpec&, Device&,
                                                 const TransportTuning&) {
  unsupported("device transports need the CUDA backend");
}

}  // namespace dfft::detail

namespace dfft::detail {
ReferenceTiming cuda_single_device_reference(const std::vector<std::int64_t>&, Transform, bool, bool,
                                             int, int, int) {
  ReferenceTiming r;
  r.why = "built without the CUDA backend";
  return r;
}
}  // namespace dfft::detail
