/* SPDX-License-Identifier: MIT
 * dfft's libfftw3_mpi under misuse: every case must end in a NULL plan or a message on stderr,
 * never a crash, a hang or a wrong result. Run on 2 ranks; prints "misuse: N passed, M failed".
 * The messages themselves are matched by the test's PASS_REGULAR_EXPRESSION (CMakeLists.txt). */
#include <fftw3-mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "all_ranks_check.h"


/* A 2-D c2c forward then backward on this rank's rows gives n times the input: a plan that
 * runs, runs right. */
static double round_trip_error(fftw_plan f, fftw_plan b, fftw_complex* data, ptrdiff_t count, double n) {
  double worst = 0;
  for (ptrdiff_t i = 0; i < count; ++i) {
    data[i][0] = (double)(i % 7) - 3;
    data[i][1] = (double)(i % 5) * 0.5;
  }
  fftw_execute(f);
  fftw_execute(b);
  for (ptrdiff_t i = 0; i < count; ++i) {
    double re = data[i][0] / n - ((double)(i % 7) - 3), im = data[i][1] / n - (double)(i % 5) * 0.5;
    double e = sqrt(re * re + im * im);
    if (e > worst) worst = e;
  }
  return worst;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  fftw_mpi_init();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const ptrdiff_t n0 = 9, n1 = 6;
  ptrdiff_t local_n0, start;
  ptrdiff_t alloc = fftw_mpi_local_size_2d(n0, n1, MPI_COMM_WORLD, &local_n0, &start);
  fftw_complex* a = fftw_alloc_complex((size_t)alloc);
  fftw_complex* b = fftw_alloc_complex((size_t)alloc + 1);

  /* 1. A working plan, run through the serial names (fftw_execute, fftw_destroy_plan). */
  fftw_plan f = fftw_mpi_plan_dft_2d(n0, n1, a, a, MPI_COMM_WORLD, FFTW_FORWARD, FFTW_ESTIMATE);
  fftw_plan g = fftw_mpi_plan_dft_2d(n0, n1, a, a, MPI_COMM_WORLD, FFTW_BACKWARD, FFTW_ESTIMATE);
  check(f && g, "plans of a 9x6 c2c in place");
  check(f && g && round_trip_error(f, g, a, local_n0 * n1, (double)(n0 * n1)) < 1e-12,
        "forward then backward gives n times the input");

  /* 2. Sizes that differ between ranks: NULL on every rank. */
  ptrdiff_t mine = rank == 0 ? 9 : 10;
  fftw_plan bad = fftw_mpi_plan_dft_2d(mine, n1, a, a, MPI_COMM_WORLD, FFTW_FORWARD, FFTW_ESTIMATE);
  check(bad == NULL, "sizes that differ between ranks give no plan");

  /* 3. A null communicator, a zero size, a bad sign, a bad r2r kind: NULL. */
  check(fftw_mpi_plan_dft_2d(n0, n1, a, a, MPI_COMM_NULL, FFTW_FORWARD, FFTW_ESTIMATE) == NULL,
        "MPI_COMM_NULL gives no plan");
  check(fftw_mpi_plan_dft_2d(0, n1, a, a, MPI_COMM_WORLD, FFTW_FORWARD, FFTW_ESTIMATE) == NULL,
        "a zero size gives no plan");
  check(fftw_mpi_plan_dft_2d(n0, n1, a, a, MPI_COMM_WORLD, 3, FFTW_ESTIMATE) == NULL, "sign 3 gives no plan");
  {
    double* r = (double*)a;
    check(fftw_mpi_plan_r2r_2d(n0, n1, r, r, MPI_COMM_WORLD, (fftw_r2r_kind)42, FFTW_REDFT10, FFTW_ESTIMATE) == NULL,
          "an unknown r2r kind gives no plan");
  }
  /* Block sizes that leave blocks without a rank: NULL, as FFTW. */
  {
    const ptrdiff_t n[2] = {n0, n1};
    check(fftw_mpi_plan_many_dft(2, n, 1, 1, 0, a, a, MPI_COMM_WORLD, FFTW_FORWARD, FFTW_ESTIMATE) == NULL,
          "blocks of one row over 2 ranks for 9 rows give no plan");
  }

  /* 4. New-array execute out of place on an in-place plan: a message, nothing computed. */
  for (ptrdiff_t i = 0; i < alloc; ++i) b[i][0] = b[i][1] = 7;
  fftw_mpi_execute_dft(f, a, b);
  int untouched = 1;
  for (ptrdiff_t i = 0; i < local_n0 * n1; ++i) untouched &= b[i][0] == 7 && b[i][1] == 7;
  check(untouched, "an in-place plan executed out of place computes nothing");

  /* 5. Arrays of another alignment (b + 1 is 16 bytes off): computed right anyway. */
  {
    fftw_complex* c = b + 1;
    for (ptrdiff_t i = 0; i < local_n0 * n1; ++i) c[i][0] = c[i][1] = 0;
    if (local_n0 > 0 && start == 0) c[0][0] = 1; /* an impulse: the spectrum is all ones */
    fftw_execute_dft(f, c, c);
    int ones = 1;
    for (ptrdiff_t i = 0; i < local_n0 * n1; ++i) ones &= fabs(c[i][0] - 1) < 1e-12 && fabs(c[i][1]) < 1e-12;
    check(ones, "arrays of another alignment are transformed right");
  }

  /* 6. Destroyed twice: a message, no crash. Executed after destruction: a message. */
  fftw_destroy_plan(g);
  fftw_destroy_plan(g);
  fftw_execute(g);
  check(1, "a plan destroyed twice and executed after: messages, no crash");

  /* 7. A serial FFTW plan in the same program goes to FFTW. */
  {
    fftw_complex* s = fftw_alloc_complex(8);
    fftw_plan p = fftw_plan_dft_1d(8, s, s, FFTW_FORWARD, FFTW_ESTIMATE);
    for (int i = 0; i < 8; ++i) s[i][0] = 1, s[i][1] = 0;
    fftw_execute(p);
    check(fabs(s[0][0] - 8) < 1e-12 && fabs(s[3][0]) < 1e-12, "a serial plan runs in FFTW");
    fftw_destroy_plan(p);
    fftw_free(s);
    /* (FFTW counts no operations for its smallest ESTIMATE plans: a size of 1000 has some.) */
    fftw_complex* t = fftw_alloc_complex(1000);
    fftw_plan q = fftw_plan_dft_1d(1000, t, t, FFTW_FORWARD, FFTW_ESTIMATE);
    double add = 0, mul = 0, fma = 0;
    fftw_flops(q, &add, &mul, &fma);
    check(add + mul + fma > 0, "fftw_flops of a serial plan is FFTW's");
    fftw_destroy_plan(q);
    fftw_free(t);
  }
  {
    double add = 0, mul = 0, fma = 0;
    fftw_flops(f, &add, &mul, &fma);
    char* text = fftw_sprint_plan(f);
    check(add + mul > 0 && text != NULL && strstr(text, "dfft") != NULL, "fftw_flops and fftw_sprint_plan of an MPI plan");
    free(text);
  }

  /* 8. An intercommunicator between the two halves of the ranks: NULL everywhere, no hang. */
  {
    MPI_Comm half, inter;
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size >= 2) {
      const int colour = rank < size / 2 ? 0 : 1;
      MPI_Comm_split(MPI_COMM_WORLD, colour, rank, &half);
      MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, colour == 0 ? size / 2 : 0, 7, &inter);
      fftw_plan x = fftw_mpi_plan_dft_2d(n0, n1, a, a, inter, FFTW_FORWARD, FFTW_ESTIMATE);
      check(x == NULL, "an intercommunicator gives no plan");
      MPI_Comm_free(&inter);
      MPI_Comm_free(&half);
    }
  }

  /* 9. After fftw_mpi_cleanup, an MPI plan's execution is a message, not a crash. */
  fftw_mpi_cleanup();
  fftw_execute(f);
  fftw_destroy_plan(f);
  check(1, "execution after fftw_mpi_cleanup: a message, no crash");

  fftw_free(a);
  fftw_free(b);
  if (rank == 0) printf("misuse: %d passed, %d failed\n", passed, failed);
  MPI_Finalize();
  return failed == 0 ? 0 : 1;
}
