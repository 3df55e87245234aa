// SPDX-License-Identifier: MIT
#include "util/check.hpp"

namespace dfft {

Error::Error(std::string call, long code, int rank, const std::string& what)
    : std::runtime_error(what), call_(std::move(call)), code_(code), rank_(rank) {}

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
  throw Error(call, code, r, s.str());
}

void throw_input(const std::string& what) {
  int r = world_rank();
  throw Error("plan", 0, r, "dfft: " + what);
}

}  // namespace detail
}  // namespace dfft
