/* SPDX-License-Identifier: MIT
 * FFTW_WISDOM_ONLY through dfft's libfftw3_mpi: with no wisdom a plan is NULL on every rank; after
 * planning the same problem with FFTW_MEASURE, exporting FFTW's wisdom, forgetting it and
 * importing it again, the WISDOM_ONLY plans exist and transform right (an r2c with a transposed
 * output against FFTW's serial r2c of the whole array, its c2r back to the input times n).
 * Run on 1-4 ranks; prints "wisdom-only: N passed, M failed". */
#include <fftw3-mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "all_ranks_check.h"


enum { N0 = 11, N1 = 10, N2 = 7 };
#define NC (N2 / 2 + 1)

static double value(ptrdiff_t i, ptrdiff_t j, ptrdiff_t k) { return sin(0.7 * (double)i + 1.3 * (double)j) + 0.25 * (double)((i * 31 + j * 7 + k * 3) % 11); }

static unsigned transposed = FFTW_MPI_TRANSPOSED_OUT;

/* Both plans of the problem with `flags`: r2c forward (transposed out) and c2r backward
 * (transposed in), out of place on the arrays given. */
static void make(unsigned flags, double* re, fftw_complex* sp, fftw_plan* f, fftw_plan* b) {
  *f = fftw_mpi_plan_dft_r2c_3d(N0, N1, N2, re, sp, MPI_COMM_WORLD, flags | transposed);
  *b = fftw_mpi_plan_dft_c2r_3d(N0, N1, N2, sp, re, MPI_COMM_WORLD, flags | FFTW_MPI_TRANSPOSED_IN);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fftw_mpi_init();
  ptrdiff_t l0, s0, l1, s1;
  const ptrdiff_t alloc = fftw_mpi_local_size_3d_transposed(N0, N1, NC, MPI_COMM_WORLD, &l0, &s0, &l1, &s1);
  double* re = fftw_alloc_real(2 * alloc);
  fftw_complex* sp = fftw_alloc_complex(alloc);
  fftw_plan f, b;

  make(FFTW_WISDOM_ONLY, re, sp, &f, &b);
  check(f == NULL && b == NULL, "no wisdom: FFTW_WISDOM_ONLY gives no plan");
  if (f) fftw_destroy_plan(f);
  if (b) fftw_destroy_plan(b);

  make(FFTW_MEASURE, re, sp, &f, &b);
  check(f != NULL && b != NULL, "FFTW_MEASURE plans");
  if (f) fftw_destroy_plan(f);
  if (b) fftw_destroy_plan(b);
  char* wisdom = fftw_export_wisdom_to_string();
  fftw_forget_wisdom();
  make(FFTW_WISDOM_ONLY, re, sp, &f, &b);
  check(f == NULL && b == NULL, "wisdom forgotten: no plan");
  if (f) fftw_destroy_plan(f);
  if (b) fftw_destroy_plan(b);
  /* Wisdom on rank 0 only: the other ranks cannot plan, so no rank returns a plan (and none
   * waits for the others in a collective call). */
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0 && wisdom) fftw_import_wisdom_from_string(wisdom);
  make(FFTW_WISDOM_ONLY, re, sp, &f, &b);
  check(size == 1 ? f != NULL && b != NULL : f == NULL && b == NULL,
        "wisdom on rank 0 only: a plan on one rank, none on several");
  if (f) fftw_destroy_plan(f);
  if (b) fftw_destroy_plan(b);
  check(wisdom != NULL && fftw_import_wisdom_from_string(wisdom), "wisdom imported again");
  free(wisdom);
  make(FFTW_WISDOM_ONLY, re, sp, &f, &b);
  const int made = f != NULL && b != NULL;
  check(made, "wisdom imported: FFTW_WISDOM_ONLY plans");
  if (made) {
    for (ptrdiff_t i = 0; i < l0; ++i)
      for (ptrdiff_t j = 0; j < N1; ++j)
        for (ptrdiff_t k = 0; k < 2 * NC; ++k) re[(i * N1 + j) * 2 * NC + k] = k < N2 ? value(s0 + i, j, k) : 0;
    fftw_execute(f);
    /* Serial reference of the whole array; this rank's output is rows s1..s1+l1 of axis 1, each
     * holding all of axis 0 (FFTW_MPI_TRANSPOSED_OUT). */
    double* all = fftw_alloc_real(N0 * N1 * N2);
    fftw_complex* want = fftw_alloc_complex(N0 * N1 * NC);
    for (ptrdiff_t i = 0; i < N0; ++i)
      for (ptrdiff_t j = 0; j < N1; ++j)
        for (ptrdiff_t k = 0; k < N2; ++k) all[(i * N1 + j) * N2 + k] = value(i, j, k);
    fftw_plan ref = fftw_plan_dft_r2c_3d(N0, N1, N2, all, want, FFTW_ESTIMATE);
    fftw_execute(ref);
    fftw_destroy_plan(ref);
    double err = 0, top = 0;
    for (ptrdiff_t j = 0; j < l1; ++j)
      for (ptrdiff_t i = 0; i < N0; ++i)
        for (ptrdiff_t k = 0; k < NC; ++k) {
          const fftw_complex* g = &sp[(j * N0 + i) * NC + k];
          const fftw_complex* w = &want[(i * N1 + s1 + j) * NC + k];
          err = fmax(err, hypot((*g)[0] - (*w)[0], (*g)[1] - (*w)[1]));
          top = fmax(top, hypot((*w)[0], (*w)[1]));
        }
    check(err <= 1e-12 * (top > 0 ? top : 1), "the WISDOM_ONLY r2c equals FFTW's serial r2c");
    fftw_execute(b);
    double back = 0;
    for (ptrdiff_t i = 0; i < l0; ++i)
      for (ptrdiff_t j = 0; j < N1; ++j)
        for (ptrdiff_t k = 0; k < N2; ++k)
          back = fmax(back, fabs(re[(i * N1 + j) * 2 * NC + k] / (N0 * N1 * N2) - value(s0 + i, j, k)));
    check(back <= 1e-12, "the WISDOM_ONLY c2r gives the input back (times n)");
    fftw_free(all);
    fftw_free(want);
  }
  if (f) fftw_destroy_plan(f);
  if (b) fftw_destroy_plan(b);
  fftw_free(re);
  fftw_free(sp);
  fftw_mpi_cleanup();
  if (rank == 0) printf("wisdom-only: %d passed, %d failed\n", passed, failed);
  MPI_Finalize();
  return failed ? 1 : 0;
}
