/* SPDX-License-Identifier: MIT
 * The tally of the FFTW-MPI interface's C tests: a check holds only where it holds on every rank,
 * and rank 0 prints one line per check. One test program per translation unit includes it. */
#ifndef DFFT_TESTS_FFTW_MPI_ALL_RANKS_CHECK_H
#define DFFT_TESTS_FFTW_MPI_ALL_RANKS_CHECK_H
#include <mpi.h>
#include <stdio.h>

static int passed = 0, failed = 0, rank = 0;

static void check(int ok, const char* what) {
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (all) ++passed;
  else ++failed;
  if (rank == 0) printf("%s: %s\n", all ? "ok" : "FAILED", what);
}
#endif
