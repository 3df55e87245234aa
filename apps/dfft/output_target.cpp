// SPDX-License-Identifier: MIT
#include "output_target.hpp"

#include <sys/stat.h>

namespace dfftapp {

namespace {

// Why `out` must not be written, or "" when it may.
std::string output_refusal(const std::string& in, const std::string& out, bool in_place) {
  struct stat o {}, i {};
  if (lstat(out.c_str(), &o) != 0)
    return in_place ? "--in-place needs an existing regular file '" + out + "'" : "";
  const std::string refuse = "refusing to write '" + out + "': ";
  if (S_ISLNK(o.st_mode))
    return refuse + "it is a symbolic link (name its target instead)";
  if (S_ISDIR(o.st_mode)) return refuse + "it is a directory";
  if (!S_ISREG(o.st_mode))
    return refuse + "it is not a regular file (a device, FIFO or socket); OUT must be a new or "
                    "regular .npy file";
  if (stat(in.c_str(), &i) == 0 && i.st_dev == o.st_dev && i.st_ino == o.st_ino)
    return refuse + "it is the input file '" + in + "'; write to another file";
  return "";
}

}  // namespace

void check_output_target(const std::string& in, const std::string& out, bool in_place, MPI_Comm comm) {
  int rank = 0;
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS) throw IoError("MPI_Comm_rank failed");
  std::string why = rank == 0 ? output_refusal(in, out, in_place) : std::string();
  int len = static_cast<int>(why.size());
  if (MPI_Bcast(&len, 1, MPI_INT, 0, comm) != MPI_SUCCESS) throw IoError("MPI_Bcast failed");
  why.resize(static_cast<std::size_t>(len));
  if (MPI_Bcast(why.data(), len, MPI_CHAR, 0, comm) != MPI_SUCCESS) throw IoError("MPI_Bcast failed");
  if (!why.empty()) throw IoError(why);
}

}  // namespace dfftapp
