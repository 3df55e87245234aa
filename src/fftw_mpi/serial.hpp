// SPDX-License-Identifier: MIT
// The serial FFTW library behind this one. This library defines some of FFTW's serial names
// (fftw_execute, fftw_destroy_plan, ...) so that applications can run and free MPI plans with
// them; every plan that is not dfft's goes on to the definition that follows this library in the
// process's lookup order: FFTW's own.
#pragma once

namespace dfft::fftw_mpi::serial {

/// The next definition of `name` after this library (FFTW's), or a message and nullptr.
void* next(const char* name);
/// Threads FFTW plans with (fftw_plan_with_nthreads), or 1 without FFTW's threads library.
int planner_nthreads();

}  // namespace dfft::fftw_mpi::serial
