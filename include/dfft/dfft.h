/* SPDX-License-Identifier: MIT */
/* dfft C interface: distributed multidimensional FFTs from C (and, through dfft.f90's
 * iso_c_binding module, from Fortran). A thin layer over the C++ dfft::Plan (dfft/dfft.hpp):
 * the same planner, executor, methods and options; docs/c-api.md.
 *
 *   dfft_options opt;
 *   dfft_options_init(&opt);                     // the C++ defaults
 *   opt.decomposition = DFFT_PENCIL;
 *   int64_t shape[3] = {nx, ny, nz};
 *   dfft_plan plan;
 *   if (dfft_plan_create(MPI_COMM_WORLD, 3, shape, DFFT_DOUBLE, &opt, &plan) != DFFT_SUCCESS)
 *     fprintf(stderr, "%s\n", dfft_error_message());
 *   double* in = malloc(sizeof(double) * dfft_plan_input_count(plan));
 *   double* out = malloc(2 * sizeof(double) * dfft_plan_output_count(plan));  // interleaved complex
 *   dfft_forward(plan, in, out);                 // r2c
 *   dfft_inverse(plan, out, in);                 // c2r, scaled by 1/N (opt.norm)
 *   dfft_plan_destroy(&plan);
 *
 * Index convention: axis 0 is the slowest axis of the natural (C, row-major) order; a Fortran
 * array u(n3, n2, n1) is the C shape {n1, n2, n3}. Complex values are two reals, real part
 * first (C99 complex, std::complex, Fortran complex). Functions that return a status return
 * DFFT_SUCCESS or an error status (dfft_status) and never throw or abort; dfft_error_message()
 * then says what failed (call, code and rank). Plan creation and execution are collective over the
 * communicator; the creation functions agree on their argument checks across ranks, so a
 * refusal on one rank is a refusal (not a hang) on all. Undefined, as in MPI: an invalid
 * communicator handle, NULL or too small arrays passed to a transform. */
#ifndef DFFT_DFFT_H
#define DFFT_DFFT_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DFFT_MAX_DIMS 8

/* The kind of a failure; the values of dfft::Status (C++), each with its exception class. */
typedef enum {
  DFFT_SUCCESS = 0,
  DFFT_ERROR_INVALID_ARGUMENT = 1, /* refused by dfft's checks: bad argument or option (InvalidArgument) */
  DFFT_ERROR_MPI = 2,              /* an MPI call failed (MpiError) */
  DFFT_ERROR_LIBRARY = 3,          /* FFTW, CUDA, cuFFT, NCCL or the system failed (LibraryError) */
  DFFT_ERROR_OUT_OF_MEMORY = 4,    /* an allocation failed or the plan does not fit (OutOfMemory) */
  DFFT_ERROR_INTERNAL = 5,         /* a defect in dfft */
  DFFT_ERROR_UNSUPPORTED = 6,      /* valid, but not with this build, backend or method (Unsupported) */
  DFFT_ERROR_OPTIONS_VERSION = 7,  /* dfft_options of a size or version this library does not know */
  /* Earlier names of the same codes. */
  DFFT_ERROR_INPUT = DFFT_ERROR_INVALID_ARGUMENT,
  DFFT_ERROR_MEMORY = DFFT_ERROR_OUT_OF_MEMORY
} dfft_status;

/* Enumerations; the option fields below are plain ints holding these values. */
enum { DFFT_DOUBLE = 0, DFFT_FLOAT = 1 };
/* DFFT_DECOMP_AUTO, DFFT_VARIANT_AUTO: chosen when the plan is made (dfft_options_init's
   defaults; docs/design.md, "Automatic choices by default"). */
enum { DFFT_SLAB_2D1D = 0, DFFT_SLAB_1D2D = 1, DFFT_PENCIL = 2, DFFT_DECOMP_AUTO = 3 };
enum { DFFT_DEFAULT = 0, DFFT_REALIGNED = 1, DFFT_VARIANT_AUTO = 2 };
enum { DFFT_R2C = 0, DFFT_C2C = 1, DFFT_R2R = 2 };
/* DCT/DST kind the forward transform applies along an axis (the inverse applies the inverse
   kind: types I and IV self-inverse, II and III each other's; docs/r2r.md). */
enum {
  DFFT_R2R_NONE = 0, DFFT_DCT2 = 1, DFFT_DST2 = 2, DFFT_DCT1 = 3, DFFT_DCT3 = 4, DFFT_DCT4 = 5,
  DFFT_DST1 = 6, DFFT_DST3 = 7, DFFT_DST4 = 8,
  /* FFTW_R2HC, FFTW_HC2R, FFTW_DHT: DFFT_R2R only (every axis a real kind), DFFT_CPU only */
  DFFT_R2HC = 9, DFFT_HC2R = 10, DFFT_DHT = 11
};
enum {
  DFFT_A2A_SYNC = 0, DFFT_A2A_TYPE = 1, DFFT_P2P_SYNC = 2, DFFT_P2P_TYPE = 3, DFFT_P2P_STREAMS = 4,
  DFFT_NCCL = 5, DFFT_ONESIDED = 6, DFFT_P2P_PIPELINED = 7, DFFT_CUDA_IPC = 8, DFFT_NODE_RING = 9,
  DFFT_HIERARCHICAL = 10, DFFT_PER_PEER = 11
};
enum { DFFT_ESTIMATE = 0, DFFT_MEASURE = 1, DFFT_WISDOM_ONLY = 2 };
/* DFFT_NORM_NONE: neither direction scaled (FFTW's convention: forward then inverse gives N x) */
enum { DFFT_NORM_BACKWARD = 0, DFFT_NORM_ORTHO = 1, DFFT_NORM_FORWARD = 2, DFFT_NORM_NONE = 3 };
enum { DFFT_CPU = 0, DFFT_CUDA = 1 };
enum { DFFT_CODEC_NONE = 0, DFFT_CODEC_FP32 = 1, DFFT_CODEC_FP16 = 2, DFFT_CODEC_BF16 = 3 };
enum { DFFT_FENCE = 0, DFFT_FLUSH = 1 };
enum { DFFT_STAGING_AUTO = 0, DFFT_STAGING_HOST = 1, DFFT_STAGING_CUDA_AWARE = 2 };
enum { DFFT_TUNE_NONE = 0, DFFT_TUNE_HEURISTIC = 1, DFFT_TUNE_MEASURE = 2 };

/* Layout version of dfft_options: a library refuses (DFFT_ERROR_OPTIONS_VERSION) a struct whose
 * `size` or `version` it does not know, instead of reading fields that are not there. */
#define DFFT_OPTIONS_VERSION 7
/* Most exchanges a plan has (a pencil grid of DFFT_MAX_DIMS - 1 dimensions). */
#define DFFT_MAX_EXCHANGES (DFFT_MAX_DIMS - 1)

/* Plan options: the fields of dfft::Options (dfft/types.hpp documents each). Always start from
 * dfft_options_init(), which also sets `size` and `version`. Only int, int64_t, double and
 * pointer fields, so that Fortran's bind(C) type dfft_options (dfft.f90) has the same layout.
 * The struct stays flat and fields are only appended (docs/design.md, "Options groups"); each
 * field's comment names, in brackets, the group of dfft::Options it belongs to (docs/options.md):
 *   problem:       transform, r2r, n_axes + axes, padding, norm, batch, in_place, destroy_input
 *   decomposition: decomposition, grid_dims + grid, variant, transposed_out
 *   exchange:      n_methods + methods, codec, tolerance, onesided_sync, staging, chunks,
 *                  in_flight, max_message_bytes
 *   overlap:       overlap, adapt
 *   tuning:        tune, wisdom_file, tune_budget_s, effort, fftw_wisdom, fftw_wisdom_dir
 *   device:        backend, device, stream, user_workspace, threads
 *   memory:        memory_limit_bytes
 * Not here: batches (dfft_plan_prepare_batch makes batched plans) and ranks_per_node (the
 * DFFT_RANKS_PER_NODE environment variable). */
typedef struct dfft_options {
  int64_t size;               /* sizeof(dfft_options) of the caller's dfft.h */
  int version;                /* DFFT_OPTIONS_VERSION of the caller's dfft.h */
  int decomposition;          /* [decomposition] DFFT_DECOMP_AUTO */
  int variant;                /* [decomposition] DFFT_VARIANT_AUTO */
  int transform;              /* [problem] DFFT_R2C */
  int backend;                /* [device] DFFT_CPU */
  int effort;                 /* [tuning] DFFT_MEASURE */
  int norm;                   /* [problem] DFFT_NORM_BACKWARD: inverse scaled by 1/N (numpy's
                                 norms) */
  int codec;                  /* [exchange] DFFT_CODEC_NONE */
  int onesided_sync;          /* [exchange] DFFT_FENCE */
  int staging;                /* [exchange] DFFT_STAGING_AUTO */
  int tune;                   /* [tuning] DFFT_TUNE_NONE */
  int n_methods;              /* [exchange] 0: chosen automatically; 1: methods[0] for every
                                 exchange; else one per exchange, in path order (up to
                                 DFFT_MAX_EXCHANGES) */
  int methods[DFFT_MAX_EXCHANGES]; /* [exchange] */
  int grid_dims;              /* [decomposition] 0: grid chosen automatically; else
                                 grid[0..grid_dims) */
  int grid[DFFT_MAX_DIMS - 1]; /* [decomposition] */
  int r2r[DFFT_MAX_DIMS];     /* [problem] per axis, DFFT_R2R_NONE = periodic; read for the first
                                 ndims axes when any is set (r2r; c2c or r2c with some DCT/DST
                                 axes, r2c with the last axis periodic) */
  int chunks;                 /* [exchange] 0: automatic (4 where a method cuts blocks) */
  int in_flight;              /* [exchange] 2 */
  int overlap;                /* [overlap] 0: automatic (no overlap); 1: none; K: K slices */
  int adapt;                  /* [overlap] 0 */
  int device;                 /* [device] -1: local rank modulo visible GPUs */
  int batch;                  /* [problem] must be 1: dfft_forward_batch / dfft_inverse_batch
                                 take the count */
  int in_place;               /* [problem] 0 */
  int fftw_wisdom;            /* [tuning] 1: FFTW wisdom kept on disk (DFFT_MEASURE) */
  int threads;                /* [device] DFFT_CPU: threads per rank (0: the rank's share of
                                 its affinity mask's cores; 1: one) */
  int64_t max_message_bytes;  /* [exchange] 2^31 - 4096 */
  int64_t memory_limit_bytes; /* [memory] 0: the available memory; else refuse plans needing
                                 more */
  double tolerance;           /* [exchange] 0: codec as given */
  double tune_budget_s;       /* [tuning] 0: no limit */
  const char* wisdom_file;    /* [tuning] NULL: the machine's default file; "off": none */
  const char* fftw_wisdom_dir; /* [tuning] NULL: the default directory */
  void* stream;               /* [device] DFFT_CUDA: the cudaStream_t all device work is queued
                                 on; NULL: the plan's own */
  /* Fields are only ever added here, at the end: a struct of an older version (its size and
   * version) is still read, with the fields it lacks at their defaults. */
  /* Version 3. */
  int user_workspace;         /* [device] 0; 1: every execution brings its workspace
                                 (dfft_forward_work) */
  /* Version 4. */
  int n_axes;                 /* [problem] 0: every axis; else axes[0..n_axes) are transformed in
                                 that order, the last one halved for r2c */
  double padding[DFFT_MAX_DIMS]; /* [problem] per axis, 1.0: not padded; e.g. 1.5 (the 3/2 rule)
                                    on transformed axes: the physical grid has floor(n * factor)
                                    points */
  int axes[DFFT_MAX_DIMS];    /* [problem] */
  /* Version 5. */
  int transposed_out;         /* [decomposition] 0; 1: the spectrum in the last stage's order,
                                 e.g. (y, x, z) for slab-2d1d and pencil
                                 (FFTW_MPI_TRANSPOSED_OUT) */
  /* Version 6. [problem] Halo (ghost cells) or padding around this rank's box in the input (real-space)
   * and output (spectral) arrays, per axis, for the first ndims axes: _lo cells below the box,
   * _hi cells above it (all 0: a dense array; docs/boxes.md). dfft_plan_input_count counts the
   * halo'd array, dfft_plan_input_start says where its box starts; forward and inverse never
   * read or write a halo cell. The same on every rank; DFFT_CPU only; not with the _boxes
   * constructors or in_place. */
  int64_t input_halo_lo[DFFT_MAX_DIMS];
  int64_t input_halo_hi[DFFT_MAX_DIMS];
  int64_t output_halo_lo[DFFT_MAX_DIMS];
  int64_t output_halo_hi[DFFT_MAX_DIMS];
  /* Version 7. */
  int destroy_input;          /* [problem] 0; 1: dfft_inverse may overwrite its input spectrum
                                 (FFTW's c2r default), 0: it leaves it as it was */
} dfft_options;

typedef struct dfft_plan_s* dfft_plan;

/* Phase times of the last forward or inverse on this rank, in seconds, summed over stages (with
 * overlap the parts add busy times, docs/overlap.md). */
typedef struct dfft_timings {
  double fft, pack, comm, unpack, total;
} dfft_timings;

void dfft_options_init(dfft_options* options);

/* A plan for a global array of `ndims` (2..DFFT_MAX_DIMS) axes, blocks chosen by dfft. */
int dfft_plan_create(MPI_Comm comm, int ndims, const int64_t* shape, int precision,
                     const dfft_options* options, dfft_plan* plan);
/* A plan whose input and output on this rank are the boxes [lo, hi) given (any boxes that
 * tile the global array across ranks; heFFTe-style), stored in memory order `order` (the
 * global axes from slowest to fastest; NULL: natural order 0..ndims-1). The output box is in
 * spectral indices (last axis n/2+1 for r2c). */
int dfft_plan_create_boxes(MPI_Comm comm, int ndims, const int64_t* shape, int precision,
                           const int64_t* in_lo, const int64_t* in_hi, const int* in_order,
                           const int64_t* out_lo, const int64_t* out_hi, const int* out_order,
                           const dfft_options* options, dfft_plan* plan);
/* Fortran: the communicator as a Fortran handle (MPI_Comm_c2f). */
int dfft_plan_create_f(MPI_Fint comm, int ndims, const int64_t* shape, int precision,
                       const dfft_options* options, dfft_plan* plan);
int dfft_plan_create_boxes_f(MPI_Fint comm, int ndims, const int64_t* shape, int precision,
                             const int64_t* in_lo, const int64_t* in_hi, const int* in_order,
                             const int64_t* out_lo, const int64_t* out_hi, const int* out_order,
                             const dfft_options* options, dfft_plan* plan);
/* Frees the plan and sets *plan to NULL (NULL and a NULL *plan are accepted). Not collective. */
int dfft_plan_destroy(dfft_plan* plan);

/* Transforms. r2c: forward real -> complex, inverse complex -> real; c2c: complex both ways;
 * r2r: real both ways. Elements are of the plan's precision; in == out is allowed for c2c, for
 * r2c with in_place and for r2r. */
int dfft_forward(dfft_plan plan, const void* in, void* out);
int dfft_inverse(dfft_plan plan, const void* in, void* out);
/* `batch` arrays stored one after another (each of input_count / output_count elements), with
 * the batched plan made beforehand by dfft_plan_prepare_batch (collective; DFFT_ERROR_INVALID_ARGUMENT
 * otherwise): executing never sets anything up. */
int dfft_plan_prepare_batch(dfft_plan plan, int batch);
int dfft_forward_batch(dfft_plan plan, int batch, const void* in, void* out);
int dfft_inverse_batch(dfft_plan plan, int batch, const void* in, void* out);
/* With a workspace of the caller's: `work_bytes` (>= dfft_workspace_bytes) bytes of the plan's
 * backend memory (dfft_plan_allocate), any contents; NULL: the plan's own buffers, refused
 * (DFFT_ERROR_INVALID_ARGUMENT) for a plan made with user_workspace = 1. On DFFT_CUDA the call
 * is ordered on the plan's stream and waits for that stream only. */
int dfft_forward_work(dfft_plan plan, const void* in, void* out, void* work, int64_t work_bytes);
int dfft_inverse_work(dfft_plan plan, const void* in, void* out, void* work, int64_t work_bytes);
/* Bytes of workspace one execution needs (0 for a NULL plan). */
int64_t dfft_workspace_bytes(dfft_plan plan);

/* Queries. Arrays hold ndims entries. The functions returning a count return 0 for a NULL plan. */
int dfft_plan_ndims(dfft_plan plan);
int64_t dfft_plan_input_count(dfft_plan plan);   /* elements this rank holds (input side) */
int64_t dfft_plan_output_count(dfft_plan plan);  /* elements this rank holds (output side) */
/* Elements before the box's first element in the local array (options input_halo_lo and
 * output_halo_lo; 0 without a halo, for an empty box and for a NULL plan). */
int64_t dfft_plan_input_start(dfft_plan plan);
int64_t dfft_plan_output_start(dfft_plan plan);
int dfft_plan_spectral_shape(dfft_plan plan, int64_t* shape);
/* Global shape of the real-space side: the plan's shape with options->padding applied. */
int dfft_plan_physical_shape(dfft_plan plan, int64_t* shape);
/* This rank's box [lo, hi), memory order (may be NULL) and element strides per global axis
 * (may be NULL): global element idx lives at start + sum_a (idx[a] - lo[a]) * strides[a], start
 * being dfft_plan_input_start (dfft_plan_output_start): 0 without a halo. */
int dfft_plan_input_box(dfft_plan plan, int64_t* lo, int64_t* hi, int* order, int64_t* strides);
int dfft_plan_output_box(dfft_plan plan, int64_t* lo, int64_t* hi, int* order, int64_t* strides);
/* The process grid; returns its number of dimensions (the entries go to grid, >= ndims - 1). */
int dfft_plan_grid(dfft_plan plan, int* grid);
int dfft_plan_timings(dfft_plan plan, dfft_timings* timings);
/* The plan's path as text, NUL-terminated and truncated to `size`; returns the full length. */
size_t dfft_plan_describe(dfft_plan plan, char* buffer, size_t size);
/* Memory where the plan's backend wants its arrays (device memory for DFFT_CUDA). */
int dfft_plan_allocate(dfft_plan plan, size_t bytes, void** pointer);
int dfft_plan_deallocate(dfft_plan plan, void* pointer);
/* Copies between host memory and such memory (plain copies on the CPU backend). */
int dfft_plan_upload(dfft_plan plan, void* dst, const void* host_src, size_t bytes);
int dfft_plan_download(dfft_plan plan, void* host_dst, const void* src, size_t bytes);

/* Bytes of host and device memory the plan holds (buffers, workspaces, staging, cuFFT work areas;
 * FFTW's own work areas are not known and not counted). */
typedef struct dfft_memory {
  int64_t host_bytes, device_bytes;
} dfft_memory;
int dfft_plan_memory(dfft_plan plan, dfft_memory* memory);

/* Parallel .npy files (docs/io.md): the plan's input side (global shape, real for r2c and r2r)
 * or output side (spectral shape) written from, or read into, this rank's array in the plan's
 * layout (dfft_plan_input_box / dfft_plan_output_box; host memory). Writing makes a C-order file
 * at `path` (through path.dfft-tmp, renamed when complete); reading takes C or Fortran order and
 * refuses (DFFT_ERROR_INVALID_ARGUMENT) a file of another shape or dtype. Collective; a failure
 * on any rank is returned on every rank (DFFT_ERROR_MPI for a failed MPI-IO call, e.g. a file that
 * does not exist). */
enum { DFFT_INPUT = 0, DFFT_OUTPUT = 1 };
int dfft_write_npy(dfft_plan plan, int side, const char* path, const void* data);
int dfft_read_npy(dfft_plan plan, int side, const char* path, void* data);

/* Halo exchange (docs/halo.md): this rank's local array carries width_lo[a] cells below and
 * width_hi[a] cells above its box [lo, hi) along each global axis a (its allocated extent is
 * hi - lo + width_lo + width_hi per axis, in memory order `order`), and dfft_halo_exchange fills
 * them in place from the ranks that hold those cells (periodic images along axes with
 * periodic[a] != 0). Cells beyond the ends of a non-periodic axis are never written; corners = 0
 * fills the faces only (cells outside the box along one axis), 1 also the edges and corners.
 * Any width works (deeper than a neighbouring block, or than the global array). width_hi NULL:
 * the same as width_lo; periodic NULL: every axis periodic; order NULL: natural order. The
 * boxes of all ranks tile a global array; widths, periodic and corners are the same on every
 * rank. Elements are `precision` reals, or complex pairs with complex_values = 1. Host memory.
 * Creation and exchange are collective. */
typedef struct dfft_halo_s* dfft_halo;
int dfft_halo_create(MPI_Comm comm, int ndims, const int64_t* lo, const int64_t* hi, const int* order,
                     const int64_t* width_lo, const int64_t* width_hi, const int* periodic, int corners,
                     int precision, int complex_values, dfft_halo* halo);
int dfft_halo_create_f(MPI_Fint comm, int ndims, const int64_t* lo, const int64_t* hi, const int* order,
                       const int64_t* width_lo, const int64_t* width_hi, const int* periodic, int corners,
                       int precision, int complex_values, dfft_halo* halo);
/* On a plan's DFFT_INPUT or DFFT_OUTPUT layout and communicator, with the plan's precision and
 * backend: on a DFFT_CUDA plan `data` is device memory of the plan's GPU (packed on the GPU,
 * staged through host memory). */
int dfft_halo_create_plan(dfft_plan plan, int side, const int64_t* width_lo, const int64_t* width_hi,
                          const int* periodic, int corners, int complex_values, dfft_halo* halo);
/* Fills the halo of `data`, an array of `count` elements; an array of fewer than
 * dfft_halo_count elements on any rank is refused on every rank (DFFT_ERROR_INVALID_ARGUMENT)
 * before anything is read or written. */
int dfft_halo_exchange(dfft_halo halo, void* data, int64_t count);
/* Elements of this rank's halo'd array (0 for a NULL halo or an empty box). */
int64_t dfft_halo_count(dfft_halo halo);
/* The halo'd array's box (the box grown by the widths; lo may be negative) and element strides
 * per global axis (either may be NULL): global index g lives at sum_a (g[a] - lo[a]) * strides[a]. */
int dfft_halo_box(dfft_halo halo, int64_t* lo, int64_t* hi, int64_t* strides);
/* Frees the halo and sets *halo to NULL (NULL and a NULL *halo are accepted). Not collective. */
int dfft_halo_destroy(dfft_halo* halo);

/* The message of this thread's last failure ("" if none); a call that returns DFFT_SUCCESS clears
 * it. The pointer stays valid until the thread's next dfft call. */
const char* dfft_error_message(void);

#ifdef __cplusplus
}
#endif

#endif /* DFFT_DFFT_H */
