/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* RTLD_NEXT */
#include "fault_hooks.h"

#include <dlfcn.h>
#include <mpi.h>
#include <stddef.h>

static volatile int fail_mpi, fail_fftw;

void dfft_test_fail_mpi(int on) { fail_mpi = on; }
void dfft_test_fail_fftw(int on) { fail_fftw = on; }

int MPI_Alltoallv(const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb, const int rc[],
                  const int rd[], MPI_Datatype rt, MPI_Comm comm) {
  if (fail_mpi) return MPI_ERR_OTHER;
  return PMPI_Alltoallv(sb, sc, sd, st, rb, rc, rd, rt, comm);
}

/* FFTW's prototype, with its types as pointers (no fftw3.h needed). */
void* fftw_plan_guru64_dft(int rank, const void* dims, int hrank, const void* hdims, void* in, void* out, int sign,
                           unsigned flags) {
  typedef void* (*fn)(int, const void*, int, const void*, void*, void*, int, unsigned);
  static fn real;
  if (fail_fftw) return NULL;
  if (!real) *(void**)&real = dlsym(RTLD_NEXT, "fftw_plan_guru64_dft");
  if (!real) {
    /* Loaded first into a process (LD_PRELOAD) that later opens FFTW privately (a Python
     * extension's dependency): FFTW is not among the libraries after this one; ask it directly. */
    void* fftw = dlopen("libfftw3.so.3", RTLD_LAZY | RTLD_NOLOAD);
    if (fftw) *(void**)&real = dlsym(fftw, "fftw_plan_guru64_dft");
  }
  if (!real) return NULL;
  return real(rank, dims, hrank, hdims, in, out, sign, flags);
}
