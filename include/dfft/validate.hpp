// SPDX-License-Identifier: MIT
// Built-in validation (used by the tests and `dfft bench --validate`):
//  (a) reference: forward transform of pseudo-random data vs a serial FFTW transform of the same
//      global array computed in double precision, relative L2 error;
//  (b) round trip: inverse(forward(x)) / N vs x, relative L2 error;
//  (c) Laplacian (thesis 2.6): spectral Laplacian of a smooth periodic trigonometric function
//      vs its analytic Laplacian, relative L2 error.
// All are collective over the plan's communicator and return the same value on every rank.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <limits>

#include "dfft/dfft.hpp"

namespace dfft::validate {

/// Pseudo-random value in [-1, 1) for global linear index `i` (independent of distribution).
double random_value(std::uint64_t i, std::uint64_t seed);

/// NaN when a check cannot run (reference too large to compute serially, Laplacian on axes
/// shorter than 7 points, reference and Laplacian of a plan with DCT/DST axes: both are
/// periodic FFTs). The round trip runs for every plan, r2r included.
constexpr double not_run = std::numeric_limits<double>::quiet_NaN();

template <class T>
double reference_error(Plan<T>& plan, MPI_Comm comm, std::int64_t max_serial_elements = 1 << 26);
template <class T>
double roundtrip_error(Plan<T>& plan, MPI_Comm comm);
template <class T>
double laplacian_error(Plan<T>& plan, MPI_Comm comm);

}  // namespace dfft::validate
