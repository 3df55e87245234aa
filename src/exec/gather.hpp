// SPDX-License-Identifier: MIT
// Collective exchange of per-rank layouts (box API, Reshape).
#pragma once

#include <mpi.h>

#include <vector>

#include "dfft/types.hpp"

namespace dfft::detail {

/// Every rank's layout, in rank order. Collective; a malformed layout on any rank makes every
/// rank throw the same dfft::Error.
std::vector<Layout> allgather_layouts(MPI_Comm comm, const Layout& mine, int d);

/// The number of dimensions every rank's boxes have (collective); InvalidArgument on every rank
/// when the ranks disagree or it is below 1.
int common_dims(MPI_Comm comm, int d);

/// The global shape the boxes of `ls` tile (the extent of their union), checked as a tiling
/// (check_tiling, naming `what`).
std::vector<std::int64_t> tiled_shape(const std::vector<Layout>& ls, const char* what);

}  // namespace dfft::detail
