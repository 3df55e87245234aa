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

}  // namespace dfft::detail
