// SPDX-License-Identifier: MIT
// One outcome on every rank: a step that may fail on some ranks only (a file that one rank cannot
// open, a bad box on one rank) is followed by agree(), which makes every rank throw the error of
// the lowest failing rank, so that none goes on into a collective the others have left.
#pragma once

#include <mpi.h>

#include <exception>

namespace dfft::io::detail {

/// Collective. Returns when no rank holds an error; otherwise every rank throws the lowest
/// failing rank's error: that rank rethrows its own, the others a dfft::Error of the same class
/// with its call, code, rank and message.
void agree(MPI_Comm comm, const std::exception_ptr& mine);

/// Runs `f` on this rank, then agree() on its outcome.
template <class F>
void on_every_rank(MPI_Comm comm, F&& f) {
  std::exception_ptr err;
  try {
    f();
  } catch (...) {
    err = std::current_exception();
  }
  agree(comm, err);
}

}  // namespace dfft::io::detail
