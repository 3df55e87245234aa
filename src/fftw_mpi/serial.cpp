// SPDX-License-Identifier: MIT
#include "fftw_mpi/serial.hpp"

#include <dlfcn.h>

#include <string>

#include "fftw_mpi/mpi_plan.hpp"

namespace dfft::fftw_mpi::serial {

void* next(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (f == nullptr) {
    // Linked without FFTW behind it (FFTW's documented order is -lfftw3_mpi -lfftw3): the
    // process's first definition is still FFTW's, unless it is this library's own.
    void* any = dlsym(RTLD_DEFAULT, name);
    void* self = dlsym(RTLD_DEFAULT, "dfft_fftw_mpi_marker");
    Dl_info a{}, b{};
    if (any != nullptr && dladdr(any, &a) != 0 && dladdr(self, &b) != 0 && a.dli_fbase != b.dli_fbase) f = any;
  }
  if (f == nullptr) say(std::string("FFTW's own ") + name + " was not found: link the application with FFTW (-lfftw3_mpi -lfftw3)");
  return f;
}

int planner_nthreads() {
#ifdef DFFT_FFTW_MPI_FLOAT
  const char* name = "fftwf_planner_nthreads";
#else
  const char* name = "fftw_planner_nthreads";
#endif
  auto* f = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, name));
  return f != nullptr ? f() : 1;
}

}  // namespace dfft::fftw_mpi::serial
