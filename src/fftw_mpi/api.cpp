// SPDX-License-Identifier: MIT
// FFTW's MPI interface (fftw3-mpi.h of FFTW 3.3.10) on dfft's plans, for one precision: compiled
// once with double (libfftw3_mpi) and once with DFFT_FFTW_MPI_FLOAT (libfftw3f_mpi). The
// prototypes come from FFTW's own header, so the compiler holds every definition to FFTW's ABI.
// Each entry point translates its arguments into a Request or a Problem and stops there
// (mpi_plan.hpp, distribution.hpp); no C++ exception leaves this file.
#include <fftw3-mpi.h>

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fftw_mpi/distribution.hpp"
#include "fftw_mpi/mpi_plan.hpp"
#include "fftw_mpi/serial.hpp"

#ifdef DFFT_FFTW_MPI_FLOAT
#define XM(name) fftwf_mpi_##name
#define X(name) fftwf_##name
#define XS "fftwf_"
using R = float;
#else
#define XM(name) fftw_mpi_##name
#define X(name) fftw_##name
#define XS "fftw_"
using R = double;
#endif
using C = R[2];
using Handle = X(plan);

namespace fm = dfft::fftw_mpi;
using MpiPlan = fm::MpiPlan<R>;

// The guru interface's entry points are exported by FFTW's library without a prototype in its
// header; these are theirs.
extern "C" {
ptrdiff_t XM(local_size_guru)(int rnk, const XM(ddim) * dims, ptrdiff_t howmany, MPI_Comm comm,
                              ptrdiff_t* local_n_in, ptrdiff_t* local_start_in, ptrdiff_t* local_n_out,
                              ptrdiff_t* local_start_out, int sign, unsigned flags);
Handle XM(plan_guru_dft)(int rnk, const XM(ddim) * dims, ptrdiff_t howmany, C* in, C* out, MPI_Comm comm,
                         int sign, unsigned flags);
Handle XM(plan_guru_r2r)(int rnk, const XM(ddim) * dims, ptrdiff_t howmany, R* in, R* out, MPI_Comm comm,
                         const X(r2r_kind) * kind, unsigned flags);
// A symbol of this library alone: lets serial::next tell this library's definitions from FFTW's.
void dfft_fftw_mpi_marker(void);
}

namespace {

MpiPlan* ours(Handle p) { return fm::is_dfft_handle(p) ? reinterpret_cast<MpiPlan*>(p) : nullptr; }
Handle handle(MpiPlan* p) { return reinterpret_cast<Handle>(p); }

// The next (FFTW's) definition of a serial name, looked up once.
template <class F>
F next(const char* name, F& cache) {
  if (cache == nullptr) cache = reinterpret_cast<F>(fm::serial::next(name));
  return cache;
}
#define FFTW_NEXT(fn, ...)                                                   \
  do {                                                                       \
    static decltype(&X(fn)) real_ = nullptr;                                 \
    if (auto fftw_fn = next(XS #fn, real_)) return fftw_fn(__VA_ARGS__);     \
  } while (0)

int comm_size(MPI_Comm comm) {
  int n = 1;
  if (comm == MPI_COMM_NULL || MPI_Comm_size(comm, &n) != MPI_SUCCESS) return 1;
  return n;
}
int comm_rank(MPI_Comm comm) {
  int r = 0;
  if (comm == MPI_COMM_NULL || MPI_Comm_rank(comm, &r) != MPI_SUCCESS) return 0;
  return r;
}

fm::Problem problem(fm::Kind kind, int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t block_in,
                    ptrdiff_t block_out, unsigned flags) {
  fm::Problem p;
  p.kind = kind;
  if (rnk > 0 && n != nullptr) p.n.assign(n, n + rnk);
  p.howmany = howmany;
  p.block_in = block_in;
  p.block_out = block_out;
  p.transposed_in = (flags & FFTW_MPI_TRANSPOSED_IN) != 0;
  p.transposed_out = (flags & FFTW_MPI_TRANSPOSED_OUT) != 0;
  return p;
}

Handle make(fm::Request r) {
  if (r.problem.n.empty() && !r.transpose_only) {
    if (fm::verbose()) fm::say(std::string(r.call) + ": rank 0 or negative-rank transforms are not supported; no plan");
    return nullptr;
  }
  try {
    return handle(MpiPlan::make(r));
  } catch (const std::exception& e) {
    if (fm::verbose()) fm::say(std::string(r.call) + ": " + e.what() + "; no plan");
    return nullptr;
  }
}

// Local sizes of the rnk >= 2 distribution (and the 1-D one): `transposed` adds the layouts
// distributed along axis 1 with block1.
ptrdiff_t local_sizes(int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t block0, ptrdiff_t block1,
                      MPI_Comm comm, bool transposed, ptrdiff_t* ln0, ptrdiff_t* s0, ptrdiff_t* ln1,
                      ptrdiff_t* s1) {
  if (rnk < 1 || n == nullptr) {
    if (ln0) *ln0 = 1;
    if (s0) *s0 = 0;
    if (ln1) *ln1 = 1;
    if (s1) *s1 = 0;
    return howmany;
  }
  const int ranks = comm_size(comm), rank = comm_rank(comm);
  fm::Problem p = problem(fm::Kind::dft, rnk, n, howmany, block0, transposed ? block1 : block0, 0);
  p.transposed_out = transposed && rnk > 1;
  const fm::Range r0 = fm::block_range(n[0], block0 > 0 ? block0 : fm::default_block(n[0], ranks), rank);
  if (ln0) *ln0 = r0.count;
  if (s0) *s0 = r0.start;
  if (rnk > 1) {
    const fm::Range r1 = fm::block_range(n[1], block1 > 0 ? block1 : fm::default_block(n[1], ranks), rank);
    if (ln1) *ln1 = r1.count;
    if (s1) *s1 = r1.start;
  } else {
    if (ln1) *ln1 = r0.count;
    if (s1) *s1 = r0.start;
  }
  return fm::local_alloc(p, rank, ranks);
}

}  // namespace

extern "C" {

void dfft_fftw_mpi_marker(void) {}

void XM(init)(void) {
  static bool said = false;
  if (!said && fm::verbose()) {
    said = true;
    Dl_info where{};
    dladdr(reinterpret_cast<void*>(&dfft_fftw_mpi_marker), &where);
    fm::say(std::string("FFTW's MPI interface (" XS "mpi_*) is dfft's, from ") +
            (where.dli_fname ? where.dli_fname : "this library"));
  }
}

void XM(cleanup)(void) { MpiPlan::destroy_all(); }

ptrdiff_t XM(local_size_many_transposed)(int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t block0,
                                         ptrdiff_t block1, MPI_Comm comm, ptrdiff_t* local_n0,
                                         ptrdiff_t* local_0_start, ptrdiff_t* local_n1, ptrdiff_t* local_1_start) {
  return local_sizes(rnk, n, howmany, block0, block1, comm, true, local_n0, local_0_start, local_n1, local_1_start);
}
ptrdiff_t XM(local_size_many)(int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t block0, MPI_Comm comm,
                              ptrdiff_t* local_n0, ptrdiff_t* local_0_start) {
  return local_sizes(rnk, n, howmany, block0, 0, comm, false, local_n0, local_0_start, nullptr, nullptr);
}
ptrdiff_t XM(local_size_transposed)(int rnk, const ptrdiff_t* n, MPI_Comm comm, ptrdiff_t* local_n0,
                                    ptrdiff_t* local_0_start, ptrdiff_t* local_n1, ptrdiff_t* local_1_start) {
  return local_sizes(rnk, n, 1, 0, 0, comm, true, local_n0, local_0_start, local_n1, local_1_start);
}
ptrdiff_t XM(local_size)(int rnk, const ptrdiff_t* n, MPI_Comm comm, ptrdiff_t* local_n0, ptrdiff_t* local_0_start) {
  return local_sizes(rnk, n, 1, 0, 0, comm, false, local_n0, local_0_start, nullptr, nullptr);
}
ptrdiff_t XM(local_size_many_1d)(ptrdiff_t n0, ptrdiff_t howmany, MPI_Comm comm, int sign, unsigned flags,
                                 ptrdiff_t* local_ni, ptrdiff_t* local_i_start, ptrdiff_t* local_no,
                                 ptrdiff_t* local_o_start) {
  // SCRAMBLED_IN/OUT leave the order to the library: dfft's scrambled order is the natural one.
  (void)flags;
  fm::Problem p = problem(fm::Kind::dft, 1, &n0, howmany, 0, 0, 0);
  p.backward = sign == FFTW_BACKWARD;
  const int ranks = comm_size(comm), rank = comm_rank(comm);
  const fm::Side in = fm::input_side(p, rank, ranks), out = fm::output_side(p, rank, ranks);
  *local_ni = in.layout.box.extent(0);
  *local_i_start = in.layout.box.lo[0];
  *local_no = out.layout.box.extent(0);
  *local_o_start = out.layout.box.lo[0];
  return fm::local_alloc(p, rank, ranks);
}
ptrdiff_t XM(local_size_1d)(ptrdiff_t n0, MPI_Comm comm, int sign, unsigned flags, ptrdiff_t* local_ni,
                            ptrdiff_t* local_i_start, ptrdiff_t* local_no, ptrdiff_t* local_o_start) {
  return XM(local_size_many_1d)(n0, 1, comm, sign, flags, local_ni, local_i_start, local_no, local_o_start);
}
ptrdiff_t XM(local_size_2d)(ptrdiff_t n0, ptrdiff_t n1, MPI_Comm comm, ptrdiff_t* local_n0, ptrdiff_t* local_0_start) {
  const ptrdiff_t n[2] = {n0, n1};
  return XM(local_size)(2, n, comm, local_n0, local_0_start);
}
ptrdiff_t XM(local_size_2d_transposed)(ptrdiff_t n0, ptrdiff_t n1, MPI_Comm comm, ptrdiff_t* local_n0,
                                       ptrdiff_t* local_0_start, ptrdiff_t* local_n1, ptrdiff_t* local_1_start) {
  const ptrdiff_t n[2] = {n0, n1};
  return XM(local_size_transposed)(2, n, comm, local_n0, local_0_start, local_n1, local_1_start);
}
ptrdiff_t XM(local_size_3d)(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, MPI_Comm comm, ptrdiff_t* local_n0,
                            ptrdiff_t* local_0_start) {
  const ptrdiff_t n[3] = {n0, n1, n2};
  return XM(local_size)(3, n, comm, local_n0, local_0_start);
}
ptrdiff_t XM(local_size_3d_transposed)(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, MPI_Comm comm,
                                       ptrdiff_t* local_n0, ptrdiff_t* local_0_start, ptrdiff_t* local_n1,
                                       ptrdiff_t* local_1_start) {
  const ptrdiff_t n[3] = {n0, n1, n2};
  return XM(local_size_transposed)(3, n, comm, local_n0, local_0_start, local_n1, local_1_start);
}

}  // extern "C"

namespace {

// The guru interface's distributions that are FFTW's block rule along one axis per side (axis 0
// of the input, axis 0 or 1 of the output); false for the others.
bool guru_blocks(int rnk, const XM(ddim) * dims, ptrdiff_t& block_in, ptrdiff_t& block_out, bool& transposed_out) {
  if (rnk < 1 || dims == nullptr) return false;
  block_in = dims[0].ib;
  block_out = dims[0].ob;
  transposed_out = false;
  for (int a = 1; a < rnk; ++a) {
    if (dims[a].ib != 0 && dims[a].ib < dims[a].n) return false;
    if (dims[a].ob != 0 && dims[a].ob < dims[a].n) {
      if (a != 1 || (dims[0].ob != 0 && dims[0].ob < dims[0].n)) return false;
      transposed_out = true;
      block_out = dims[1].ob;
    }
  }
  return true;
}

std::vector<ptrdiff_t> guru_sizes(int rnk, const XM(ddim) * dims) {
  std::vector<ptrdiff_t> n;
  for (int a = 0; a < rnk; ++a) n.push_back(dims[a].n);
  return n;
}

}  // namespace

extern "C" {

ptrdiff_t XM(local_size_guru)(int rnk, const XM(ddim) * dims, ptrdiff_t howmany, MPI_Comm comm,
                              ptrdiff_t* local_n_in, ptrdiff_t* local_start_in, ptrdiff_t* local_n_out,
                              ptrdiff_t* local_start_out, int sign, unsigned flags) {
  (void)sign;
  ptrdiff_t bi = 0, bo = 0;
  bool tout = false;
  if (!guru_blocks(rnk, dims, bi, bo, tout)) {
    if (fm::verbose()) fm::say(XS "mpi_local_size_guru: only block distributions along one axis per side are supported");
    return 0;
  }
  const auto n = guru_sizes(rnk, dims);
  fm::Problem p = problem(fm::Kind::dft, rnk, n.data(), howmany, bi, bo, flags | (tout ? FFTW_MPI_TRANSPOSED_OUT : 0));
  const int ranks = comm_size(comm), rank = comm_rank(comm);
  const fm::Side in = fm::input_side(p, rank, ranks), out = fm::output_side(p, rank, ranks);
  for (int a = 0; a < rnk; ++a) {
    local_n_in[a] = in.layout.box.extent(a);
    local_start_in[a] = in.layout.box.lo[a];
    local_n_out[a] = out.layout.box.extent(a);
    local_start_out[a] = out.layout.box.lo[a];
  }
  return fm::local_alloc(p, rank, ranks);
}

Handle XM(plan_many_transpose)(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t howmany, ptrdiff_t block0, ptrdiff_t block1,
                               R* in, R* out, MPI_Comm comm, unsigned flags) {
  fm::Request r;
  r.problem = problem(fm::Kind::dft, 2, std::vector<ptrdiff_t>{n0, n1}.data(), howmany, block0, block1, 0);
  r.transpose_only = true;
  r.flags = flags;
  r.in = in;
  r.out = out;
  r.comm = comm;
  r.call = XS "mpi_plan_many_transpose";
  return make(r);
}
Handle XM(plan_transpose)(ptrdiff_t n0, ptrdiff_t n1, R* in, R* out, MPI_Comm comm, unsigned flags) {
  return XM(plan_many_transpose)(n0, n1, 1, 0, 0, in, out, comm, flags);
}

Handle XM(plan_many_dft)(int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t block, ptrdiff_t tblock, C* in,
                         C* out, MPI_Comm comm, int sign, unsigned flags) {
  fm::Request r;
  r.problem = problem(fm::Kind::dft, rnk, n, howmany, block, tblock, flags);
  if (rnk == 1) r.problem.transposed_in = r.problem.transposed_out = false;
  r.problem.backward = sign == FFTW_BACKWARD;
  r.sign = sign;
  r.flags = flags;
  r.in = in;
  r.out = out;
  r.comm = comm;
  r.call = XS "mpi_plan_many_dft";
  return make(r);
}
Handle XM(plan_dft)(int rnk, const ptrdiff_t* n, C* in, C* out, MPI_Comm comm, int sign, unsigned flags) {
  return XM(plan_many_dft)(rnk, n, 1, 0, 0, in, out, comm, sign, flags);
}
Handle XM(plan_dft_1d)(ptrdiff_t n0, C* in, C* out, MPI_Comm comm, int sign, unsigned flags) {
  return XM(plan_dft)(1, &n0, in, out, comm, sign, flags);
}
Handle XM(plan_dft_2d)(ptrdiff_t n0, ptrdiff_t n1, C* in, C* out, MPI_Comm comm, int sign, unsigned flags) {
  const ptrdiff_t n[2] = {n0, n1};
  return XM(plan_dft)(2, n, in, out, comm, sign, flags);
}
Handle XM(plan_dft_3d)(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, C* in, C* out, MPI_Comm comm, int sign,
                       unsigned flags) {
  const ptrdiff_t n[3] = {n0, n1, n2};
  return XM(plan_dft)(3, n, in, out, comm, sign, flags);
}
Handle XM(plan_guru_dft)(int rnk, const XM(ddim) * dims, ptrdiff_t howmany, C* in, C* out, MPI_Comm comm, int sign,
                         unsigned flags) {
  ptrdiff_t bi = 0, bo = 0;
  bool tout = false;
  if (!guru_blocks(rnk, dims, bi, bo, tout)) {
    if (fm::verbose()) fm::say(XS "mpi_plan_guru_dft: only block distributions along one axis per side are supported; no plan");
    return nullptr;
  }
  const auto n = guru_sizes(rnk, dims);
  return XM(plan_many_dft)(rnk, n.data(), howmany, bi, bo, in, out, comm, sign,
                           (flags & ~FFTW_MPI_TRANSPOSED_OUT) | (tout ? FFTW_MPI_TRANSPOSED_OUT : 0));
}

Handle XM(plan_many_r2r)(int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t iblock, ptrdiff_t oblock, R* in,
                         R* out, MPI_Comm comm, const X(r2r_kind) * kind, unsigned flags) {
  fm::Request r;
  r.problem = problem(fm::Kind::r2r, rnk, n, howmany, iblock, oblock, flags);
  if (rnk == 1) r.problem.transposed_in = r.problem.transposed_out = false;
  if (kind != nullptr)
    for (int a = 0; a < rnk; ++a) r.r2r_kinds.push_back(static_cast<int>(kind[a]));
  r.flags = flags;
  r.in = in;
  r.out = out;
  r.comm = comm;
  r.call = XS "mpi_plan_many_r2r";
  return make(r);
}
Handle XM(plan_r2r)(int rnk, const ptrdiff_t* n, R* in, R* out, MPI_Comm comm, const X(r2r_kind) * kind,
                    unsigned flags) {
  return XM(plan_many_r2r)(rnk, n, 1, 0, 0, in, out, comm, kind, flags);
}
Handle XM(plan_r2r_2d)(ptrdiff_t n0, ptrdiff_t n1, R* in, R* out, MPI_Comm comm, X(r2r_kind) kind0,
                       X(r2r_kind) kind1, unsigned flags) {
  const ptrdiff_t n[2] = {n0, n1};
  const X(r2r_kind) k[2] = {kind0, kind1};
  return XM(plan_r2r)(2, n, in, out, comm, k, flags);
}
Handle XM(plan_r2r_3d)(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, R* in, R* out, MPI_Comm comm, X(r2r_kind) kind0,
                       X(r2r_kind) kind1, X(r2r_kind) kind2, unsigned flags) {
  const ptrdiff_t n[3] = {n0, n1, n2};
  const X(r2r_kind) k[3] = {kind0, kind1, kind2};
  return XM(plan_r2r)(3, n, in, out, comm, k, flags);
}
Handle XM(plan_guru_r2r)(int rnk, const XM(ddim) * dims, ptrdiff_t howmany, R* in, R* out, MPI_Comm comm,
                         const X(r2r_kind) * kind, unsigned flags) {
  ptrdiff_t bi = 0, bo = 0;
  bool tout = false;
  if (!guru_blocks(rnk, dims, bi, bo, tout)) {
    if (fm::verbose()) fm::say(XS "mpi_plan_guru_r2r: only block distributions along one axis per side are supported; no plan");
    return nullptr;
  }
  const auto n = guru_sizes(rnk, dims);
  return XM(plan_many_r2r)(rnk, n.data(), howmany, bi, bo, in, out, comm, kind,
                           (flags & ~FFTW_MPI_TRANSPOSED_OUT) | (tout ? FFTW_MPI_TRANSPOSED_OUT : 0));
}

}  // extern "C"

namespace {
Handle real_dft(fm::Kind kind, int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t iblock, ptrdiff_t oblock,
                void* in, void* out, MPI_Comm comm, unsigned flags, const char* call) {
  fm::Request r;
  r.problem = problem(kind, rnk, n, howmany, iblock, oblock, flags);
  r.flags = flags;
  r.in = in;
  r.out = out;
  r.comm = comm;
  r.call = call;
  return make(r);
}
}  // namespace

extern "C" {

Handle XM(plan_many_dft_r2c)(int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t iblock, ptrdiff_t oblock,
                             R* in, C* out, MPI_Comm comm, unsigned flags) {
  return real_dft(fm::Kind::r2c, rnk, n, howmany, iblock, oblock, in, out, comm, flags, XS "mpi_plan_many_dft_r2c");
}
Handle XM(plan_dft_r2c)(int rnk, const ptrdiff_t* n, R* in, C* out, MPI_Comm comm, unsigned flags) {
  return XM(plan_many_dft_r2c)(rnk, n, 1, 0, 0, in, out, comm, flags);
}
Handle XM(plan_dft_r2c_2d)(ptrdiff_t n0, ptrdiff_t n1, R* in, C* out, MPI_Comm comm, unsigned flags) {
  const ptrdiff_t n[2] = {n0, n1};
  return XM(plan_dft_r2c)(2, n, in, out, comm, flags);
}
Handle XM(plan_dft_r2c_3d)(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, R* in, C* out, MPI_Comm comm, unsigned flags) {
  const ptrdiff_t n[3] = {n0, n1, n2};
  return XM(plan_dft_r2c)(3, n, in, out, comm, flags);
}
Handle XM(plan_many_dft_c2r)(int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t iblock, ptrdiff_t oblock,
                             C* in, R* out, MPI_Comm comm, unsigned flags) {
  return real_dft(fm::Kind::c2r, rnk, n, howmany, iblock, oblock, in, out, comm, flags, XS "mpi_plan_many_dft_c2r");
}
Handle XM(plan_dft_c2r)(int rnk, const ptrdiff_t* n, C* in, R* out, MPI_Comm comm, unsigned flags) {
  return XM(plan_many_dft_c2r)(rnk, n, 1, 0, 0, in, out, comm, flags);
}
Handle XM(plan_dft_c2r_2d)(ptrdiff_t n0, ptrdiff_t n1, C* in, R* out, MPI_Comm comm, unsigned flags) {
  const ptrdiff_t n[2] = {n0, n1};
  return XM(plan_dft_c2r)(2, n, in, out, comm, flags);
}
Handle XM(plan_dft_c2r_3d)(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, C* in, R* out, MPI_Comm comm, unsigned flags) {
  const ptrdiff_t n[3] = {n0, n1, n2};
  return XM(plan_dft_c2r)(3, n, in, out, comm, flags);
}

// Wisdom: FFTW's own serial wisdom (the local FFTs of dfft's plans are FFTW plans), moved as
// FFTW's text between the ranks.
void XM(gather_wisdom)(MPI_Comm comm) {
  const int rank = comm_rank(comm), ranks = comm_size(comm);
  char* mine = X(export_wisdom_to_string)();
  int len = mine ? static_cast<int>(std::strlen(mine)) + 1 : 0;
  std::vector<int> lens(static_cast<std::size_t>(ranks));
  MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, comm);
  std::vector<int> displs(static_cast<std::size_t>(ranks), 0);
  int total = 0;
  for (int r = 0; r < ranks; ++r) {
    displs[static_cast<std::size_t>(r)] = total;
    total += lens[static_cast<std::size_t>(r)];
  }
  std::vector<char> all(rank == 0 ? static_cast<std::size_t>(total) + 1 : 1);
  MPI_Gatherv(mine, len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0, comm);
  if (rank == 0)
    for (int r = 1; r < ranks; ++r)
      if (lens[static_cast<std::size_t>(r)] > 0) X(import_wisdom_from_string)(all.data() + displs[static_cast<std::size_t>(r)]);
  X(free)(mine);
}
void XM(broadcast_wisdom)(MPI_Comm comm) {
  const int rank = comm_rank(comm);
  char* text = rank == 0 ? X(export_wisdom_to_string)() : nullptr;
  int len = text ? static_cast<int>(std::strlen(text)) + 1 : 0;
  MPI_Bcast(&len, 1, MPI_INT, 0, comm);
  std::vector<char> buf(static_cast<std::size_t>(len) + 1, '\0');
  if (rank == 0 && text) std::memcpy(buf.data(), text, static_cast<std::size_t>(len));
  MPI_Bcast(buf.data(), len, MPI_CHAR, 0, comm);
  if (rank != 0 && len > 0) X(import_wisdom_from_string)(buf.data());
  if (text) X(free)(text);
}

void XM(execute_dft)(Handle p, C* in, C* out) { X(execute_dft)(p, in, out); }
void XM(execute_dft_r2c)(Handle p, R* in, C* out) { X(execute_dft_r2c)(p, in, out); }
void XM(execute_dft_c2r)(Handle p, C* in, R* out) { X(execute_dft_c2r)(p, in, out); }
void XM(execute_r2r)(Handle p, R* in, R* out) { X(execute_r2r)(p, in, out); }

// The serial names: dfft's plans here, every other plan to FFTW.
void X(execute)(const Handle p) {
  if (auto* m = ours(p)) return m->execute(XS "execute");
  FFTW_NEXT(execute, p);
}
void X(destroy_plan)(Handle p) {
  if (auto* m = ours(p)) return m->destroy(XS "destroy_plan");
  FFTW_NEXT(destroy_plan, p);
}
void X(execute_dft)(const Handle p, C* in, C* out) {
  if (auto* m = ours(p)) return m->execute(in, out, XS "execute_dft");
  FFTW_NEXT(execute_dft, p, in, out);
}
void X(execute_dft_r2c)(const Handle p, R* in, C* out) {
  if (auto* m = ours(p)) return m->execute(in, out, XS "execute_dft_r2c");
  FFTW_NEXT(execute_dft_r2c, p, in, out);
}
void X(execute_dft_c2r)(const Handle p, C* in, R* out) {
  if (auto* m = ours(p)) return m->execute(in, out, XS "execute_dft_c2r");
  FFTW_NEXT(execute_dft_c2r, p, in, out);
}
void X(execute_r2r)(const Handle p, R* in, R* out) {
  if (auto* m = ours(p)) return m->execute(in, out, XS "execute_r2r");
  FFTW_NEXT(execute_r2r, p, in, out);
}
void X(execute_split_dft)(const Handle p, R* ri, R* ii, R* ro, R* io) {
  if (ours(p)) return fm::say(XS "execute_split_dft: dfft's MPI plans take interleaved complex arrays only; nothing is computed");
  FFTW_NEXT(execute_split_dft, p, ri, ii, ro, io);
}
void X(execute_split_dft_r2c)(const Handle p, R* in, R* ro, R* io) {
  if (ours(p)) return fm::say(XS "execute_split_dft_r2c: dfft's MPI plans take interleaved complex arrays only; nothing is computed");
  FFTW_NEXT(execute_split_dft_r2c, p, in, ro, io);
}
void X(execute_split_dft_c2r)(const Handle p, R* ri, R* ii, R* out) {
  if (ours(p)) return fm::say(XS "execute_split_dft_c2r: dfft's MPI plans take interleaved complex arrays only; nothing is computed");
  FFTW_NEXT(execute_split_dft_c2r, p, ri, ii, out);
}
void X(flops)(const Handle p, double* add, double* mul, double* fmas) {
  if (auto* m = ours(p)) {
    // FFTW's convention counts the whole as additions and multiplications, half each.
    const double f = m->flops();
    *add = f / 2;
    *mul = f / 2;
    *fmas = 0;
    return;
  }
  FFTW_NEXT(flops, p, add, mul, fmas);
}
double X(cost)(const Handle p) {
  if (ours(p)) return 0;  // nothing was measured by FFTW's planner
  FFTW_NEXT(cost, p);
  return 0;
}
double X(estimate_cost)(const Handle p) {
  if (auto* m = ours(p)) return m->flops();
  FFTW_NEXT(estimate_cost, p);
  return 0;
}
void X(fprint_plan)(const Handle p, FILE* f) {
  if (auto* m = ours(p)) {
    std::fputs(m->describe().c_str(), f);
    return;
  }
  FFTW_NEXT(fprint_plan, p, f);
}
void X(print_plan)(const Handle p) { X(fprint_plan)(p, stdout); }
char* X(sprint_plan)(const Handle p) {
  if (auto* m = ours(p)) {
    const std::string s = m->describe();
    // FFTW's caller frees the text with free().
    char* t = static_cast<char*>(std::malloc(s.size() + 1));
    if (t) std::memcpy(t, s.c_str(), s.size() + 1);
    return t;
  }
  FFTW_NEXT(sprint_plan, p);
  return nullptr;
}

}  // extern "C"
