/* SPDX-License-Identifier: MIT */
/* The halo exchange through the C interface (dfft_halo_*), compiled as C11: on the slab and
 * pencil input layouts of 17x12x10 plans (dfft_halo_create_plan) and on one box per rank cut
 * along axis 1 (dfft_halo_create), double and float, real and complex, widths 1 and 2, periodic
 * and not, faces and corners. Every cell of the halo'd array is compared with numpy.pad's
 * "wrap" of the global array, written here from the global index; cells past a non-periodic
 * end, and the edges and corners of a faces-only halo, must keep the fill. Also: a too small
 * array refused on every rank with nothing written, bad arguments refused. Prints one line per
 * failure and exits non-zero on any. Run on 1-4 ranks. */
#include <dfft/dfft.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int64_t N[3] = {17, 12, 10};
static const double FILL = -7.5;
static int rank_, size_, failures;

static void failed(const char* what) {
  ++failures;
  printf("rank %d: FAILED %s (%s)\n", rank_, what, dfft_error_message());
}

static double value(const int64_t* g) { return (double)(g[0] * 1000 + g[1] * 37 + g[2]) + 0.25; }

/* Reference for grown-array cell g of a rank whose box is [lo, hi). */
static double reference(const int64_t* g, const int64_t* lo, const int64_t* hi, const int* periodic, int corners) {
  int64_t w[3];
  int outside = 0;
  for (int a = 0; a < 3; ++a) {
    outside += g[a] < lo[a] || g[a] >= hi[a];
    if (!periodic[a] && (g[a] < 0 || g[a] >= N[a])) return FILL;
    w[a] = ((g[a] % N[a]) + N[a]) % N[a];
  }
  if (outside > 1 && !corners) return FILL;
  return value(w);
}

/* Fills, exchanges, compares; `cplx` arrays hold (v, -v) pairs, `single` floats. */
static void check(dfft_halo h, const int64_t* lo, const int64_t* hi, const int* periodic, int corners,
                  int single, int cplx, const char* what) {
  int64_t glo[3], ghi[3], st[3];
  if (dfft_halo_box(h, glo, ghi, st) != DFFT_SUCCESS) failed("dfft_halo_box");
  const int64_t n = dfft_halo_count(h);
  const int per = cplx ? 2 : 1;
  const size_t esz = single ? sizeof(float) : sizeof(double);
  char* buf = malloc((size_t)(n > 0 ? n : 1) * per * esz);
  int empty = 0;
  for (int a = 0; a < 3; ++a) empty |= hi[a] <= lo[a];
  for (int64_t c = 0; c < n * per; ++c)
    if (single) ((float*)buf)[c] = (float)FILL; else ((double*)buf)[c] = FILL;
  int64_t g[3];
  if (!empty)
    for (g[0] = lo[0]; g[0] < hi[0]; ++g[0])
      for (g[1] = lo[1]; g[1] < hi[1]; ++g[1])
        for (g[2] = lo[2]; g[2] < hi[2]; ++g[2]) {
          const int64_t off = ((g[0] - glo[0]) * st[0] + (g[1] - glo[1]) * st[1] + (g[2] - glo[2]) * st[2]) * per;
          for (int k = 0; k < per; ++k) {
            const double v = k ? -value(g) : value(g);
            if (single) ((float*)buf)[off + k] = (float)v; else ((double*)buf)[off + k] = v;
          }
        }
  if (dfft_halo_exchange(h, buf, n) != DFFT_SUCCESS) failed(what);
  long bad = 0;
  if (!empty)
    for (g[0] = glo[0]; g[0] < ghi[0]; ++g[0])
      for (g[1] = glo[1]; g[1] < ghi[1]; ++g[1])
        for (g[2] = glo[2]; g[2] < ghi[2]; ++g[2]) {
          const int64_t off = ((g[0] - glo[0]) * st[0] + (g[1] - glo[1]) * st[1] + (g[2] - glo[2]) * st[2]) * per;
          const double r = reference(g, lo, hi, periodic, corners);
          for (int k = 0; k < per; ++k) {
            const double want = k && r != FILL ? -r : r;
            const double got = single ? ((float*)buf)[off + k] : ((double*)buf)[off + k];
            if (got != (single ? (double)(float)want : want)) ++bad;
          }
        }
  if (bad) {
    char m[256];
    snprintf(m, sizeof m, "%s: %ld values differ from the wrap padding", what, bad);
    failed(m);
  }
  free(buf);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  const int periodic_sets[3][3] = {{1, 1, 1}, {0, 0, 0}, {1, 0, 1}};
  const int64_t widths[2][3] = {{1, 1, 1}, {2, 1, 2}};
  char what[160];

  /* Plans' input layouts (slab and pencil), double and float, real and complex. */
  for (int dec = 0; dec < 2; ++dec)
    for (int prec = 0; prec < 2; ++prec) {
      dfft_options opt;
      dfft_options_init(&opt);
      opt.decomposition = dec ? DFFT_PENCIL : DFFT_SLAB_2D1D;
      opt.transform = DFFT_C2C;
      opt.effort = DFFT_ESTIMATE;
      opt.fftw_wisdom = 0;
      dfft_plan plan;
      if (dfft_plan_create(MPI_COMM_WORLD, 3, N, prec ? DFFT_FLOAT : DFFT_DOUBLE, &opt, &plan) != DFFT_SUCCESS) {
        failed("dfft_plan_create");
        continue;
      }
      int64_t lo[3], hi[3];
      dfft_plan_input_box(plan, lo, hi, NULL, NULL);
      for (int p = 0; p < 3; ++p)
        for (int w = 0; w < 2; ++w)
          for (int corners = 0; corners < 2; ++corners)
            for (int cplx = 0; cplx < 2; ++cplx) {
              dfft_halo h;
              snprintf(what, sizeof what, "%s %s %s periodic %d%d%d width %d corners %d",
                       dec ? "pencil" : "slab", prec ? "float" : "double", cplx ? "complex" : "real",
                       periodic_sets[p][0], periodic_sets[p][1], periodic_sets[p][2], w + 1, corners);
              if (dfft_halo_create_plan(plan, DFFT_INPUT, widths[w], NULL, periodic_sets[p], corners, cplx, &h) !=
                  DFFT_SUCCESS) {
                failed(what);
                continue;
              }
              check(h, lo, hi, periodic_sets[p], corners, prec, cplx, what);
              dfft_halo_destroy(&h);
              if (h) failed("dfft_halo_destroy left the handle");
            }
      dfft_plan_destroy(&plan);
    }

  /* Boxes cut along axis 1, memory order (2, 0, 1); lopsided widths. */
  int64_t lo[3] = {0, 0, 0}, hi[3] = {N[0], 0, N[2]};
  lo[1] = N[1] * rank_ / size_;
  hi[1] = N[1] * (rank_ + 1) / size_;
  const int order[3] = {2, 0, 1};
  const int64_t wlo[3] = {2, 1, 1}, whi[3] = {1, 2, 2};
  for (int corners = 0; corners < 2; ++corners) {
    dfft_halo h;
    if (dfft_halo_create(MPI_COMM_WORLD, 3, lo, hi, order, wlo, whi, periodic_sets[2], corners, DFFT_DOUBLE, 0, &h) !=
        DFFT_SUCCESS) {
      failed("dfft_halo_create");
      continue;
    }
    check(h, lo, hi, periodic_sets[2], corners, 0, 0, corners ? "boxes, corners" : "boxes, faces");

    /* Too small on the last rank: refused everywhere, nothing written. */
    if (corners) {
      const int64_t n = dfft_halo_count(h);
      double* u = malloc((size_t)n * sizeof(double));
      for (int64_t c = 0; c < n; ++c) u[c] = 1.0;
      const int st = dfft_halo_exchange(h, u, rank_ == size_ - 1 ? n - 1 : n);
      if (st != DFFT_ERROR_INVALID_ARGUMENT) failed("a too small array was not refused on every rank");
      if (rank_ == size_ - 1 && !strstr(dfft_error_message(), "elements but its box with the halo needs"))
        failed("the refusal does not say how many elements are needed");
      for (int64_t c = 0; c < n; ++c)
        if (u[c] != 1.0) {
          failed("a refused exchange wrote into the array");
          break;
        }
      free(u);
    }
    dfft_halo_destroy(&h);
  }
  /* Bad arguments. */
  dfft_halo h;
  const int64_t neg[3] = {1, -1, 1};
  if (dfft_halo_create(MPI_COMM_WORLD, 3, lo, hi, NULL, neg, NULL, NULL, 1, DFFT_DOUBLE, 0, &h) !=
          DFFT_ERROR_INVALID_ARGUMENT || h)
    failed("a negative width was not refused");
  if (dfft_halo_create(MPI_COMM_WORLD, 3, lo, hi, NULL, NULL, NULL, NULL, 1, DFFT_DOUBLE, 0, &h) !=
      DFFT_ERROR_INVALID_ARGUMENT)
    failed("width_lo NULL was not refused");
  if (dfft_halo_create(MPI_COMM_WORLD, 3, lo, hi, NULL, wlo, NULL, NULL, 1, DFFT_DOUBLE, 2, &h) !=
      DFFT_ERROR_INVALID_ARGUMENT)
    failed("complex_values = 2 was not refused");
  if (dfft_halo_exchange(NULL, NULL, 0) != DFFT_ERROR_INVALID_ARGUMENT) failed("a NULL halo was not refused");
  if (dfft_halo_destroy(NULL) != DFFT_SUCCESS) failed("dfft_halo_destroy(NULL)");

  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank_ == 0) printf("capi halo: %d failure(s) on %d rank(s)\n", all, size_);
  MPI_Finalize();
  return all ? 1 : 0;
}
