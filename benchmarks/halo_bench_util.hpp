// SPDX-License-Identifier: MIT
// What halo-bench (host arrays) and gpu-halo-bench (device arrays) share: the command line, the
// blocks of a periodic Cartesian grid, the test array, the timing of repeated exchanges and the
// JSON helpers of their records.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "dfft/types.hpp"

namespace halo_bench {

using Shape = std::vector<std::int64_t>;

/// `NAME N0 N1 N2 [reps] [trials] [--json FILE]`; `command` is the line as given (for records).
struct Args {
  Shape shape;
  int reps = 20, trials = 5, rank = 0, size = 1;
  std::string json, command, stamp;
  /// MPI_Init and parse(); false (MPI finalized, usage printed) on a bad command line.
  bool start(const char* name, int& argc, char**& argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parse(name, argc, argv)) return true;
    MPI_Finalize();
    return false;
  }
  /// False (usage printed by rank 0) when fewer than three extents are given.
  bool parse(const char* name, int argc, char** argv) {
    command = name;
    std::vector<std::string> pos;
    for (int i = 1; i < argc; ++i) {
      command += std::string(" ") + argv[i];
      if (std::string(argv[i]) == "--json" && i + 1 < argc)
        json = argv[++i], command += std::string(" ") + argv[i];
      else
        pos.push_back(argv[i]);
    }
    if (pos.size() < 3) {
      if (rank == 0) std::fprintf(stderr, "usage: %s N0 N1 N2 [reps] [trials] [--json FILE]\n", name);
      return false;
    }
    for (int a = 0; a < 3; ++a) shape.push_back(std::atol(pos[static_cast<std::size_t>(a)].c_str()));
    if (pos.size() > 3) reps = std::atoi(pos[3].c_str());
    if (pos.size() > 4) trials = std::atoi(pos[4].c_str());
    char b[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    stamp = b;
    return true;
  }
};

/// This rank's block of a periodic Cartesian grid cutting the first `split` axes (1: slabs,
/// 2: pencils; rank order kept), or none (cart MPI_COMM_NULL) where pencils would be slabs.
struct Blocks {
  MPI_Comm cart = MPI_COMM_NULL;
  std::vector<int> dims = std::vector<int>(3, 1);
  dfft::Layout layout;
  Shape n = Shape(3);  // the block's extents
  /// MPI return codes go to `check`, which must not return on failure.
  template <class Check>
  Blocks(const Shape& shape, int split, int size, int rank, Check check) {
    int d2[2] = {0, 0};
    check(MPI_Dims_create(size, split, d2), "MPI_Dims_create");
    if (split == 2 && d2[1] == 1) return;
    for (int a = 0; a < split; ++a) dims[static_cast<std::size_t>(a)] = d2[a];
    const int periods[3] = {1, 1, 1};
    check(MPI_Cart_create(MPI_COMM_WORLD, 3, dims.data(), periods, 0, &cart), "MPI_Cart_create");
    int coords[3];
    check(MPI_Cart_coords(cart, rank, 3, coords), "MPI_Cart_coords");
    layout.order = {0, 1, 2};
    for (int a = 0; a < 3; ++a) {
      layout.box.lo.push_back(shape[a] * coords[a] / dims[a]);
      layout.box.hi.push_back(shape[a] * (coords[a] + 1) / dims[a]);
      n[a] = layout.box.hi[a] - layout.box.lo[a];
    }
  }
  ~Blocks() {
    if (cart != MPI_COMM_NULL) MPI_Comm_free(&cart);
  }
  Blocks(const Blocks&) = delete;
  Blocks& operator=(const Blocks&) = delete;
  /// The halo'd array of width w (row-major, extents n + 2w): the interior from the global
  /// index, the halo -1.
  std::vector<double> array(const Shape& shape, int w) const {
    std::vector<double> u(static_cast<std::size_t>((n[0] + 2 * w) * (n[1] + 2 * w) * (n[2] + 2 * w)), -1.0);
    for (std::int64_t i = 0; i < n[0]; ++i)
      for (std::int64_t j = 0; j < n[1]; ++j)
        for (std::int64_t k = 0; k < n[2]; ++k)
          u[static_cast<std::size_t>(((i + w) * (n[1] + 2 * w) + j + w) * (n[2] + 2 * w) + k + w)] =
              static_cast<double>(((layout.box.lo[0] + i) * shape[1] + layout.box.lo[1] + j) * shape[2] +
                                  layout.box.lo[2] + k);
    return u;
  }
};

/// Mean seconds per call of f over `reps` calls, on the slowest rank.
template <class F>
double time_reps(int reps, F&& f) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int r = 0; r < reps; ++r) f();
  double t = (MPI_Wtime() - t0) / reps, worst = 0;
  MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}

/// A list of numbers as JSON.
template <class V>
std::string json_list(const V& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

/// The JSON string of `s` (the characters a host, CPU, GPU or MPI name can hold, escaped).
inline std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) o += c;
  }
  return o + "\"";
}

/// The first line of the MPI library's version string.
inline std::string mpi_library() {
  char lib[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int len = 0;
  MPI_Get_library_version(lib, &len);
  std::string mpi(lib, static_cast<std::size_t>(len));
  return mpi.substr(0, mpi.find_first_of(",\n"));
}

}  // namespace halo_bench
