/* SPDX-License-Identifier: MIT */
/* dfft_write_npy / dfft_read_npy from C on 1-4 ranks: a pencil plan's input (real) and output
 * (complex, transposed with the realigned variant) written from known values, the file's bytes
 * checked by rank 0 against the values in C order, read back by the plan and by a slab plan of
 * the same shape; a file of the wrong side, a missing file and a bad side refused on every rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dfft/dfft.h"

#define N0 17
#define N1 12
#define N2 10

static int rank_, failures;

static void check(int ok, const char* what) {
  if (!ok) {
    ++failures;
    printf("rank %d: FAIL %s: %s\n", rank_, what, dfft_error_message());
  }
}

/* Value of global element (i, j, k), part 0 (real) or 1 (imaginary), of a side of m2 last-axis entries. */
static double value(long i, long j, long k, int part, long m2) {
  const double lin = (double)((i * N1 + j) * m2 + k);
  return part == 0 ? lin + 0.5 : -lin;
}

/* Fills (or, with `compare`, counts the wrong elements of) this rank's array of a plan side. */
static long visit(dfft_plan p, int side, double* buf, int parts, int compare) {
  int64_t lo[3], hi[3], st[3], shape[3] = {N0, N1, N2};
  if (side == DFFT_OUTPUT) dfft_plan_spectral_shape(p, shape);
  if (side == DFFT_INPUT) dfft_plan_input_box(p, lo, hi, NULL, st);
  else dfft_plan_output_box(p, lo, hi, NULL, st);
  long wrong = 0;
  for (long i = lo[0]; i < hi[0]; ++i)
    for (long j = lo[1]; j < hi[1]; ++j)
      for (long k = lo[2]; k < hi[2]; ++k) {
        const long o = (long)((i - lo[0]) * st[0] + (j - lo[1]) * st[1] + (k - lo[2]) * st[2]) * parts;
        for (int q = 0; q < parts; ++q) {
          const double v = value(i, j, k, q, (long)shape[2]);
          if (compare) wrong += buf[o + q] != v;
          else buf[o + q] = v;
        }
      }
  return wrong;
}

/* Rank 0: the file's data (after its header) must be the values in C order. */
static int file_ok(const char* path, int parts, long m2) {
  int ok = 1;
  if (rank_ == 0) {
    FILE* f = fopen(path, "rb");
    ok = f != NULL;
    unsigned char head[10];
    if (ok) ok = fread(head, 1, 10, f) == 10 && memcmp(head, "\x93NUMPY", 6) == 0;
    if (ok) ok = fseek(f, 10 + head[8] + 256 * head[9], SEEK_SET) == 0;
    for (long i = 0; ok && i < N0; ++i)
      for (long j = 0; ok && j < N1; ++j)
        for (long k = 0; ok && k < m2; ++k)
          for (int q = 0; ok && q < parts; ++q) {
            double v;
            ok = fread(&v, sizeof v, 1, f) == 1 && v == value(i, j, k, q, m2);
          }
    if (ok) ok = fgetc(f) == EOF;
    if (f) fclose(f);
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok;
}

static long all_wrong(long w) {
  long t = 0;
  MPI_Allreduce(&w, &t, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  return t;
}

static dfft_plan make(int decomposition, int variant) {
  dfft_options o;
  dfft_options_init(&o);
  o.decomposition = decomposition;
  o.variant = variant;
  o.effort = DFFT_ESTIMATE;
  o.fftw_wisdom = 0;
  const int64_t shape[3] = {N0, N1, N2};
  dfft_plan p = NULL;
  if (dfft_plan_create(MPI_COMM_WORLD, 3, shape, DFFT_DOUBLE, &o, &p) != DFFT_SUCCESS) {
    printf("rank %d: FAIL plan: %s\n", rank_, dfft_error_message());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return p;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  long pid = (long)getpid();
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  char in_path[256], out_path[256], missing[256];
  snprintf(in_path, sizeof in_path, "/tmp/dfft-capi-io-%ld-in.npy", pid);
  snprintf(out_path, sizeof out_path, "/tmp/dfft-capi-io-%ld-out.npy", pid);
  snprintf(missing, sizeof missing, "/tmp/dfft-capi-io-%ld-missing.npy", pid);
  dfft_plan pencil = make(DFFT_PENCIL, DFFT_REALIGNED), slab = make(DFFT_SLAB_2D1D, DFFT_DEFAULT);
  const long nin = (long)dfft_plan_input_count(pencil), nout = (long)dfft_plan_output_count(pencil);
  double* in = calloc((size_t)nin + 1, sizeof(double));
  double* out = calloc(2 * (size_t)nout + 2, sizeof(double));
  visit(pencil, DFFT_INPUT, in, 1, 0);
  visit(pencil, DFFT_OUTPUT, out, 2, 0);
  check(dfft_write_npy(pencil, DFFT_INPUT, in_path, in) == DFFT_SUCCESS, "write input");
  check(dfft_write_npy(pencil, DFFT_OUTPUT, out_path, out) == DFFT_SUCCESS, "write output");
  check(file_ok(in_path, 1, N2), "input file holds the values in C order");
  check(file_ok(out_path, 2, N2 / 2 + 1), "output file holds the values in C order");
  memset(out, 0, (2 * (size_t)nout + 2) * sizeof(double));
  check(dfft_read_npy(pencil, DFFT_OUTPUT, out_path, out) == DFFT_SUCCESS, "read output");
  check(all_wrong(visit(pencil, DFFT_OUTPUT, out, 2, 1)) == 0, "output read back");
  /* Another plan, another layout: the slab plan reads both files. */
  double* sin_ = calloc((size_t)dfft_plan_input_count(slab) + 1, sizeof(double));
  double* sout = calloc(2 * (size_t)dfft_plan_output_count(slab) + 2, sizeof(double));
  check(dfft_read_npy(slab, DFFT_INPUT, in_path, sin_) == DFFT_SUCCESS, "slab reads input");
  check(dfft_read_npy(slab, DFFT_OUTPUT, out_path, sout) == DFFT_SUCCESS, "slab reads output");
  check(all_wrong(visit(slab, DFFT_INPUT, sin_, 1, 1) + visit(slab, DFFT_OUTPUT, sout, 2, 1)) == 0,
        "slab plan reads the pencil plan's files");
  /* Refusals, the same status on every rank. */
  check(dfft_read_npy(slab, DFFT_INPUT, out_path, sin_) == DFFT_ERROR_INVALID_ARGUMENT &&
            strstr(dfft_error_message(), "expected float64 of shape (17, 12, 10)") != NULL,
        "the output file read as input");
  check(dfft_read_npy(slab, DFFT_INPUT, missing, sin_) == DFFT_ERROR_MPI &&
            strstr(dfft_error_message(), "MPI_File_open") != NULL,
        "a missing file");
  check(dfft_write_npy(slab, rank_ == 0 ? 7 : DFFT_INPUT, in_path, sin_) == DFFT_ERROR_INVALID_ARGUMENT,
        "a bad side on rank 0");
  check(dfft_write_npy(NULL, DFFT_INPUT, in_path, sin_) == DFFT_ERROR_INVALID_ARGUMENT, "a NULL plan");
  if (rank_ == 0) {
    remove(in_path);
    remove(out_path);
  }
  free(in), free(out), free(sin_), free(sout);
  dfft_plan_destroy(&pencil);
  dfft_plan_destroy(&slab);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank_ == 0) printf("capi_io: %s (%d failure(s))\n", total ? "FAILED" : "PASSED", total);
  MPI_Finalize();
  return total ? 1 : 0;
}
