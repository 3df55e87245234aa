// SPDX-License-Identifier: MIT
// The Fortran 2003 entry points of FFTW's MPI interface (fftw3-mpi.f03 binds them with
// bind(C, name='fftw_mpi_..._f03')): the same functions with the communicator as a Fortran
// handle. Compiled per precision beside api.cpp.
#include <fftw3-mpi.h>

#ifdef DFFT_FFTW_MPI_FLOAT
#define XM(name) fftwf_mpi_##name
#define X(name) fftwf_##name
using R = float;
#else
#define XM(name) fftw_mpi_##name
#define X(name) fftw_##name
using R = double;
#endif
using C = R[2];
using Handle = X(plan);

// One wrapper per function: the Fortran name takes MPI_Fint where the C one takes MPI_Comm.
#define F03(ret, name, params, args) \
  ret XM(name##_f03) params;         \
  ret XM(name##_f03) params { return XM(name) args; }
#define COMM MPI_Comm_f2c(f_comm)

extern "C" {
F03(ptrdiff_t, local_size_many_transposed,
    (int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t block0, ptrdiff_t block1, MPI_Fint f_comm,
     ptrdiff_t* local_n0, ptrdiff_t* local_0_start, ptrdiff_t* local_n1, ptrdiff_t* local_1_start),
    (rnk, n, howmany, block0, block1, COMM, local_n0, local_0_start, local_n1, local_1_start))
F03(ptrdiff_t, local_size_many,
    (int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t block0, MPI_Fint f_comm, ptrdiff_t* local_n0,
     ptrdiff_t* local_0_start),
    (rnk, n, howmany, block0, COMM, local_n0, local_0_start))
F03(ptrdiff_t, local_size_transposed,
    (int rnk, const ptrdiff_t* n, MPI_Fint f_comm, ptrdiff_t* local_n0, ptrdiff_t* local_0_start,
     ptrdiff_t* local_n1, ptrdiff_t* local_1_start),
    (rnk, n, COMM, local_n0, local_0_start, local_n1, local_1_start))
F03(ptrdiff_t, local_size, (int rnk, const ptrdiff_t* n, MPI_Fint f_comm, ptrdiff_t* local_n0, ptrdiff_t* local_0_start),
    (rnk, n, COMM, local_n0, local_0_start))
F03(ptrdiff_t, local_size_many_1d,
    (ptrdiff_t n0, ptrdiff_t howmany, MPI_Fint f_comm, int sign, unsigned flags, ptrdiff_t* local_ni,
     ptrdiff_t* local_i_start, ptrdiff_t* local_no, ptrdiff_t* local_o_start),
    (n0, howmany, COMM, sign, flags, local_ni, local_i_start, local_no, local_o_start))
F03(ptrdiff_t, local_size_1d,
    (ptrdiff_t n0, MPI_Fint f_comm, int sign, unsigned flags, ptrdiff_t* local_ni, ptrdiff_t* local_i_start,
     ptrdiff_t* local_no, ptrdiff_t* local_o_start),
    (n0, COMM, sign, flags, local_ni, local_i_start, local_no, local_o_start))
F03(ptrdiff_t, local_size_2d, (ptrdiff_t n0, ptrdiff_t n1, MPI_Fint f_comm, ptrdiff_t* local_n0, ptrdiff_t* local_0_start),
    (n0, n1, COMM, local_n0, local_0_start))
F03(ptrdiff_t, local_size_2d_transposed,
    (ptrdiff_t n0, ptrdiff_t n1, MPI_Fint f_comm, ptrdiff_t* local_n0, ptrdiff_t* local_0_start, ptrdiff_t* local_n1,
     ptrdiff_t* local_1_start),
    (n0, n1, COMM, local_n0, local_0_start, local_n1, local_1_start))
F03(ptrdiff_t, local_size_3d,
    (ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, MPI_Fint f_comm, ptrdiff_t* local_n0, ptrdiff_t* local_0_start),
    (n0, n1, n2, COMM, local_n0, local_0_start))
F03(ptrdiff_t, local_size_3d_transposed,
    (ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, MPI_Fint f_comm, ptrdiff_t* local_n0, ptrdiff_t* local_0_start,
     ptrdiff_t* local_n1, ptrdiff_t* local_1_start),
    (n0, n1, n2, COMM, local_n0, local_0_start, local_n1, local_1_start))
F03(Handle, plan_many_transpose,
    (ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t howmany, ptrdiff_t block0, ptrdiff_t block1, R* in, R* out,
     MPI_Fint f_comm, unsigned flags),
    (n0, n1, howmany, block0, block1, in, out, COMM, flags))
F03(Handle, plan_transpose, (ptrdiff_t n0, ptrdiff_t n1, R* in, R* out, MPI_Fint f_comm, unsigned flags),
    (n0, n1, in, out, COMM, flags))
F03(Handle, plan_many_dft,
    (int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t block, ptrdiff_t tblock, C* in, C* out,
     MPI_Fint f_comm, int sign, unsigned flags),
    (rnk, n, howmany, block, tblock, in, out, COMM, sign, flags))
F03(Handle, plan_dft, (int rnk, const ptrdiff_t* n, C* in, C* out, MPI_Fint f_comm, int sign, unsigned flags),
    (rnk, n, in, out, COMM, sign, flags))
F03(Handle, plan_dft_1d, (ptrdiff_t n0, C* in, C* out, MPI_Fint f_comm, int sign, unsigned flags),
    (n0, in, out, COMM, sign, flags))
F03(Handle, plan_dft_2d, (ptrdiff_t n0, ptrdiff_t n1, C* in, C* out, MPI_Fint f_comm, int sign, unsigned flags),
    (n0, n1, in, out, COMM, sign, flags))
F03(Handle, plan_dft_3d,
    (ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, C* in, C* out, MPI_Fint f_comm, int sign, unsigned flags),
    (n0, n1, n2, in, out, COMM, sign, flags))
F03(Handle, plan_many_r2r,
    (int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t iblock, ptrdiff_t oblock, R* in, R* out,
     MPI_Fint f_comm, const X(r2r_kind) * kind, unsigned flags),
    (rnk, n, howmany, iblock, oblock, in, out, COMM, kind, flags))
F03(Handle, plan_r2r,
    (int rnk, const ptrdiff_t* n, R* in, R* out, MPI_Fint f_comm, const X(r2r_kind) * kind, unsigned flags),
    (rnk, n, in, out, COMM, kind, flags))
F03(Handle, plan_r2r_2d,
    (ptrdiff_t n0, ptrdiff_t n1, R* in, R* out, MPI_Fint f_comm, X(r2r_kind) kind0, X(r2r_kind) kind1,
     unsigned flags),
    (n0, n1, in, out, COMM, kind0, kind1, flags))
F03(Handle, plan_r2r_3d,
    (ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, R* in, R* out, MPI_Fint f_comm, X(r2r_kind) kind0,
     X(r2r_kind) kind1, X(r2r_kind) kind2, unsigned flags),
    (n0, n1, n2, in, out, COMM, kind0, kind1, kind2, flags))
F03(Handle, plan_many_dft_r2c,
    (int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t iblock, ptrdiff_t oblock, R* in, C* out,
     MPI_Fint f_comm, unsigned flags),
    (rnk, n, howmany, iblock, oblock, in, out, COMM, flags))
F03(Handle, plan_dft_r2c, (int rnk, const ptrdiff_t* n, R* in, C* out, MPI_Fint f_comm, unsigned flags),
    (rnk, n, in, out, COMM, flags))
F03(Handle, plan_dft_r2c_2d, (ptrdiff_t n0, ptrdiff_t n1, R* in, C* out, MPI_Fint f_comm, unsigned flags),
    (n0, n1, in, out, COMM, flags))
F03(Handle, plan_dft_r2c_3d, (ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, R* in, C* out, MPI_Fint f_comm, unsigned flags),
    (n0, n1, n2, in, out, COMM, flags))
F03(Handle, plan_many_dft_c2r,
    (int rnk, const ptrdiff_t* n, ptrdiff_t howmany, ptrdiff_t iblock, ptrdiff_t oblock, C* in, R* out,
     MPI_Fint f_comm, unsigned flags),
    (rnk, n, howmany, iblock, oblock, in, out, COMM, flags))
F03(Handle, plan_dft_c2r, (int rnk, const ptrdiff_t* n, C* in, R* out, MPI_Fint f_comm, unsigned flags),
    (rnk, n, in, out, COMM, flags))
F03(Handle, plan_dft_c2r_2d, (ptrdiff_t n0, ptrdiff_t n1, C* in, R* out, MPI_Fint f_comm, unsigned flags),
    (n0, n1, in, out, COMM, flags))
F03(Handle, plan_dft_c2r_3d, (ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, C* in, R* out, MPI_Fint f_comm, unsigned flags),
    (n0, n1, n2, in, out, COMM, flags))
void XM(gather_wisdom_f03)(MPI_Fint f_comm);
void XM(gather_wisdom_f03)(MPI_Fint f_comm) { XM(gather_wisdom)(COMM); }
void XM(broadcast_wisdom_f03)(MPI_Fint f_comm);
void XM(broadcast_wisdom_f03)(MPI_Fint f_comm) { XM(broadcast_wisdom)(COMM); }
}
