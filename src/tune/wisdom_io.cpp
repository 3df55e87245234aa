// SPDX-License-Identifier: MIT
// Wisdom file I/O for the tuner: one reader (rank 0) so that every rank decides from the same
// text, and one writer (rank 0) that merges and replaces the file atomically (io::OutputFile).
// A file that exists but is not dfft wisdom is refused, never replaced.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "dfft/io.hpp"
#include "model/machine.hpp"
#include "plan/path.hpp"
#include "tune/tuner.hpp"
#include "util/check.hpp"

namespace dfft::detail {

namespace {

// A wisdom file is a regular file or not there yet. Anything else is refused before it is opened:
// a device such as /dev/full reads forever, opening a FIFO blocks, a directory never parses.
std::string not_a_wisdom_path(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return {};
  return "wisdom file '" + path + "' is not a regular file (a directory, device, FIFO or socket); give " +
         "the path of a regular file or of one to create";
}

// A wisdom file refused: an error of call "wisdom", a bad input file to the command line.
template <class... A>
[[noreturn]] void refuse(const A&... parts) {
  throw InvalidArgument("wisdom", world_rank(), concat("dfft: ", parts...));
}

// Rank 0's view of the wisdom file: false when there is none yet (it is created on write);
// otherwise its text, or InvalidArgument when it is not a regular file or cannot be read.
bool read_existing(const std::string& path, std::string& text) {
  if (auto why = not_a_wisdom_path(path); !why.empty()) refuse(why);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 && errno == ENOENT) return false;
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  if (in) s << in.rdbuf();
  if (!in || in.bad())
    refuse("wisdom file '", path, "' cannot be read (", std::strerror(errno), "); it is left as it was");
  text = s.str();
  return true;
}

// The wisdom in the text of an existing file, or InvalidArgument: a file that is not dfft wisdom
// (a user's JSON, a truncated file, another format version) is the user's, never replaced.
Wisdom parse_existing(const std::string& path, const std::string& text) {
  try {
    return parse_wisdom(text);
  } catch (const Error& e) {
    std::string why = e.what();
    if (why.rfind("dfft: ", 0) == 0) why.erase(0, 6);
    refuse("refusing wisdom file '", path, "': ", why, "; it is left as it was: name a dfft wisdom file or a new path");
  }
}

// Runs `f` (the file access) on rank 0 alone, then every rank throws what it threw, as an error
// of call "wisdom": InvalidArgument for a refused file, LibraryError (system) for a failed write.
template <class F>
void on_rank0(MPI_Comm comm, F f) {
  int rank = 0, refused = 0;
  DFFT_MPI(MPI_Comm_rank(comm, &rank));
  std::string what;
  if (rank == 0) {
    try {
      f();
    } catch (const InvalidArgument& e) {
      refused = 1;
      what = e.what();
    } catch (const std::exception& e) {
      refused = 2;
      what = e.what();
    }
  }
  DFFT_MPI(MPI_Bcast(&refused, 1, MPI_INT, 0, comm));
  if (refused == 0) return;
  what = broadcast_string(what, comm);
  if (refused == 1) throw InvalidArgument("wisdom", world_rank(), what);
  throw LibraryError(LibraryError::Library::system, "wisdom", 0, world_rank(), what);
}

// mkdir -p of the folder of `path`; a failure shows when the file is written.
void make_parent_dirs(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return;
  const std::string dir = path.substr(0, slash);
  for (std::size_t i = 1; i <= dir.size(); ++i)
    if (i == dir.size() || dir[i] == '/') ::mkdir(dir.substr(0, i).c_str(), 0755);
}

// Why an entry cannot be used for this key, or "" when it can.
std::string invalid_choice(const WisdomEntry& e, const WisdomKey& key, int dims) {
  std::int64_t prod = 1;
  for (int g : e.grid) prod *= g;
  if (prod != key.ranks) return "its grid does not have " + std::to_string(key.ranks) + " ranks";
  if (!key.grid.empty() && e.grid != key.grid) return "its grid differs from the fixed grid";
  const bool slab = e.decomposition != Decomposition::pencil;
  if (slab && e.grid.size() != 1) return "a slab needs a 1-D grid";
  if (!slab && static_cast<int>(e.grid.size()) > dims - 1) return "its pencil grid has too many dimensions";
  const std::size_t exchanges = slab ? 1 : e.grid.size();
  if (e.methods.size() != 1 && e.methods.size() != exchanges) return "wrong number of methods";
  const auto allowed = tune_methods(parse_backend(key.backend));
  for (auto m : e.methods)
    if (std::find(allowed.begin(), allowed.end(), m) == allowed.end())
      return "method " + to_string(m) + " is not one of the " + key.backend + " backend";
  return {};
}

}  // namespace

Wisdom load_wisdom(const std::string& path, MPI_Comm comm, std::vector<std::string>& warnings) {
  if (path.empty()) return {};
  int exists = 0;
  std::string text;
  on_rank0(comm, [&] { exists = read_existing(path, text); });
  DFFT_MPI(MPI_Bcast(&exists, 1, MPI_INT, 0, comm));
  if (!exists) return {};  // no wisdom yet: not worth a warning
  // Every rank parses the same text, so every rank refuses it alike.
  Wisdom w = parse_existing(path, broadcast_string(text, comm));
  for (const auto& s : w.skipped) warnings.push_back("wisdom file " + path + ": ignored (kept in the file) " + s);
  return w;
}

std::optional<WisdomEntry> find_wisdom(const Wisdom& w, const WisdomKey& key, int dims,
                                       std::vector<std::string>& warnings) {
  const WisdomEntry* hit = nullptr;
  for (const auto& e : w.entries)
    if (e.key == key) hit = &e;  // the last one is the newest
  if (!hit) {
    if (!w.entries.empty())
      warnings.push_back("wisdom: none of the " + std::to_string(w.entries.size()) +
                         " entries is for this configuration " + to_json(key) + "; measuring");
    return std::nullopt;
  }
  auto why = invalid_choice(*hit, key, dims);
  if (!why.empty()) {
    warnings.push_back("wisdom entry for this configuration ignored: " + why);
    return std::nullopt;
  }
  return *hit;
}

void store_wisdom(const std::string& path, const WisdomEntry& e, MPI_Comm comm, bool make_dir) {
  on_rank0(comm, [&] {
    if (make_dir) make_parent_dirs(path);
    std::string text;  // re-read: another run may have added entries
    Wisdom w = read_existing(path, text) ? parse_existing(path, text) : Wisdom{};
    std::erase_if(w.entries, [&](const WisdomEntry& x) { return x.key == e.key; });
    w.entries.push_back(e);
    io::replace_file(path, to_json(w));
  });
}

WisdomKey wisdom_key(MPI_Comm comm, const std::vector<std::int64_t>& shape, const Options& opt,
                     bool is_double) {
  WisdomKey k;
  k.shape = shape;
  DFFT_MPI(MPI_Comm_size(comm, &k.ranks));
  k.grid = opt.grid;
  k.precision = is_double ? "double" : "float";
  k.transform = to_string(opt.transform);
  k.backend = to_string(opt.backend);
  k.device = device_model(comm, opt.backend, opt.device);
  k.codec = to_string(opt.codec);
  k.batch = opt.batch;
  k.in_place = opt.in_place;
  k.destroy_input = opt.destroy_input;
  k.transposed_out = opt.transposed_out;
  for (auto r : opt.r2r) k.r2r.push_back(to_string(r));
  k.threads = opt.threads;
  return k;
}

}  // namespace dfft::detail
