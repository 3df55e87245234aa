// SPDX-License-Identifier: MIT
#include "backend/cuda/check.hpp"

#include <iomanip>
#include <sstream>

namespace dfft::detail {

namespace {
// Out-of-memory codes become OutOfMemory, the others a LibraryError of `lib`.
[[noreturn]] void raise(LibraryError::Library lib, const char* call, long code, const std::string& text,
                        bool out_of_memory) {
  const int r = world_rank();
  std::ostringstream s;
  s << "dfft: " << call << " failed with code " << code << " (" << text << ") on rank " << r;
  if (out_of_memory) throw OutOfMemory(call, code, r, s.str());
  throw LibraryError(lib, call, code, r, s.str());
}
}  // namespace

void throw_cuda_alloc(const char* call, std::size_t bytes, int gpu, cudaError_t code) {
  cudaGetLastError();
  std::size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) cudaGetLastError();
  const int r = world_rank();
  std::ostringstream s;
  s << "dfft: " << call << " of " << bytes << " bytes (" << std::fixed << std::setprecision(2)
    << static_cast<double>(bytes) / (1 << 30) << " GiB) failed with code " << code << " ("
    << cudaGetErrorString(code) << ") on rank " << r << ", GPU " << gpu << " (" << free_b << " of "
    << total_b << " bytes free)";
  throw OutOfMemory(call, static_cast<long>(code), r, s.str(), static_cast<std::int64_t>(bytes),
                    static_cast<std::int64_t>(free_b));
}

void throw_cuda(const char* call, cudaError_t code) {
  cudaGetLastError();  // clear a sticky-free error so later calls are not blamed for it
  raise(LibraryError::Library::cuda, call, static_cast<long>(code), cudaGetErrorString(code),
        code == cudaErrorMemoryAllocation);
}

const char* cufft_result_name(cufftResult code) {
  switch (code) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED (out of device memory)";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA: return "CUFFT_UNALIGNED_DATA";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: return "unknown cuFFT result";
  }
}

void throw_cufft(const char* call, cufftResult code) {
  raise(LibraryError::Library::cufft, call, static_cast<long>(code), cufft_result_name(code),
        code == CUFFT_ALLOC_FAILED);
}

}  // namespace dfft::detail
