// SPDX-License-Identifier: MIT
// Return-code checks: every failing MPI/FFTW call becomes a dfft::Error naming call, code, rank;
// each failure kind throws its own class (dfft/types.hpp).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "dfft/types.hpp"

namespace dfft::detail {

/// World rank of this process, or -1 before MPI_Init.
int world_rank();

[[noreturn]] void throw_mpi(const char* call, int code);
[[noreturn]] void throw_input(const std::string& what);
[[noreturn]] void throw_unsupported(const std::string& what);
[[noreturn]] void throw_internal(const std::string& what);
/// Throws the class that `status` names (a rank reporting another rank's failure of that kind);
/// a LibraryError names `lib`.
[[noreturn]] void throw_as(Status status, const std::string& what,
                           LibraryError::Library lib = LibraryError::Library::cuda);
/// The status of the exception `e` holds (internal for one that is not a dfft::Error).
Status status_of(const std::exception_ptr& e);

/// Collective failure, so that every rank of comm throws, never only some: every rank learns
/// whether any holds an error; the failing ranks rethrow their own, the others throw one of the
/// same class naming the first failing rank ("<what> failed on rank r").
void agree(MPI_Comm comm, const std::exception_ptr& err, const char* what);
/// Runs local (non-collective) work `f`, then agree().
template <class F>
void collectively(MPI_Comm comm, const char* what, F f) {
  std::exception_ptr err;
  try {
    f();
  } catch (...) {
    err = std::current_exception();
  }
  agree(comm, err, what);
}

inline void check_mpi(int code, const char* call) {
  if (code != MPI_SUCCESS) throw_mpi(call, code);
}

template <class... A>
std::string concat(const A&... parts) {
  std::ostringstream s;
  (s << ... << parts);
  return s.str();
}

/// Seconds as milliseconds to three significant digits ("9.28 ms"), as describe() texts print
/// times.
inline std::string ms_text(double seconds) {
  std::ostringstream o;
  o.precision(3);
  o << seconds * 1e3 << " ms";
  return o.str();
}

/// FFT axes as describe() texts print them: "1,2".
inline std::string axes_text(const std::vector<int>& axes) {
  std::string s;
  for (int a : axes) s += (s.empty() ? "" : ",") + std::to_string(a);
  return s;
}

/// Bad input (InvalidArgument), from stream-able parts: fail("grid ", g, " has ", n, " ranks").
template <class... A>
[[noreturn]] void fail(const A&... parts) {
  throw_input(concat(parts...));
}

/// Valid input this build, backend or method combination cannot run (Unsupported).
template <class... A>
[[noreturn]] void unsupported(const A&... parts) {
  throw_unsupported(concat(parts...));
}

/// A broken invariant of dfft itself (a plain Error, Status::internal).
template <class... A>
[[noreturn]] void fail_internal(const A&... parts) {
  throw_internal(concat("internal: ", parts...));
}

/// The message of a failed library call: "dfft: <parts> (<call>, rank r)".
template <class... A>
std::string call_message(const char* call, const A&... parts) {
  return concat("dfft: ", parts..., " (", call, ", rank ", world_rank(), ")");
}

/// A failed library call that has no MPI code (FFTW planning): a LibraryError naming `call`.
template <class... A>
[[noreturn]] void fail_library(LibraryError::Library lib, const char* call, long code, const A&... parts) {
  throw LibraryError(lib, call, code, world_rank(), call_message(call, parts...));
}

/// A failed allocation of `bytes` (fftw_malloc, cudaMalloc, ...): an OutOfMemory naming `call`.
template <class... A>
[[noreturn]] void fail_alloc(const char* call, long code, std::int64_t bytes, const A&... parts) {
  throw OutOfMemory(call, code, world_rank(), call_message(call, parts...), bytes, 0);
}

}  // namespace dfft::detail

#define DFFT_MPI(call) ::dfft::detail::check_mpi((call), #call)
