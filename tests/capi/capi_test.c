/* SPDX-License-Identifier: MIT */
/* The C interface (include/dfft/dfft.h), compiled as C11: every decomposition x variant x
 * method x precision x transform (r2c, c2c) on 17x12x10 through dfft_plan_create, checked
 * against a separable naive DFT written here (no FFTW, no dfft) and by the round trip; user
 * boxes with another memory order (dfft_plan_create_boxes); arrays with a halo; batches; options refused with
 * DFFT_ERROR_INPUT and a message; each other status provoked; and a negative control showing that the check detects one
 * corrupted value. Run on 1-4 ranks (tests/capi/CMakeLists.txt). Prints one line per failure
 * and exits non-zero on any. */
#include <dfft/dfft.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault_hooks.h"

#define N0 17
#define N1 12
#define N2 10
#define NTOT (N0 * N1 * N2)
#define PI 3.14159265358979323846

static int rank_, size_, failures;
static int backend_ = DFFT_CPU; /* DFFT_CAPI_BACKEND=cuda: device memory */
static double ref_c2c[NTOT][2], ref_r2c[NTOT][2]; /* full DFTs of the two inputs, natural order */

/* Inputs as functions of the global index (the same on every rank). */
static double input_re(long i, long j, long k) { return sin(0.7 * i + 0.3 * j * j) + 0.25 * cos(1.3 * k + 0.1 * i * j); }
static double input_im(long i, long j, long k) { return cos(0.2 * i * k) - 0.5 * sin(0.9 * j + 0.4 * k); }

/* Naive separable DFT, forward sign (exp(-2 pi i jk/n)), in place on a natural-order array. */
static void dft_axis(double (*a)[2], int axis) {
  const int n[3] = {N0, N1, N2};
  const long stride[3] = {N1 * N2, N2, 1};
  double tmp[32][2];
  for (long base = 0; base < NTOT; ++base) {
    long idx[3] = {base / (N1 * N2), (base / N2) % N1, base % N2};
    if (idx[axis] != 0) continue;
    for (int f = 0; f < n[axis]; ++f) {
      double re = 0, im = 0;
      for (int x = 0; x < n[axis]; ++x) {
        const double ang = -2 * PI * (double)((long)f * x % n[axis]) / n[axis];
        const double* v = a[base + x * stride[axis]];
        re += v[0] * cos(ang) - v[1] * sin(ang);
        im += v[0] * sin(ang) + v[1] * cos(ang);
      }
      tmp[f][0] = re;
      tmp[f][1] = im;
    }
    for (int f = 0; f < n[axis]; ++f) {
      a[base + f * stride[axis]][0] = tmp[f][0];
      a[base + f * stride[axis]][1] = tmp[f][1];
    }
  }
}

static void make_references(void) {
  for (long i = 0; i < N0; ++i)
    for (long j = 0; j < N1; ++j)
      for (long k = 0; k < N2; ++k) {
        const long o = (i * N1 + j) * N2 + k;
        ref_c2c[o][0] = input_re(i, j, k);
        ref_c2c[o][1] = input_im(i, j, k);
        ref_r2c[o][0] = input_re(i, j, k);
        ref_r2c[o][1] = 0;
      }
  for (int a = 0; a < 3; ++a) {
    dft_axis(ref_c2c, a);
    dft_axis(ref_r2c, a);
  }
}

static void check(int ok, const char* what, const char* cfg) {
  if (!ok) {
    ++failures;
    printf("rank %d: FAIL %s [%s]: %s\n", rank_, what, cfg, dfft_error_message());
  }
}

/* Memory of the plan's backend (device memory with CUDA). A failure aborts the run: returning
 * on one rank would leave the others waiting in the next collective. */
static void* backend_alloc(dfft_plan p, size_t bytes) {
  void* d = NULL;
  if (dfft_plan_allocate(p, bytes, &d) != DFFT_SUCCESS || d == NULL) {
    printf("rank %d: FAIL dfft_plan_allocate(%zu): %s\n", rank_, bytes, dfft_error_message());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return d;
}

/* Host arrays (in, out) and their twins in the backend's memory (din, dout). The host input is
 * filled by the caller; forward() uploads it, runs the plan (batch arrays) and downloads the
 * output; inverse() runs back into din and downloads it into in. */
typedef struct {
  void *in, *out, *din, *dout;
  size_t in_bytes, out_bytes;
} Buffers;

static Buffers buffers(dfft_plan p, size_t in_bytes, size_t out_bytes) {
  Buffers b = {calloc(in_bytes + 16, 1), calloc(out_bytes + 16, 1), backend_alloc(p, in_bytes + 16),
               backend_alloc(p, out_bytes + 16), in_bytes, out_bytes};
  return b;
}

static void forward(dfft_plan p, const Buffers* b, int batch, const char* cfg) {
  check(dfft_plan_upload(p, b->din, b->in, b->in_bytes) == DFFT_SUCCESS, "upload", cfg);
  check((batch == 1 ? dfft_forward(p, b->din, b->dout) : dfft_forward_batch(p, batch, b->din, b->dout)) ==
            DFFT_SUCCESS,
        "forward", cfg);
  check(dfft_plan_download(p, b->out, b->dout, b->out_bytes) == DFFT_SUCCESS, "download", cfg);
}

static void inverse(dfft_plan p, const Buffers* b, const char* cfg) {
  memset(b->in, 0, b->in_bytes);
  check(dfft_inverse(p, b->dout, b->din) == DFFT_SUCCESS, "inverse", cfg);
  check(dfft_plan_download(p, b->in, b->din, b->in_bytes) == DFFT_SUCCESS, "download", cfg);
}

static void release(dfft_plan p, Buffers* b, const char* cfg) {
  check(dfft_plan_deallocate(p, b->din) == DFFT_SUCCESS && dfft_plan_deallocate(p, b->dout) == DFFT_SUCCESS,
        "deallocate", cfg);
  free(b->in);
  free(b->out);
}

/* Element (in units of reals) offset of global index g in a box with strides. */
static long offset(const int64_t* lo, const int64_t* st, const long* g) {
  return (long)((g[0] - lo[0]) * st[0] + (g[1] - lo[1]) * st[1] + (g[2] - lo[2]) * st[2]);
}

/* Fill this rank's input box. */
static void fill_input(dfft_plan p, int is_double, int complex_in, void* buf, double scale) {
  int64_t lo[3], hi[3], st[3];
  dfft_plan_input_box(p, lo, hi, NULL, st);
  for (long i = lo[0]; i < hi[0]; ++i)
    for (long j = lo[1]; j < hi[1]; ++j)
      for (long k = lo[2]; k < hi[2]; ++k) {
        const long g[3] = {i, j, k};
        const long o = offset(lo, st, g) * (complex_in ? 2 : 1);
        const double re = scale * input_re(i, j, k), im = scale * input_im(i, j, k);
        if (is_double) {
          ((double*)buf)[o] = re;
          if (complex_in) ((double*)buf)[o + 1] = im;
        } else {
          ((float*)buf)[o] = (float)re;
          if (complex_in) ((float*)buf)[o + 1] = (float)im;
        }
      }
}

/* Relative L2 error of this plan's output against the reference, over all ranks. */
static double output_error(dfft_plan p, MPI_Comm comm, int is_double, int r2c, const void* buf, double scale) {
  int64_t lo[3], hi[3], st[3];
  dfft_plan_output_box(p, lo, hi, NULL, st);
  double sums[2] = {0, 0}, tot[2];
  for (long i = lo[0]; i < hi[0]; ++i)
    for (long j = lo[1]; j < hi[1]; ++j)
      for (long k = lo[2]; k < hi[2]; ++k) {
        const long g[3] = {i, j, k};
        const long o = 2 * offset(lo, st, g);
        const double* r = (r2c ? ref_r2c : ref_c2c)[(i * N1 + j) * N2 + k];
        const double re = is_double ? ((const double*)buf)[o] : ((const float*)buf)[o];
        const double im = is_double ? ((const double*)buf)[o + 1] : ((const float*)buf)[o + 1];
        sums[0] += (re - scale * r[0]) * (re - scale * r[0]) + (im - scale * r[1]) * (im - scale * r[1]);
        sums[1] += scale * scale * (r[0] * r[0] + r[1] * r[1]);
      }
  MPI_Allreduce(sums, tot, 2, MPI_DOUBLE, MPI_SUM, comm);
  return sqrt(tot[0] / tot[1]);
}

/* Round trip: inverse(forward(x)) against x (the default norm scales the inverse by 1/N). */
static double roundtrip_error(dfft_plan p, MPI_Comm comm, int is_double, int complex_in, const void* buf) {
  int64_t lo[3], hi[3], st[3];
  dfft_plan_input_box(p, lo, hi, NULL, st);
  double sums[2] = {0, 0}, tot[2];
  for (long i = lo[0]; i < hi[0]; ++i)
    for (long j = lo[1]; j < hi[1]; ++j)
      for (long k = lo[2]; k < hi[2]; ++k) {
        const long g[3] = {i, j, k};
        const long o = offset(lo, st, g) * (complex_in ? 2 : 1);
        for (int c = 0; c < (complex_in ? 2 : 1); ++c) {
          const double want = c ? input_im(i, j, k) : input_re(i, j, k);
          const double got = (is_double ? ((const double*)buf)[o + c] : ((const float*)buf)[o + c]);
          sums[0] += (got - want) * (got - want);
          sums[1] += want * want;
        }
      }
  MPI_Allreduce(sums, tot, 2, MPI_DOUBLE, MPI_SUM, comm);
  return sqrt(tot[0] / tot[1]);
}

static void sweep(MPI_Comm comm) {
  static const char* dnames[] = {"slab-2d1d", "slab-1d2d", "pencil"};
  static const char* mnames[] = {"a2a-sync", "a2a-type", "p2p-sync", "p2p-type", "x", "x", "onesided", "p2p-pipelined"};
  static const int methods[] = {DFFT_A2A_SYNC, DFFT_A2A_TYPE, DFFT_P2P_SYNC, DFFT_P2P_TYPE, DFFT_ONESIDED,
                                DFFT_P2P_PIPELINED};
  const int64_t shape[3] = {N0, N1, N2};
  int plans = 0;
  for (int d = 0; d < 3; ++d)
    for (int v = 0; v < 2; ++v)
      for (int m = 0; m < 6; ++m)
        for (int prec = 0; prec < 2; ++prec)
          for (int tr = 0; tr < 2; ++tr) {
            const int is_double = prec == DFFT_DOUBLE, r2c = tr == 0;
            char cfg[160];
            snprintf(cfg, sizeof cfg, "%s %s %s %s %s", dnames[d], v ? "realigned" : "default",
                     mnames[methods[m]], is_double ? "double" : "float", r2c ? "r2c" : "c2c");
            dfft_options opt;
            dfft_options_init(&opt);
            opt.backend = backend_;
            opt.decomposition = d;
            opt.variant = v;
            opt.methods[0] = methods[m];
            opt.n_methods = 1;
            opt.transform = r2c ? DFFT_R2C : DFFT_C2C;
            dfft_plan p = NULL;
            if (dfft_plan_create(comm, 3, shape, prec, &opt, &p) != DFFT_SUCCESS) {
              check(0, "dfft_plan_create", cfg);
              continue;
            }
            ++plans;
            int grid[DFFT_MAX_DIMS - 1], ranks = 1;
            const int gd = dfft_plan_grid(p, grid);
            for (int g = 0; g < gd; ++g) ranks *= grid[g];
            check(gd == (d == 2 ? 2 : 1) && ranks == size_ && dfft_plan_ndims(p) == 3, "grid and ndims", cfg);
            int64_t spec[3];
            dfft_plan_spectral_shape(p, spec);
            check(spec[0] == N0 && spec[1] == N1 && spec[2] == (r2c ? N2 / 2 + 1 : N2), "spectral shape", cfg);
            const size_t real = is_double ? sizeof(double) : sizeof(float);
            const size_t in_bytes = (size_t)dfft_plan_input_count(p) * real * (r2c ? 1 : 2);
            const size_t out_bytes = (size_t)dfft_plan_output_count(p) * real * 2;
            Buffers b = buffers(p, in_bytes, out_bytes);
            fill_input(p, is_double, !r2c, b.in, 1.0);
            forward(p, &b, 1, cfg);
            const double tol = is_double ? 1e-12 : 1e-5;
            const double e = output_error(p, comm, is_double, r2c, b.out, 1.0);
            if (!(e <= tol)) {
              ++failures;
              printf("rank %d: FAIL forward error %.3g > %.1g [%s]\n", rank_, e, tol, cfg);
            }
            inverse(p, &b, cfg);
            const double rt = roundtrip_error(p, comm, is_double, !r2c, b.in);
            if (!(rt <= tol)) {
              ++failures;
              printf("rank %d: FAIL round trip %.3g > %.1g [%s]\n", rank_, rt, tol, cfg);
            }
            release(p, &b, cfg);
            dfft_timings t;
            check(dfft_plan_timings(p, &t) == DFFT_SUCCESS && t.fft > 0 && t.total >= t.fft && t.total < 60,
                  "timings (seconds, positive)", cfg);
            check(dfft_plan_destroy(&p) == DFFT_SUCCESS && p == NULL, "destroy", cfg);
          }
  if (rank_ == 0) printf("capi: %d plans through the C interface\n", plans);
  check(plans == 3 * 2 * 6 * 2 * 2, "every configuration planned", "sweep");
}

/* Input split along the fastest axis, output along the slowest with memory order {2, 1, 0}. */
static void boxes(MPI_Comm comm, int size) {
  const int64_t shape[3] = {N0, N1, N2};
  const int64_t in_lo[3] = {0, 0, (int64_t)N2 * rank_ / size}, in_hi[3] = {N0, N1, (int64_t)N2 * (rank_ + 1) / size};
  const int64_t out_lo[3] = {(int64_t)N0 * rank_ / size, 0, 0}, out_hi[3] = {(int64_t)N0 * (rank_ + 1) / size, N1, N2 / 2 + 1};
  const int out_order[3] = {2, 1, 0};
  dfft_options opt;
  dfft_options_init(&opt);
  opt.backend = backend_;
  opt.decomposition = DFFT_PENCIL;
  dfft_plan p = NULL;
  if (dfft_plan_create_boxes(comm, 3, shape, DFFT_DOUBLE, in_lo, in_hi, NULL, out_lo, out_hi, out_order, &opt, &p) !=
      DFFT_SUCCESS) {
    check(0, "dfft_plan_create_boxes", "boxes");
    return;
  }
  int64_t lo[3], hi[3], st[3];
  int order[3];
  dfft_plan_output_box(p, lo, hi, order, st);
  check(lo[0] == out_lo[0] && hi[0] == out_hi[0] && order[0] == 2 && order[2] == 0 && st[0] == 1,
        "output box, order and strides as given", "boxes");
  const size_t in_bytes = sizeof(double) * (size_t)dfft_plan_input_count(p);
  const size_t out_bytes = 2 * sizeof(double) * (size_t)dfft_plan_output_count(p);
  Buffers b = buffers(p, in_bytes, out_bytes);
  double* out = b.out;
  fill_input(p, 1, 0, b.in, 1.0);
  forward(p, &b, 1, "boxes");
  const double e = output_error(p, comm, 1, 1, out, 1.0);
  if (!(e <= 1e-12)) {
    ++failures;
    printf("rank %d: FAIL boxes forward error %.3g\n", rank_, e);
  }
  /* Negative control: one corrupted value must be seen by the same check. */
  if (dfft_plan_output_count(p) > 0) out[0] += 1e-3;
  const double bad = output_error(p, comm, 1, 1, out, 1.0);
  check(bad > 1e-9, "a corrupted value is detected", "boxes");
  release(p, &b, "boxes");
  dfft_plan_destroy(&p);
}

/* Input and output arrays with a halo (options version 6): the reference results in the boxes,
 * which start dfft_plan_input_start / output_start elements in, and every halo cell untouched.
 * DFFT_CUDA refuses the option. A version-5 struct (without the widths) gives dense arrays. */
static long count_value(const double* a, long n, double v) {
  long c = 0;
  for (long i = 0; i < n; ++i) c += a[i] == v;
  return c;
}

static void halo_arrays(MPI_Comm comm) {
  const int64_t shape[3] = {N0, N1, N2};
  const int64_t ilo[3] = {1, 2, 0}, ihi[3] = {0, 1, 2}, olo[3] = {2, 0, 1}, ohi[3] = {1, 1, 0};
  const double sentinel = -12345.5;
  dfft_options opt;
  dfft_options_init(&opt);
  opt.backend = backend_;
  opt.decomposition = DFFT_PENCIL;
  opt.effort = DFFT_ESTIMATE;
  for (int a = 0; a < 3; ++a) {
    opt.input_halo_lo[a] = ilo[a];
    opt.input_halo_hi[a] = ihi[a];
    opt.output_halo_lo[a] = olo[a];
    opt.output_halo_hi[a] = ohi[a];
  }
  dfft_plan p = NULL;
  const int made = dfft_plan_create(comm, 3, shape, DFFT_DOUBLE, &opt, &p);
  if (backend_ == DFFT_CUDA) {
    check(made == DFFT_ERROR_UNSUPPORTED && p == NULL, "halo widths refused on DFFT_CUDA", "halo");
    return;
  }
  if (made != DFFT_SUCCESS) {
    check(0, "dfft_plan_create with halo widths", "halo");
    return;
  }
  int64_t lo[3], hi[3], ist[3], ost[3], olo_box[3], ohi_box[3];
  dfft_plan_input_box(p, lo, hi, NULL, ist);
  dfft_plan_output_box(p, olo_box, ohi_box, NULL, ost);
  long n_in = 1, n_out = 1, box_in = 1, box_out = 1;
  for (int a = 0; a < 3; ++a) {
    n_in *= (long)(hi[a] - lo[a] + ilo[a] + ihi[a]);
    n_out *= (long)(ohi_box[a] - olo_box[a] + olo[a] + ohi[a]);
    box_in *= (long)(hi[a] - lo[a]);
    box_out *= (long)(ohi_box[a] - olo_box[a]);
  }
  if (box_in == 0) n_in = 0;
  if (box_out == 0) n_out = 0;
  const long in_start = box_in ? (long)(ilo[0] * ist[0] + ilo[1] * ist[1] + ilo[2] * ist[2]) : 0;
  const long out_start = box_out ? (long)(olo[0] * ost[0] + olo[1] * ost[1] + olo[2] * ost[2]) : 0;
  check(dfft_plan_input_count(p) == n_in && dfft_plan_output_count(p) == n_out,
        "counts include the halos", "halo");
  check(dfft_plan_input_start(p) == in_start && dfft_plan_output_start(p) == out_start,
        "the boxes start after the lower halos", "halo");
  double* in = malloc(sizeof(double) * (size_t)(n_in + 1));
  double* out = malloc(2 * sizeof(double) * (size_t)(n_out + 1));
  for (long i = 0; i < n_in; ++i) in[i] = sentinel;
  for (long i = 0; i < 2 * n_out; ++i) out[i] = sentinel;
  fill_input(p, 1, 0, in + in_start, 1.0);
  check(dfft_forward(p, in, out) == DFFT_SUCCESS, "forward", "halo");
  const double e = output_error(p, comm, 1, 1, out + 2 * out_start, 1.0);
  check(e <= 1e-12, "forward into the halo'd output matches the reference", "halo");
  check(count_value(out, 2 * n_out, sentinel) == 2 * (n_out - box_out), "forward left the output halo alone", "halo");
  for (long i = 0; i < n_in; ++i) in[i] = sentinel;
  check(dfft_inverse(p, out, in) == DFFT_SUCCESS, "inverse", "halo");
  check(roundtrip_error(p, comm, 1, 0, in + in_start) <= 1e-12, "inverse into the halo'd input: round trip", "halo");
  check(count_value(in, n_in, sentinel) == n_in - box_in, "inverse left the input halo alone", "halo");
  free(in);
  free(out);
  dfft_plan_destroy(&p);
  /* A version-5 struct ends before the widths: whatever lies past its end is not read. */
  opt.size = (int64_t)offsetof(dfft_options, input_halo_lo);
  opt.version = 5;
  check(dfft_plan_create(comm, 3, shape, DFFT_DOUBLE, &opt, &p) == DFFT_SUCCESS && dfft_plan_input_count(p) == box_in &&
            dfft_plan_input_start(p) == 0,
        "a version-5 options struct gives dense arrays", "halo");
  dfft_plan_destroy(&p);
  /* A negative width is refused, naming the axis. */
  dfft_options_init(&opt);
  opt.input_halo_lo[1] = -1;
  check(dfft_plan_create(comm, 3, shape, DFFT_DOUBLE, &opt, &p) == DFFT_ERROR_INVALID_ARGUMENT && p == NULL &&
            strstr(dfft_error_message(), "axis 1") != NULL,
        "a negative halo width refused", "halo");
}

/* Two arrays in one call: the second is twice the first. */
static void batch(MPI_Comm comm) {
  const int64_t shape[3] = {N0, N1, N2};
  dfft_options opt;
  dfft_options_init(&opt);
  opt.backend = backend_;
  opt.decomposition = DFFT_PENCIL;
  opt.methods[0] = DFFT_P2P_SYNC;
  opt.n_methods = 1;
  dfft_plan p = NULL;
  if (dfft_plan_create(comm, 3, shape, DFFT_DOUBLE, &opt, &p) != DFFT_SUCCESS) {
    check(0, "dfft_plan_create", "batch");
    return;
  }
  const size_t ni = (size_t)dfft_plan_input_count(p), no = 2 * (size_t)dfft_plan_output_count(p);
  Buffers b = buffers(p, 2 * ni * sizeof(double), 2 * no * sizeof(double));
  double* in = b.in;
  double* out = b.out;
  fill_input(p, 1, 0, in, 1.0);
  fill_input(p, 1, 0, in + ni, 2.0);
  check(dfft_forward_batch(p, 2, b.din, b.dout) == DFFT_ERROR_INVALID_ARGUMENT &&
            strstr(dfft_error_message(), "prepare_batch") != NULL,
        "an unprepared batch size refused", "batch");
  check(dfft_plan_prepare_batch(p, 2) == DFFT_SUCCESS, "dfft_plan_prepare_batch", "batch");
  forward(p, &b, 2, "batch");
  const double e1 = output_error(p, comm, 1, 1, out, 1.0), e2 = output_error(p, comm, 1, 1, out + no, 2.0);
  if (!(e1 <= 1e-12 && e2 <= 1e-12)) {
    ++failures;
    printf("rank %d: FAIL batch errors %.3g %.3g\n", rank_, e1, e2);
  }
  release(p, &b, "batch");
  dfft_plan_destroy(&p);
}

/* Real-to-real: DCT-II (FFTW's REDFT10, unnormalised: X_k = 2 sum_n x_n cos(pi k (2n+1) / 2N))
 * or DCT-IV (REDFT11: X_k = 2 sum_n x_n cos(pi (2k+1) (2n+1) / 4N)) on every axis against a naive
 * separable DCT, and the round trip (the default norm divides the inverse by 2N per axis). */
static void r2r(MPI_Comm comm, int kind) {
  static double ref[NTOT];
  const int n[3] = {N0, N1, N2};
  const long stride[3] = {N1 * N2, N2, 1};
  for (long o = 0; o < NTOT; ++o) ref[o] = input_re(o / (N1 * N2), (o / N2) % N1, o % N2);
  for (int a = 0; a < 3; ++a) {
    double tmp[32];
    for (long base = 0; base < NTOT; ++base) {
      const long idx[3] = {base / (N1 * N2), (base / N2) % N1, base % N2};
      if (idx[a] != 0) continue;
      for (int k = 0; k < n[a]; ++k) {
        double sum = 0;
        for (int x = 0; x < n[a]; ++x)
          sum += ref[base + x * stride[a]] *
                 (kind == DFFT_DCT4 ? cos(PI * (2 * k + 1) * (2 * x + 1) / (4.0 * n[a]))
                                    : cos(PI * k * (2 * x + 1) / (2.0 * n[a])));
        tmp[k] = 2 * sum;
      }
      for (int k = 0; k < n[a]; ++k) ref[base + k * stride[a]] = tmp[k];
    }
  }
  const int64_t shape[3] = {N0, N1, N2};
  dfft_options opt;
  dfft_options_init(&opt);
  opt.backend = backend_;
  opt.decomposition = DFFT_PENCIL;
  opt.transform = DFFT_R2R;
  opt.r2r[0] = opt.r2r[1] = opt.r2r[2] = kind;
  dfft_plan p = NULL;
  if (dfft_plan_create(comm, 3, shape, DFFT_DOUBLE, &opt, &p) != DFFT_SUCCESS) {
    check(0, "dfft_plan_create", "r2r");
    return;
  }
  const size_t in_bytes = sizeof(double) * (size_t)dfft_plan_input_count(p);
  const size_t out_bytes = sizeof(double) * (size_t)dfft_plan_output_count(p);
  Buffers b = buffers(p, in_bytes, out_bytes);
  double* in = b.in;
  const double* out = b.out;
  fill_input(p, 1, 0, in, 1.0);
  forward(p, &b, 1, "r2r");
  int64_t lo[3], hi[3], st[3];
  dfft_plan_output_box(p, lo, hi, NULL, st);
  double sums[4] = {0, 0, 0, 0}, tot[4];
  for (long i = lo[0]; i < hi[0]; ++i)
    for (long j = lo[1]; j < hi[1]; ++j)
      for (long k = lo[2]; k < hi[2]; ++k) {
        const long g[3] = {i, j, k};
        const double want = ref[(i * N1 + j) * N2 + k], got = out[offset(lo, st, g)];
        sums[0] += (got - want) * (got - want);
        sums[1] += want * want;
      }
  inverse(p, &b, "r2r");
  dfft_plan_input_box(p, lo, hi, NULL, st);
  for (long i = lo[0]; i < hi[0]; ++i)
    for (long j = lo[1]; j < hi[1]; ++j)
      for (long k = lo[2]; k < hi[2]; ++k) {
        const long g[3] = {i, j, k};
        const double want = input_re(i, j, k), got = in[offset(lo, st, g)];
        sums[2] += (got - want) * (got - want);
        sums[3] += want * want;
      }
  MPI_Allreduce(sums, tot, 4, MPI_DOUBLE, MPI_SUM, comm);
  const double e = sqrt(tot[0] / tot[1]), rt = sqrt(tot[2] / tot[3]);
  if (!(e <= 1e-12 && rt <= 1e-12)) {
    ++failures;
    printf("rank %d: FAIL r2r %s error %.3g, round trip %.3g\n", rank_,
           kind == DFFT_DCT4 ? "DCT-IV" : "DCT-II", e, rt);
  }
  release(p, &b, "r2r");
  dfft_plan_destroy(&p);
}

/* Refusals: a status, no plan, and a message naming the problem. */
static void refusals(MPI_Comm comm) {
  const int64_t shape[3] = {N0, N1, N2};
  dfft_options opt;
  dfft_plan p = (dfft_plan)&opt; /* must be reset to NULL */
  dfft_options_init(&opt);
  opt.methods[0] = 42;
  opt.n_methods = 1;
  check(dfft_plan_create(comm, 3, shape, DFFT_DOUBLE, &opt, &p) == DFFT_ERROR_INPUT && p == NULL &&
            strstr(dfft_error_message(), "methods") != NULL,
        "method 42 refused", "refusals");
  dfft_options_init(&opt);
  check(dfft_plan_create(comm, 1, shape, DFFT_DOUBLE, &opt, &p) == DFFT_ERROR_INPUT &&
            strstr(dfft_error_message(), "ndims") != NULL,
        "ndims 1 refused", "refusals");
  check(dfft_plan_create(comm, 3, shape, 7, &opt, &p) == DFFT_ERROR_INPUT &&
            strstr(dfft_error_message(), "precision") != NULL,
        "precision 7 refused", "refusals");
  opt.methods[0] = DFFT_A2A_TYPE;
  opt.n_methods = 1;
  opt.codec = DFFT_CODEC_FP32;
  check(dfft_plan_create(comm, 3, shape, DFFT_DOUBLE, &opt, &p) == DFFT_ERROR_UNSUPPORTED && p == NULL &&
            strlen(dfft_error_message()) > 0,
        "a codec with a datatype method refused by the library", "refusals");
  dfft_options_init(&opt);
  const int64_t zero[3] = {N0, 0, N2};
  check(dfft_plan_create(comm, 3, zero, DFFT_DOUBLE, &opt, &p) == DFFT_ERROR_INPUT, "a zero extent refused",
        "refusals");
  check(dfft_plan_create(comm, 3, shape, DFFT_DOUBLE, &opt, NULL) == DFFT_ERROR_INPUT, "NULL plan pointer",
        "refusals");
  opt.batch = 2;
  check(dfft_plan_create(comm, 3, shape, DFFT_DOUBLE, &opt, &p) == DFFT_ERROR_INPUT &&
            strstr(dfft_error_message(), "dfft_forward_batch") != NULL,
        "opt.batch != 1 refused", "refusals");
  dfft_options_init(&opt);
  opt.r2r[5] = DFFT_DCT2;
  check(dfft_plan_create(comm, 3, shape, DFFT_DOUBLE, &opt, &p) == DFFT_ERROR_INPUT, "r2r beyond ndims refused",
        "refusals");
  dfft_options_init(&opt);
  opt.tolerance = -1;
  check(dfft_plan_create(comm, 3, shape, DFFT_DOUBLE, &opt, &p) == DFFT_ERROR_INPUT, "negative tolerance refused",
        "refusals");
  check(dfft_plan_create(MPI_COMM_NULL, 3, shape, DFFT_DOUBLE, &opt, &p) == DFFT_ERROR_INPUT, "MPI_COMM_NULL refused",
        "refusals");
  /* Only the last rank passes a bad option: every rank gets a refusal, nobody waits in MPI. */
  dfft_options_init(&opt);
  if (rank_ == size_ - 1) opt.variant = 9;
  const int st = dfft_plan_create(comm, 3, shape, DFFT_DOUBLE, &opt, &p);
  check(st == DFFT_ERROR_INPUT && p == NULL &&
            strstr(dfft_error_message(), rank_ == size_ - 1 ? "variant" : "another rank") != NULL,
        "a refusal on one rank is a refusal on all", "refusals");
  dfft_options_init(&opt);
  check(dfft_forward(NULL, NULL, NULL) == DFFT_ERROR_INPUT, "forward on a NULL plan", "refusals");
  check(dfft_plan_destroy(NULL) == DFFT_SUCCESS, "destroy(NULL)", "refusals");
  /* After refusals a good plan still works and clears the message. */
  check(dfft_plan_create(comm, 3, shape, DFFT_DOUBLE, &opt, &p) == DFFT_SUCCESS && dfft_error_message()[0] == '\0',
        "a good plan after refusals", "refusals");
  char text[16];
  const size_t n = dfft_plan_describe(p, text, sizeof text);
  check(n > 0 && strlen(text) == (n < sizeof text ? n : sizeof text - 1), "describe truncates", "refusals");
  dfft_plan_destroy(&p);
}

/* Each status provoked for real (a failing MPI call and a failing FFTW planner injected by
 * fault_hooks.c), and the options struct's versioning. */
static void statuses(MPI_Comm comm) {
  const int64_t shape[3] = {N0, N1, N2};
  dfft_options opt;
  dfft_plan p = NULL;
  dfft_options_init(&opt);
  check(opt.size == (int64_t)sizeof opt && opt.version == DFFT_OPTIONS_VERSION, "init sets size and version",
        "statuses");
  opt.version = DFFT_OPTIONS_VERSION + 1;
  check(dfft_plan_create(comm, 3, shape, DFFT_DOUBLE, &opt, &p) == DFFT_ERROR_OPTIONS_VERSION && p == NULL &&
            strstr(dfft_error_message(), "version") != NULL,
        "unknown options version refused", "statuses");
  dfft_options_init(&opt);
  opt.size -= 8;
  check(dfft_plan_create(comm, 3, shape, DFFT_DOUBLE, &opt, &p) == DFFT_ERROR_OPTIONS_VERSION,
        "unknown options size refused", "statuses");
  /* A version-6 struct ends before destroy_input: what lies past its end is not read. */
  dfft_options_init(&opt);
  opt.size = (int64_t)offsetof(dfft_options, destroy_input);
  opt.version = 6;
  opt.destroy_input = 7;
  check(dfft_plan_create(comm, 3, shape, DFFT_DOUBLE, &opt, &p) == DFFT_SUCCESS, "a version-6 options struct read",
        "statuses");
  dfft_plan_destroy(&p);
  /* DFFT_NORM_NONE is the last norm: one past it is refused. */
  dfft_options_init(&opt);
  opt.norm = DFFT_NORM_NONE;
  opt.destroy_input = 1;
  check(dfft_plan_create(comm, 3, shape, DFFT_DOUBLE, &opt, &p) == DFFT_SUCCESS, "DFFT_NORM_NONE and destroy_input",
        "statuses");
  dfft_plan_destroy(&p);
  opt.norm = DFFT_NORM_NONE + 1;
  check(dfft_plan_create(comm, 3, shape, DFFT_DOUBLE, &opt, &p) == DFFT_ERROR_INVALID_ARGUMENT && p == NULL,
        "a norm past DFFT_NORM_NONE refused", "statuses");
  {
    int64_t phys[3] = {0, 0, 0}, spec[3] = {0, 0, 0};
    /* A caller compiled against the version-3 dfft.h ends its struct after user_workspace: the
     * version-4 fields past its end (here a repeated axis that would be refused) are not read. */
    dfft_options_init(&opt);
    opt.size = (int64_t)offsetof(dfft_options, padding);
    opt.version = 3;
    opt.n_axes = 2;
    opt.axes[0] = opt.axes[1] = 2;
    opt.padding[2] = 1.5;
    check(dfft_plan_create(comm, 3, shape, DFFT_DOUBLE, &opt, &p) == DFFT_SUCCESS &&
              dfft_plan_physical_shape(p, phys) == DFFT_SUCCESS && phys[2] == N2,
          "a version-3 options struct (no axes, no padding) is accepted", "statuses");
    dfft_plan_destroy(&p);
    dfft_options_init(&opt);
    opt.effort = DFFT_ESTIMATE;
    opt.n_axes = 2;
    opt.axes[0] = 2;
    opt.axes[1] = 1; /* r2c halves axis 1 */
    opt.padding[2] = 1.5;
    check(dfft_plan_create(comm, 3, shape, DFFT_DOUBLE, &opt, &p) == DFFT_SUCCESS &&
              dfft_plan_physical_shape(p, phys) == DFFT_SUCCESS && dfft_plan_spectral_shape(p, spec) == DFFT_SUCCESS &&
              phys[0] == N0 && phys[1] == N1 && phys[2] == N2 * 3 / 2 && spec[0] == N0 && spec[1] == N1 / 2 + 1 &&
              spec[2] == N2,
          "axes and padding reach the plan", "statuses");
    dfft_plan_destroy(&p);
    opt.axes[1] = 2;
    check(dfft_plan_create(comm, 3, shape, DFFT_DOUBLE, &opt, &p) == DFFT_ERROR_INVALID_ARGUMENT && p == NULL &&
              strstr(dfft_error_message(), "listed twice") != NULL,
          "a repeated axis refused", "statuses");
  }
  {
    /* transposed_out: the slab-2d1d spectrum in (y, x, z) order; a version-4 struct ends before
     * the field, so whatever lies past its end is not read (natural order). */
    int64_t lo[3], hi[3];
    int order[3] = {-1, -1, -1};
    dfft_options_init(&opt);
    opt.effort = DFFT_ESTIMATE;
    /* Named: left automatic, another decomposition or the realigned variant has another order. */
    opt.decomposition = DFFT_SLAB_2D1D;
    opt.variant = DFFT_DEFAULT;
    opt.transposed_out = 1;
    check(dfft_plan_create(comm, 3, shape, DFFT_DOUBLE, &opt, &p) == DFFT_SUCCESS &&
              dfft_plan_output_box(p, lo, hi, order, NULL) == DFFT_SUCCESS && order[0] == 1 && order[1] == 0 &&
              order[2] == 2,
          "transposed_out gives the (y, x, z) output order", "statuses");
    dfft_plan_destroy(&p);
    opt.size = (int64_t)offsetof(dfft_options, transposed_out);
    opt.version = 4;
    check(dfft_plan_create(comm, 3, shape, DFFT_DOUBLE, &opt, &p) == DFFT_SUCCESS &&
              dfft_plan_output_box(p, lo, hi, order, NULL) == DFFT_SUCCESS && order[0] == 0 && order[1] == 1 &&
              order[2] == 2,
          "a version-4 options struct (no transposed_out) is read with the natural order", "statuses");
    dfft_plan_destroy(&p);
  }
  dfft_options_init(&opt);
  opt.methods[0] = DFFT_NCCL;
  opt.n_methods = 1;
  check(dfft_plan_create(comm, 3, shape, DFFT_DOUBLE, &opt, &p) == DFFT_ERROR_UNSUPPORTED && p == NULL,
        "nccl on the CPU backend is unsupported", "statuses");
  dfft_options_init(&opt);
  opt.memory_limit_bytes = 1000;
  check(dfft_plan_create(comm, 3, shape, DFFT_DOUBLE, &opt, &p) == DFFT_ERROR_OUT_OF_MEMORY && p == NULL &&
            strstr(dfft_error_message(), "1000 bytes are available") != NULL,
        "a plan over memory_limit_bytes refused", "statuses");
  dfft_options_init(&opt);
  opt.transform = DFFT_C2C;
  dfft_test_fail_fftw(1);
  check(dfft_plan_create(comm, 3, shape, DFFT_DOUBLE, &opt, &p) == DFFT_ERROR_LIBRARY && p == NULL &&
            strstr(dfft_error_message(), "FFTW") != NULL,
        "an FFTW planning failure is a library error", "statuses");
  dfft_test_fail_fftw(0);
  if (size_ > 1) {
    /* An MPI call of the exchange fails on every rank: DFFT_ERROR_MPI naming it, on every rank. */
    dfft_options_init(&opt);
    opt.transform = DFFT_C2C;
    opt.methods[0] = DFFT_A2A_SYNC;
    opt.n_methods = 1;
    check(dfft_plan_create(comm, 3, shape, DFFT_DOUBLE, &opt, &p) == DFFT_SUCCESS, "a2a-sync plan", "statuses");
    if (p) {
      const size_t n = 2 * (size_t)(dfft_plan_input_count(p) > dfft_plan_output_count(p) ? dfft_plan_input_count(p)
                                                                                         : dfft_plan_output_count(p));
      double* in = calloc(n + 2, sizeof(double));
      double* out = calloc(n + 2, sizeof(double));
      dfft_test_fail_mpi(1);
      const int st = dfft_forward(p, in, out);
      dfft_test_fail_mpi(0);
      check(st == DFFT_ERROR_MPI && strstr(dfft_error_message(), "MPI_Alltoallv") != NULL,
            "a failed MPI call in the exchange is an MPI error", "statuses");
      check(dfft_forward(p, in, out) == DFFT_SUCCESS, "the plan runs again after the MPI error", "statuses");
      free(in);
      free(out);
      dfft_plan_destroy(&p);
    }
  }
  /* More than two methods: a 4-D pencil on a 3-D grid has three exchanges. */
  const int64_t shape4[4] = {5, 4, 3, 6};
  dfft_options_init(&opt);
  opt.decomposition = DFFT_PENCIL;
  opt.transform = DFFT_C2C;
  opt.grid_dims = 3;
  opt.grid[0] = size_;
  opt.grid[1] = opt.grid[2] = 1;
  opt.n_methods = 3;
  opt.methods[0] = DFFT_A2A_SYNC;
  opt.methods[1] = DFFT_P2P_SYNC;
  opt.methods[2] = DFFT_A2A_TYPE;
  dfft_memory mem = {0, 0};
  check(dfft_plan_create(comm, 4, shape4, DFFT_DOUBLE, &opt, &p) == DFFT_SUCCESS &&
            dfft_plan_memory(p, &mem) == DFFT_SUCCESS && mem.host_bytes > 0 && mem.device_bytes == 0,
        "three methods for three exchanges, and the plan's memory", "statuses");
  dfft_plan_destroy(&p);
}

/* A plan made with user_workspace: no work buffers of its own (memory smaller by the workspace),
 * executions without a workspace or with a short one refused, results from a workspace full of
 * garbage right; and a version-2 options struct (no user_workspace field) still read. */
static void workspace(MPI_Comm comm) {
  const int64_t shape[3] = {N0, N1, N2};
  const char* cfg = "user workspace";
  dfft_options opt;
  dfft_options_init(&opt);
  opt.backend = backend_;
  dfft_plan own = NULL, p = NULL;
  check(dfft_plan_create(comm, 3, shape, DFFT_DOUBLE, &opt, &own) == DFFT_SUCCESS, "plan", cfg);
  opt.user_workspace = 1;
  check(dfft_plan_create(comm, 3, shape, DFFT_DOUBLE, &opt, &p) == DFFT_SUCCESS, "plan with user_workspace", cfg);
  if (!own || !p) return;
  const int64_t ws = dfft_workspace_bytes(p);
  dfft_memory m_own, m_user;
  dfft_plan_memory(own, &m_own);
  dfft_plan_memory(p, &m_user);
  check(ws > 0 && ws == dfft_workspace_bytes(own) &&
            m_own.host_bytes + m_own.device_bytes - m_user.host_bytes - m_user.device_bytes == ws,
        "memory smaller by workspace_bytes", cfg);
  Buffers b = buffers(p, (size_t)dfft_plan_input_count(p) * sizeof(double),
                      (size_t)dfft_plan_output_count(p) * 2 * sizeof(double));
  void* work = backend_alloc(p, (size_t)ws);
  unsigned char* junk = malloc((size_t)ws);
  memset(junk, 0xff, (size_t)ws); /* NaN in every double */
  check(dfft_plan_upload(p, work, junk, (size_t)ws) == DFFT_SUCCESS, "garbage into the workspace", cfg);
  fill_input(p, 1, 0, b.in, 1.0);
  check(dfft_plan_upload(p, b.din, b.in, b.in_bytes) == DFFT_SUCCESS, "upload", cfg);
  check(dfft_forward(p, b.din, b.dout) == DFFT_ERROR_INVALID_ARGUMENT &&
            strstr(dfft_error_message(), "workspace") != NULL,
        "forward without a workspace refused", cfg);
  check(dfft_forward_work(p, b.din, b.dout, work, ws - 1) == DFFT_ERROR_INVALID_ARGUMENT, "short workspace refused", cfg);
  check(dfft_forward_work(p, b.din, b.dout, work, ws) == DFFT_SUCCESS, "forward with a workspace", cfg);
  check(dfft_plan_download(p, b.out, b.dout, b.out_bytes) == DFFT_SUCCESS, "download", cfg);
  check(output_error(p, comm, 1, 1, b.out, 1.0) <= 1e-12, "forward result", cfg);
  check(dfft_plan_upload(p, work, junk, (size_t)ws) == DFFT_SUCCESS, "garbage into the workspace", cfg);
  check(dfft_inverse_work(p, b.dout, b.din, work, ws) == DFFT_SUCCESS, "inverse with a workspace", cfg);
  check(dfft_plan_download(p, b.in, b.din, b.in_bytes) == DFFT_SUCCESS, "download", cfg);
  check(roundtrip_error(p, comm, 1, 0, b.in) <= 1e-12, "round trip", cfg);
  free(junk);
  dfft_plan_deallocate(p, work);
  release(p, &b, cfg);
  dfft_plan_destroy(&p);
  dfft_plan_destroy(&own);
  /* A caller compiled against the version-2 dfft.h passes the fields up to `stream`. */
  dfft_options_init(&opt);
  opt.backend = backend_;
  opt.version = 2;
  opt.size = (int64_t)offsetof(dfft_options, user_workspace);
  opt.user_workspace = 1; /* past the old struct's end: not read */
  check(dfft_plan_create(comm, 3, shape, DFFT_DOUBLE, &opt, &p) == DFFT_SUCCESS &&
            dfft_workspace_bytes(p) > 0,
        "a version-2 options struct is read", cfg);
  if (p) {
    b = buffers(p, (size_t)dfft_plan_input_count(p) * sizeof(double),
                (size_t)dfft_plan_output_count(p) * 2 * sizeof(double));
    fill_input(p, 1, 0, b.in, 1.0);
    forward(p, &b, 1, "version-2 options");
    check(output_error(p, comm, 1, 1, b.out, 1.0) <= 1e-12, "version-2 plan holds its work buffers", cfg);
    release(p, &b, cfg);
    dfft_plan_destroy(&p);
  }
}

int main(int argc, char** argv) {
  int provided, size;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  size_ = size;
  const char* be = getenv("DFFT_CAPI_BACKEND");
  if (be && strcmp(be, "cuda") == 0) backend_ = DFFT_CUDA;
  if (rank_ == 0) printf("capi: backend %s\n", backend_ == DFFT_CUDA ? "cuda" : "cpu");
  make_references();
  sweep(MPI_COMM_WORLD);
  boxes(MPI_COMM_WORLD, size);
  halo_arrays(MPI_COMM_WORLD);
  batch(MPI_COMM_WORLD);
  r2r(MPI_COMM_WORLD, DFFT_DCT2);
  r2r(MPI_COMM_WORLD, DFFT_DCT4);
  refusals(MPI_COMM_WORLD);
  statuses(MPI_COMM_WORLD);
  workspace(MPI_COMM_WORLD);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank_ == 0) printf("capi: %s (%d failure(s) over %d rank(s))\n", total ? "FAILED" : "PASSED", total, size);
  MPI_Finalize();
  return total ? 1 : 0;
}
