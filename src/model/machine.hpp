// SPDX-License-Identifier: MIT
// What machine this is, for wisdom keys and calibration records.
#pragma once

#include <mpi.h>

#include <string>

#include "dfft/types.hpp"

namespace dfft::detail {

/// The device model of rank 0, the same string on every rank: the CPU model name (from
/// /proc/cpuinfo) or the GPU name, without ordinals, so that wisdom carries over between
/// identical machines.
std::string device_model(MPI_Comm comm, Backend b, int device);
std::string host_name();
std::string utc_timestamp();
/// Rank 0's string on every rank.
std::string broadcast_string(std::string s, MPI_Comm comm);

}  // namespace dfft::detail
