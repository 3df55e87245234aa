// SPDX-License-Identifier: MIT
#include "util/check.hpp"

#include <climits>
#include <new>

namespace dfft {

Error::Error(std::string call, long code, int rank, const std::string& what, Status status)
    : std::runtime_error(what), call_(std::move(call)), code_(code), rank_(rank), status_(status) {}

std::string to_string(LibraryError::Library l) {
  switch (l) {
    case LibraryError::Library::fftw: return "FFTW";
    case LibraryError::Library::cuda: return "CUDA";
    case LibraryError::Library::cufft: return "cuFFT";
    case LibraryError::Library::nccl: return "NCCL";
    case LibraryError::Library::system: return "system";
  }
  return "?";
}

std::string to_string(Status s) {
  switch (s) {
    case Status::success: return "success";
    case Status::invalid_argument: return "invalid argument";
    case Status::mpi_error: return "MPI error";
    case Status::library_error: return "library error";
    case Status::out_of_memory: return "out of memory";
    case Status::internal: return "internal error";
    case Status::unsupported: return "unsupported";
  }
  return "?";
}

namespace detail {

int world_rank() {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (!init || fin) return -1;
  int r = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

void throw_mpi(const char* call, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) len = 0;
  std::ostringstream s;
  int r = world_rank();
  s << "dfft: " << call << " failed with code " << code << " (" << std::string(text, len)
    << ") on rank " << r;
  throw MpiError(call, code, r, s.str());
}

void throw_input(const std::string& what) { throw InvalidArgument("plan", world_rank(), "dfft: " + what); }

void throw_unsupported(const std::string& what) { throw Unsupported("plan", world_rank(), "dfft: " + what); }

void throw_internal(const std::string& what) {
  const int r = world_rank();
  throw Error("plan", 0, r, "dfft: " + what, Status::internal);
}

void throw_as(Status status, const std::string& what, LibraryError::Library lib) {
  const int r = world_rank();
  const std::string m = "dfft: " + what;
  switch (status) {
    case Status::invalid_argument: throw InvalidArgument("plan", r, m);
    case Status::unsupported: throw Unsupported("plan", r, m);
    case Status::out_of_memory: throw OutOfMemory("plan", 0, r, m);
    case Status::mpi_error: throw MpiError("plan", 0, r, m);
    case Status::library_error: throw LibraryError(lib, "plan", 0, r, m);
    default: throw Error("plan", 0, r, m, Status::internal);
  }
}

Status status_of(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const Error& x) {
    return x.status();
  } catch (const std::bad_alloc&) {
    return Status::out_of_memory;
  } catch (...) {
    return Status::internal;
  }
}

void agree(MPI_Comm comm, const std::exception_ptr& err, const char* what) {
  int r = 0;
  check_mpi(MPI_Comm_rank(comm, &r), "MPI_Comm_rank");
  // MPI_MINLOC on (rank, status): the lowest failing rank and the kind of its failure.
  int mine[2] = {err ? r : INT_MAX, err ? static_cast<int>(status_of(err)) : 0}, first[2] = {0, 0};
  check_mpi(MPI_Allreduce(mine, first, 1, MPI_2INT, MPI_MINLOC, comm), "MPI_Allreduce");
  if (first[0] == INT_MAX) return;
  if (err) std::rethrow_exception(err);
  throw_as(static_cast<Status>(first[1]),
           concat(what, " failed on rank ", first[0], " of this exchange's communicator (that rank reports why)"));
}

}  // namespace detail
}  // namespace dfft
