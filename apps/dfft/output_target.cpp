// SPDX-License-Identifier: MIT
#include "output_target.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "dfft/io.hpp"

namespace dfftapp {

namespace {

// Why `out` must not be written, or "" when it may.
std::string output_refusal(const std::string& in, const std::string& out, bool in_place) {
  struct stat o {}, i {};
  if (lstat(out.c_str(), &o) != 0)
    return in_place ? "--in-place needs an existing regular file '" + out + "'" : "";
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
  if (!why.empty()) throw IoError(why);
}

OutputFile::~OutputFile() { discard(); }

bool OutputFile::open(const std::string& path, std::string& why) {
  discard();
  path_ = path;
  error_.clear();
  why = dfft::io::output_refusal(path);
  if (!why.empty()) return false;
  tmp_ = path + ".dfft-tmp";
  // One left by a killed run goes (unlink removes a link planted there, not its target); the new
  // one is created exclusively, so nothing at that name is written through.
  if (::unlink(tmp_.c_str()) != 0 && errno != ENOENT) {
    why = "cannot write '" + path + "': cannot remove '" + tmp_ + "': " + std::strerror(errno);
    return false;
  }
  fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd_ < 0) {
    why = "cannot write '" + path + "': cannot create '" + tmp_ + "': " + std::strerror(errno);
    return false;
  }
  return true;
}

void OutputFile::fail(const std::string& what, int err) {
  if (error_.empty())
    error_ = "cannot write '" + path_ + "': " + what + ": " + std::strerror(err) + "; '" + path_ + "' is left as it was";
}

void OutputFile::write(const std::string& text) {
  if (fd_ < 0 || !error_.empty()) return;
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail("write", n < 0 ? errno : ENOSPC);  // 0 bytes written: no space left
    done += static_cast<std::size_t>(n);
  }
}

bool OutputFile::commit() {
  if (fd_ < 0) return error_.empty();
  if (error_.empty() && ::fsync(fd_) != 0) fail("fsync", errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("close", errno);
  if (error_.empty() && std::rename(tmp_.c_str(), path_.c_str()) != 0) fail("rename from '" + tmp_ + "'", errno);
  if (!error_.empty()) std::remove(tmp_.c_str());
  tmp_.clear();
  return error_.empty();
}

void OutputFile::discard() {
  if (fd_ < 0) return;
  ::close(fd_);
  fd_ = -1;
  std::remove(tmp_.c_str());
  tmp_.clear();
}

}  // namespace dfftapp
