// SPDX-License-Identifier: MIT
// The one writer of whole files (dfft/io.hpp): a temporary file beside the target, renamed onto it
// only once everything reached the disk, so that a failure never leaves a partial file.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "dfft/io.hpp"
#include "util/check.hpp"

namespace dfft::io {

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

void replace_file(const std::string& path, const std::string& text) {
  OutputFile f;
  std::string why;
  if (!f.open(path, why)) dfft::detail::fail(why);
  f.write(text);
  if (!f.commit()) dfft::detail::fail_library(LibraryError::Library::system, "write", 0, f.error());
}

}  // namespace dfft::io
