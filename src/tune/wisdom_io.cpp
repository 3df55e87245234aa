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
#include <functional>
#include <map>
#include <sstream>

#include "backend/cpu/work_pool.hpp"
#include "dfft/io.hpp"
#include "dfft/option_fields.hpp"
#include "model/machine.hpp"
#include "plan/path.hpp"
#include "transport/topology.hpp"
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

// Why an entry cannot be used for a problem of `ranks` ranks with options `opt`, or "" when it can.
std::string invalid_choice(const WisdomEntry& e, int ranks, const Options& opt, int dims) {
  std::int64_t prod = 1;
  for (int g : e.grid) prod *= g;
  if (prod != ranks) return "its grid does not have " + std::to_string(ranks) + " ranks";
  if (!opt.grid.empty() && e.grid != opt.grid) return "its grid differs from the fixed grid";
  const bool slab = e.decomposition != Decomposition::pencil;
  if (slab && e.grid.size() != 1) return "a slab needs a 1-D grid";
  if (!slab && static_cast<int>(e.grid.size()) > dims - 1) return "its pencil grid has too many dimensions";
  const std::size_t exchanges = slab ? 1 : e.grid.size();
  if (e.methods.size() != 1 && e.methods.size() != exchanges) return "wrong number of methods";
  const auto allowed = tune_methods(opt.backend);
  for (auto m : e.methods)
    if (std::find(allowed.begin(), allowed.end(), m) == allowed.end())
      return "method " + to_string(m) + " is not one of the " + to_string(opt.backend) + " backend";
  return {};
}

// The node layout as the key holds it: the ranks of each node where every node's ranks are
// consecutive ("2,2"), else the node of every rank ("0,1,0,1"). The second form starts with
// node 0 and the first with a count >= 1, so the two never read alike.
std::string node_layout_text(const std::vector<int>& node) {
  std::vector<int> counts;
  bool consecutive = true;
  for (std::size_t r = 0; r < node.size(); ++r) {
    if (node[r] == static_cast<int>(counts.size())) counts.push_back(0);
    else if (node[r] != static_cast<int>(counts.size()) - 1) consecutive = false;
    if (consecutive) ++counts.back();
  }
  std::string s;
  for (int v : consecutive ? counts : node) s += (s.empty() ? "" : ",") + std::to_string(v);
  return s;
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

Options with_choice(const Options& base, const WisdomEntry& e) {
  Options o = base;
  for (const auto& f : option_fields())
    if (f.from_choice) f.from_choice(o, e);
  return o;
}

std::optional<WisdomEntry> find_wisdom(const Wisdom& w, const WisdomKey& key, const Options& opt, int dims,
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
  auto why = invalid_choice(*hit, key.ranks, opt, dims);
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
  int ranks = 1;
  DFFT_MPI(MPI_Comm_size(comm, &ranks));
  WisdomKey k = dfft::wisdom_key(shape, ranks, is_double, opt);
  // The fields whose key value is what they resolve to here (OptionField::wisdom_key_resolved):
  // the same option on another machine is another problem.
  const std::map<std::string_view, std::function<std::string()>> resolve{
      {"device", [&] { return device_model(comm, opt.backend, opt.device); }},
      {"ranks_per_node", [&] { return node_layout_text(make_topology(comm, opt.ranks_per_node).node); }},
      // threads 0 is as many threads as the launcher gave the rank cores: another binding,
      // another problem.
      {"threads", [&] { return std::to_string(opt.backend == Backend::cuda ? 1 : resolve_threads(opt.threads, comm)); }},
  };
  for (const auto& f : option_fields()) {
    if (!f.wisdom_key || f.wisdom_key_resolved.empty()) continue;
    const auto r = resolve.find(f.name);
    if (r == resolve.end()) fail("the wisdom key has no way to resolve option ", std::string(f.name));
    k.options[std::string(f.name)] = r->second();
  }
  return k;
}

}  // namespace dfft::detail
