// SPDX-License-Identifier: MIT
#include "output_target.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "cli_common.hpp"
#include "dfft/io.hpp"

namespace dfftapp {

namespace {

// Why `out` must not be written, or "" when it may.
std::string output_refusal(const std::string& in, const std::string& out, bool in_place) {
  struct stat o {}, i {};
  if (lstat(out.c_str(), &o) != 0) {
    if (in_place) return "--in-place needs an existing regular file '" + out + "'";
    // A new file: its folder must exist and take it, or the run would fail at its end.
    const auto slash = out.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : out.substr(0, slash);
    struct stat d {};
    if (::stat(dir.c_str(), &d) != 0 || !S_ISDIR(d.st_mode))
      return "cannot write '" + out + "': there is no folder '" + dir + "'";
    if (::access(dir.c_str(), W_OK) != 0)
      return "cannot write '" + out + "': folder '" + dir + "': " + std::strerror(errno);
    return "";
  }
  std::string why = dfft::io::output_refusal(out);
  if (!why.empty()) return S_ISLNK(o.st_mode) || S_ISDIR(o.st_mode) ? why : why + "; OUT must be a new or regular .npy file";
  if (stat(in.c_str(), &i) == 0 && i.st_dev == o.st_dev && i.st_ino == o.st_ino)
    return "refusing to write '" + out + "': it is the input file '" + in + "'; write to another file";
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
  if (!why.empty()) throw UsageError(why);
}

std::string wisdom_target(const std::string& given, MPI_Comm comm) {
  if (given == "off") return {};
  if (!given.empty()) return given;
  const std::string path = dfft::default_wisdom_file();
  int rank = 0;
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS) throw IoError("MPI_Comm_rank failed");
  const auto slash = path.rfind('/');
  if (rank == 0 && slash != std::string::npos && slash > 0) {
    const std::string dir = path.substr(0, slash);
    // mkdir -p; a folder that cannot be made is reported by the check of the target.
    for (std::size_t i = 1; i <= dir.size(); ++i)
      if (i == dir.size() || dir[i] == '/') ::mkdir(dir.substr(0, i).c_str(), 0755);
  }
  return path;
}

dfft::Wisdom check_wisdom_target(const std::string& path, MPI_Comm comm) {
  check_output_target("", path, false, comm);
  int rank = 0, exists = 0;
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS) throw IoError("MPI_Comm_rank failed");
  if (rank == 0) exists = ::access(path.c_str(), F_OK) == 0;
  if (MPI_Bcast(&exists, 1, MPI_INT, 0, comm) != MPI_SUCCESS) throw IoError("MPI_Bcast failed");
  if (!exists) return {};  // created on write
  const std::string text = read_input(path, "wisdom file", comm);
  try {
    return dfft::parse_wisdom(text);
  } catch (const dfft::Error& e) {
    throw InputError("refusing wisdom file '" + path + "': " + message_of(e) +
                     "; it is left as it was: name a dfft wisdom file or a new path");
  }
}

}  // namespace dfftapp
