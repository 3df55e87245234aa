/* SPDX-License-Identifier: MIT
 * An FFTW-MPI program linked with dfft::fftw3_mpi: a 2-D complex transform there and back on every
 * rank, and proof that the library that ran is dfft's (its marker symbol). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fftw3-mpi.h>
#include <math.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  fftw_mpi_init();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const ptrdiff_t n0 = 10, n1 = 7;
  ptrdiff_t local_n0 = 0, start = 0;
  const ptrdiff_t alloc = fftw_mpi_local_size_2d(n0, n1, MPI_COMM_WORLD, &local_n0, &start);
  fftw_complex* a = fftw_alloc_complex((size_t)alloc);
  fftw_plan f = fftw_mpi_plan_dft_2d(n0, n1, a, a, MPI_COMM_WORLD, FFTW_FORWARD, FFTW_ESTIMATE);
  fftw_plan b = fftw_mpi_plan_dft_2d(n0, n1, a, a, MPI_COMM_WORLD, FFTW_BACKWARD, FFTW_ESTIMATE);
  for (ptrdiff_t i = 0; i < local_n0 * n1; ++i) a[i][0] = (double)((start * n1 + i) % 11), a[i][1] = 0;
  fftw_execute(f);
  fftw_execute(b);
  double worst = 0;
  for (ptrdiff_t i = 0; i < local_n0 * n1; ++i) {
    const double e = fabs(a[i][0] / (double)(n0 * n1) - (double)((start * n1 + i) % 11)) + fabs(a[i][1]);
    if (e > worst) worst = e;
  }
  double all = 0;
  MPI_Allreduce(&worst, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  const int dfft_ran = dlsym(RTLD_DEFAULT, "dfft_fftw_mpi_marker") != NULL;
  if (rank == 0) printf("downstream FFTW-MPI program on %s: 10x7 c2c round trip error %.1e\n", dfft_ran ? "dfft's libfftw3_mpi" : "another libfftw3_mpi", all);
  fftw_destroy_plan(f);
  fftw_destroy_plan(b);
  fftw_free(a);
  fftw_mpi_cleanup();
  MPI_Finalize();
  return (all < 1e-12 && dfft_ran) ? 0 : 1;
}
