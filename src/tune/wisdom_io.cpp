// SPDX-License-Identifier: MIT
// Wisdom file I/O for the tuner: one reader (rank 0) so that every rank decides from the same
// text, and one writer (rank 0) that merges and replaces the file atomically.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

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

// Reads a whole file; `exists` false when it cannot be opened.
std::string read_text(const std::string& path, bool& exists) {
  std::ifstream in(path, std::ios::binary);
  exists = static_cast<bool>(in);
  if (!exists) return {};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
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
  int rank = 0;
  DFFT_MPI(MPI_Comm_rank(comm, &rank));
  collectively(comm, "wisdom file check", [&] {
    if (rank == 0)
      if (auto why = not_a_wisdom_path(path); !why.empty()) fail(why);
  });
  bool exists = false;
  std::string text = rank == 0 ? read_text(path, exists) : std::string();
  int flag = exists;
  DFFT_MPI(MPI_Bcast(&flag, 1, MPI_INT, 0, comm));
  if (!flag) return {};  // no wisdom yet: not worth a warning
  text = broadcast_string(text, comm);
  try {
    Wisdom w = parse_wisdom(text);
    for (const auto& s : w.skipped) warnings.push_back("wisdom file " + path + ": ignored " + s);
    return w;
  } catch (const Error& e) {
    warnings.push_back("wisdom file " + path + " ignored: " + e.what());
    return {};
  }
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

bool write_file_atomically(const std::string& path, const std::string& text, std::string& why) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      why = "cannot write " + tmp;
      std::remove(tmp.c_str());
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    why = "cannot rename " + tmp + " to " + path;
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

bool store_wisdom(const std::string& path, const WisdomEntry& e, MPI_Comm comm,
                  std::vector<std::string>& warnings) {
  int rank = 0;
  DFFT_MPI(MPI_Comm_rank(comm, &rank));
  std::string why;
  int ok = 1;
  if (rank == 0 && !(why = not_a_wisdom_path(path)).empty()) {
    ok = 0;
    why = "wisdom not written: " + why;
  } else if (rank == 0) {
    bool exists = false;
    std::string text = read_text(path, exists);  // re-read: another run may have added entries
    Wisdom w;
    if (exists) {
      try {
        w = parse_wisdom(text);
      } catch (const Error& err) {
        why = std::string("replaced unreadable wisdom file: ") + err.what();
      }
    }
    std::erase_if(w.entries, [&](const WisdomEntry& x) { return x.key == e.key; });
    w.entries.push_back(e);
    std::string werr;
    ok = write_file_atomically(path, to_json(w), werr);
    if (!ok) why = "wisdom not written: " + werr;
  }
  DFFT_MPI(MPI_Bcast(&ok, 1, MPI_INT, 0, comm));
  why = broadcast_string(why, comm);
  if (!why.empty()) warnings.push_back(why);
  return ok != 0;
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
