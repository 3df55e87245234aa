/* SPDX-License-Identifier: MIT */
/* Failures of one MPI call and one FFTW call, armed on demand, for the interface tests: a C or
 * Fortran test program links fault_hooks.c, so that the (static) dfft library's calls land here
 * before MPI's and FFTW's; a Python process loads it as libdfft_fault_hooks.so through
 * LD_PRELOAD and arms it through ctypes. */
#ifndef DFFT_TEST_FAULT_HOOKS_H
#define DFFT_TEST_FAULT_HOOKS_H

/* Nonzero: every MPI_Alltoallv returns MPI_ERR_OTHER without doing anything (the a2a-sync
 * exchange's call), until disarmed with 0. */
void dfft_test_fail_mpi(int on);
/* Nonzero: every fftw_plan_guru64_dft (double c2c planning) returns NULL, as FFTW does when it
 * cannot plan, until disarmed with 0. */
void dfft_test_fail_fftw(int on);

#endif
