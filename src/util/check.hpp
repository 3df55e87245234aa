// SPDX-License-Identifier: MIT
// Return-code checks: every failing MPI/FFTW call becomes a dfft::Error naming call, code, rank.
#pragma once

#include <mpi.h>

#include <sstream>
#include <string>

#include "dfft/types.hpp"

namespace dfft::detail {

/// World rank of this process, or -1 before MPI_Init.
int world_rank();

[[noreturn]] void throw_mpi(const char* call, int code);
[[noreturn]] void throw_input(const std::string& what);

inline void check_mpi(int code, const char* call) {
  if (code != MPI_SUCCESS) throw_mpi(call, code);
}

/// Build a message from stream-able parts: fail("grid ", g, " has ", n, " ranks").
template <class... A>
[[noreturn]] void fail(const A&... parts) {
  std::ostringstream s;
  (s << ... << parts);
  throw_input(s.str());
}

/// A failed library call that has no MPI code (FFTW planning, host allocation): an Error naming
/// `call` with `code`, built like fail()'s message.
template <class... A>
[[noreturn]] void fail_call(const char* call, long code, const A&... parts) {
  std::ostringstream s;
  s << "dfft: ";
  (s << ... << parts);
  s << " (" << call << ", rank " << world_rank() << ")";
  throw Error(call, code, world_rank(), s.str());
}

}  // namespace dfft::detail

#define DFFT_MPI(call) ::dfft::detail::check_mpi((call), #call)
