// SPDX-License-Identifier: MIT
#include "backend/cuda/store_callbacks.hpp"

#include <cufftXt.h>

#include <bit>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>

#include "backend/cuda/check.hpp"
#include "scale_callbacks_fatbin.h"  // generated: the LTO-IR of scale_callbacks.cu

namespace dfft::detail {

namespace {

struct Callback {
  const char* symbol;
  cufftXtCallbackType type;
};

Callback callback_for(cufftType t, bool on_load) {
  if (on_load) switch (t) {
      case CUFFT_R2C: return {"dfft_scale_load_r", CUFFT_CB_LD_REAL};
      case CUFFT_D2Z: return {"dfft_scale_load_d", CUFFT_CB_LD_REAL_DOUBLE};
      case CUFFT_C2R:
      case CUFFT_C2C: return {"dfft_scale_load_c", CUFFT_CB_LD_COMPLEX};
      default: return {"dfft_scale_load_z", CUFFT_CB_LD_COMPLEX_DOUBLE};
    }
  switch (t) {
    case CUFFT_C2R: return {"dfft_scale_store_r", CUFFT_CB_ST_REAL};
    case CUFFT_Z2D: return {"dfft_scale_store_d", CUFFT_CB_ST_REAL_DOUBLE};
    case CUFFT_R2C:
    case CUFFT_C2C: return {"dfft_scale_store_c", CUFFT_CB_ST_COMPLEX};
    default: return {"dfft_scale_store_z", CUFFT_CB_ST_COMPLEX_DOUBLE};
  }
}

cufftResult attach(cufftHandle h, cufftType t, double factor, bool on_load) {
  const Callback c = callback_for(t, on_load);
  // The factor travels in the caller-info pointer itself (scale_callbacks.cu).
  void* info = reinterpret_cast<void*>(static_cast<std::uintptr_t>(std::bit_cast<std::uint64_t>(factor)));
  return cufftXtSetJITCallback(h, c.symbol, dfft_scale_callbacks_fatbin, sizeof(dfft_scale_callbacks_fatbin),
                               c.type, &info);
}

std::once_flag probe_once;
std::string unavailable;  // why not, set once under probe_once ("" where they link)

void probe() {
  const char* env = std::getenv("DFFT_CUFFT_CALLBACKS");
  if (env && std::string(env) == "0") {
    unavailable = "DFFT_CUFFT_CALLBACKS=0";
    return;
  }
  cufftHandle h = 0;
  cufftResult r = cufftCreate(&h);
  if (r == CUFFT_SUCCESS) {
    r = attach(h, CUFFT_C2R, 0.5, false);
    std::size_t work = 0;
    // Planned to see whether cuFFT links the callback, never executed: no stream to set.
    if (r == CUFFT_SUCCESS) r = cufftMakePlan1d(h, 16, CUFFT_C2R, 1, &work);  // stream-order: allowed
    cufftDestroy(h);
  }
  if (r != CUFFT_SUCCESS)
    unavailable = "cuFFT refused a JIT LTO store callback (" + std::string(cufft_result_name(r)) + ")";
}

}  // namespace

bool store_callbacks_available() {
  std::call_once(probe_once, probe);
  return unavailable.empty();
}

void set_scale_callback(cufftHandle h, cufftType type, double factor, bool on_load) {
  DFFT_CUFFT(attach(h, type, factor, on_load));
}

}  // namespace dfft::detail
