// SPDX-License-Identifier: MIT
#include "backend/cpu/fftw_wisdom.hpp"

#include <fcntl.h>
#include <fftw3.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "dfft/io.hpp"

namespace dfft::detail {

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

bool read_file(const std::string& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  text = s.str();
  return true;
}

// mkdir -p; false when the directory cannot be made.
bool make_dirs(const std::string& dir) {
  for (std::size_t i = 1; i <= dir.size(); ++i)
    if (i == dir.size() || dir[i] == '/') {
      const std::string d = dir.substr(0, i);
      if (::mkdir(d.c_str(), 0755) != 0 && errno != EEXIST) return false;
    }
  struct stat st {};
  return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Through the one writer of files (io::OutputFile): readers see the old file or the new one,
// never a partial one. The file is a cache of one rank's planner, written outside any collective:
// a failed write keeps the old file and costs only planning time later, so it is not an error.
std::string replace_cache(const std::string& path, const std::string& text) {
  io::OutputFile out;
  std::string why;
  if (!out.open(path, why)) return why;
  out.write(text);
  if (!out.commit()) return out.error();
  return {};
}

}  // namespace

std::mutex& fftw_planner_mutex() {
  static std::mutex m;
  return m;
}

std::string wisdom_dir(const Options& opt) {
  std::string dir = opt.fftw_wisdom_dir;
  if (dir.empty()) dir = env("DFFT_WISDOM_DIR");
  if (dir.empty() && !env("XDG_CACHE_HOME").empty()) dir = env("XDG_CACHE_HOME") + "/dfft";
  if (dir.empty() && !env("HOME").empty()) dir = env("HOME") + "/.cache/dfft";
  return dir;
}

std::string machine_file(const Options& opt, const std::string& prefix, const std::string& suffix) {
  const std::string dir = wisdom_dir(opt);
  if (dir.empty()) return {};
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || !host[0]) return {};
  return dir + "/" + prefix + host + suffix;
}

std::string fftw_wisdom_path(const Options& opt, bool is_double) {
  // wisdom-only reads the file too (it adds nothing to write back, and saving is skipped when
  // FFTW's wisdom did not change).
  if (opt.effort == Effort::estimate || !opt.fftw_wisdom || opt.backend != Backend::cpu) return {};
  return machine_file(opt, is_double ? "fftw-" : "fftwf-", ".wisdom");
}

FftwWisdomFile::FftwWisdomFile(std::string path, bool is_double)
    : path_(std::move(path)), is_double_(is_double) {
  if (path_.empty()) return;
  std::string text;
  if (read_file(path_, text)) import_text(text);  // FFTW refuses corrupt or foreign wisdom
  before_ = export_text();
}

std::string FftwWisdomFile::save() {
  if (path_.empty() || export_text() == before_) return {};  // planning learnt nothing new
  const std::string dir = path_.substr(0, path_.rfind('/'));
  if (!make_dirs(dir)) return "cannot create the folder '" + dir + "': " + std::strerror(errno);
  // Ranks of a node (and other programs) merge into the file one at a time.
  const int fd = ::open((path_ + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return "cannot open the lock file '" + path_ + ".lock': " + std::strerror(errno);
  std::string why;
  if (::flock(fd, LOCK_EX) == 0) {
    std::string text;
    if (read_file(path_, text)) import_text(text);  // what others wrote since we read it
    why = replace_cache(path_, export_text());
    before_ = export_text();
    ::flock(fd, LOCK_UN);
  } else {
    why = "cannot lock '" + path_ + ".lock': " + std::strerror(errno);
  }
  ::close(fd);
  return why;
}

std::string FftwWisdomFile::export_text() const {
  std::lock_guard<std::mutex> lock(fftw_planner_mutex());
  char* s = is_double_ ? fftw_export_wisdom_to_string() : fftwf_export_wisdom_to_string();
  if (!s) return {};
  std::string text(s);
  std::free(s);  // FFTW allocates the string with malloc
  return text;
}

bool FftwWisdomFile::import_text(const std::string& text) const {
  std::lock_guard<std::mutex> lock(fftw_planner_mutex());
  return (is_double_ ? fftw_import_wisdom_from_string(text.c_str())
                     : fftwf_import_wisdom_from_string(text.c_str())) != 0;
}

}  // namespace dfft::detail
