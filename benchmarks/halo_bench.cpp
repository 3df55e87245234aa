// SPDX-License-Identifier: MIT
// halo-bench: dfft::Halo (both methods: p2p-type with datatypes, p2p-sync packed) against the
// exchange solvers write by hand, in the same run on the same blocks. The hand-written one is the
// textbook MPI_Sendrecv scheme on a periodic Cartesian communicator: per axis, one MPI_Sendrecv
// towards each side with MPI_Type_create_subarray datatypes made once; with corners, each axis also
// carries the halo the previous axes filled. Every case first checks that both give the same array
// (bitwise), then times `reps` exchanges of each, alternating, `trials` times, and prints the best
// trial's mean per exchange (the slowest rank's). All axes periodic, natural memory order, double.
// `cells moved` counts the halo cells this rank sends or copies inside itself. --json FILE
// appends one record per row (test "halo") for tools/results_pages.py's `halo` tables.
//   halo-bench N0 N1 N2 [reps] [trials] [--json FILE]     e.g. mpirun -np 2 halo-bench 256 256 256
#include <mpi.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "dfft/halo.hpp"

namespace {

using Shape = std::vector<std::int64_t>;

void check(int rc, const char* call) {
  if (rc != MPI_SUCCESS) {
    std::fprintf(stderr, "halo-bench: %s failed (%d)\n", call, rc);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

/// The textbook exchange: on `cart` (periodic), array of extents n + 2w per axis (row-major).
class SendrecvHalo {
 public:
  SendrecvHalo(MPI_Comm cart, const Shape& n, int w, bool corners) : cart_(cart) {
    const int d = static_cast<int>(n.size());
    std::vector<int> full(d), sub(d), start(d);
    for (int a = 0; a < d; ++a) full[a] = static_cast<int>(n[a] + 2 * w);
    for (int a = 0; a < d; ++a) {
      int lower = 0, upper = 0;
      check(MPI_Cart_shift(cart, a, 1, &lower, &upper), "MPI_Cart_shift");
      // Other axes: the already exchanged ones (b < a) whole with corners, else the interior.
      for (int b = 0; b < d; ++b) {
        const bool whole = corners && b < a;
        sub[b] = whole ? full[b] : static_cast<int>(n[b]);
        start[b] = whole ? 0 : w;
      }
      sub[a] = w;
      Axis x{lower, upper, {}, {}, {}, {}};
      const int at[4] = {w, static_cast<int>(n[a]), static_cast<int>(n[a]) + w,
                         0};  // send lo, send hi, recv hi, recv lo
      MPI_Datatype* t[4] = {&x.send_lo, &x.send_hi, &x.recv_hi, &x.recv_lo};
      for (int k = 0; k < 4; ++k) {
        start[a] = at[k];
        check(MPI_Type_create_subarray(d, full.data(), sub.data(), start.data(), MPI_ORDER_C,
                                       MPI_DOUBLE, t[k]),
              "MPI_Type_create_subarray");
        check(MPI_Type_commit(t[k]), "MPI_Type_commit");
      }
      axes_.push_back(x);
    }
  }
  ~SendrecvHalo() {
    for (auto& x : axes_)
      for (MPI_Datatype* t : {&x.send_lo, &x.send_hi, &x.recv_hi, &x.recv_lo}) MPI_Type_free(t);
  }
  void exchange(double* u) const {
    for (const auto& x : axes_) {
      check(MPI_Sendrecv(u, 1, x.send_lo, x.lower, 1, u, 1, x.recv_hi, x.upper, 1, cart_,
                         MPI_STATUS_IGNORE),
            "MPI_Sendrecv");
      check(MPI_Sendrecv(u, 1, x.send_hi, x.upper, 2, u, 1, x.recv_lo, x.lower, 2, cart_,
                         MPI_STATUS_IGNORE),
            "MPI_Sendrecv");
    }
  }

 private:
  struct Axis {
    int lower, upper;
    MPI_Datatype send_lo, send_hi, recv_hi, recv_lo;
  };
  MPI_Comm cart_;
  std::vector<Axis> axes_;
};

/// "a","b" as a JSON list of numbers.
template <class V>
std::string json_list(const V& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

/// The JSON string of `s` (the characters a host, CPU or MPI name can hold, escaped).
std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) o += c;
  }
  return o + "\"";
}

/// The machine block of a record: host, CPU model, MPI library (first line).
std::string machine_json(int size) {
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  std::string cpu;
  std::ifstream info("/proc/cpuinfo");
  for (std::string line; std::getline(info, line);)
    if (line.rfind("model name", 0) == 0) {
      cpu = line.substr(line.find(':') + 2);
      break;
    }
  char lib[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int len = 0;
  MPI_Get_library_version(lib, &len);
  std::string mpi(lib, static_cast<std::size_t>(len));
  mpi = mpi.substr(0, mpi.find_first_of(",\n"));
  return "{\"host\": " + json_string(host) + ", \"cpu_model\": " + json_string(cpu) +
         ", \"mpi_library\": " + json_string(mpi) + ", \"ranks\": " + std::to_string(size) + "}";
}

/// Mean seconds per call of f over `reps` calls, on the slowest rank.
template <class F>
double time_reps(int reps, F&& f) {
  check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  const double t0 = MPI_Wtime();
  for (int r = 0; r < reps; ++r) f();
  double t = (MPI_Wtime() - t0) / reps, worst = 0;
  check(MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 4) {
    if (rank == 0) std::fprintf(stderr, "usage: halo-bench N0 N1 N2 [reps] [trials]\n");
    MPI_Finalize();
    return 2;
  }
  std::string json_path, command = "halo-bench";
  std::vector<std::string> pos;
  for (int i = 1; i < argc; ++i) {
    command += std::string(" ") + argv[i];
    if (std::string(argv[i]) == "--json" && i + 1 < argc)
      json_path = argv[++i], command += std::string(" ") + argv[i];
    else
      pos.push_back(argv[i]);
  }
  const Shape shape{std::atol(pos.at(0).c_str()), std::atol(pos.at(1).c_str()),
                    std::atol(pos.at(2).c_str())};
  const int reps = pos.size() > 3 ? std::atoi(pos[3].c_str()) : 20;
  const int trials = pos.size() > 4 ? std::atoi(pos[4].c_str()) : 5;
  std::ofstream json;
  if (rank == 0 && !json_path.empty()) json.open(json_path, std::ios::app);
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  const std::string machine = rank == 0 ? machine_json(size) : "";
  int failures = 0;
  if (rank == 0) {
    std::printf(
        "halo-bench %lldx%lldx%lld, %d ranks, double, all axes periodic; %d exchanges x %d trials, "
        "best trial\n",
        static_cast<long long>(shape[0]), static_cast<long long>(shape[1]),
        static_cast<long long>(shape[2]), size, reps, trials);
    std::printf(
        "| blocks | grid | width | corners | local box | cells moved/rank | p2p-type (us) | "
        "p2p-sync (us) | MPI_Sendrecv (us) | ratio | same |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
  }
  for (int split : {1, 2}) {  // slabs (axis 0 cut), pencils (axes 0 and 1 cut)
    std::vector<int> dims(3, 1);
    int d2[2] = {0, 0};
    check(MPI_Dims_create(size, split, d2), "MPI_Dims_create");
    if (split == 2 && d2[1] == 1) continue;  // the same blocks as the slabs
    for (int a = 0; a < split; ++a) dims[a] = d2[a];
    const int periods[3] = {1, 1, 1};
    MPI_Comm cart;
    check(MPI_Cart_create(MPI_COMM_WORLD, 3, dims.data(), periods, 0, &cart), "MPI_Cart_create");
    int coords[3];
    check(MPI_Cart_coords(cart, rank, 3, coords), "MPI_Cart_coords");
    dfft::Layout l;
    l.order = {0, 1, 2};
    Shape n(3);
    for (int a = 0; a < 3; ++a) {
      l.box.lo.push_back(shape[a] * coords[a] / dims[a]);
      l.box.hi.push_back(shape[a] * (coords[a] + 1) / dims[a]);
      n[a] = l.box.hi[a] - l.box.lo[a];
    }
    for (int w : {1, 2}) {
      for (bool corners : {false, true}) {
        dfft::Halo<double> h(MPI_COMM_WORLD, l, {Shape(3, w), {}, {}, corners});
        dfft::Halo<double> hp(MPI_COMM_WORLD, l, {Shape(3, w), {}, {}, corners},
                              dfft::Method::p2p_sync);
        SendrecvHalo s(cart, n, w, corners);
        // Both arrays: the interior from the global index, the halo -1.
        std::vector<double> a(static_cast<std::size_t>(h.count()), -1.0);
        for (std::int64_t i = 0; i < n[0]; ++i)
          for (std::int64_t j = 0; j < n[1]; ++j)
            for (std::int64_t k = 0; k < n[2]; ++k)
              a[static_cast<std::size_t>(((i + w) * (n[1] + 2 * w) + j + w) * (n[2] + 2 * w) + k +
                                         w)] =
                  static_cast<double>(((l.box.lo[0] + i) * shape[1] + l.box.lo[1] + j) * shape[2] +
                                      l.box.lo[2] + k);
        std::vector<double> b = a, c = a;
        h.exchange(std::span<double>(a));
        hp.exchange(std::span<double>(c));
        s.exchange(b.data());
        int same = a == b && c == b, all_same = 0;
        check(MPI_Allreduce(&same, &all_same, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD),
              "MPI_Allreduce");
        failures += !all_same;
        double best_h = std::numeric_limits<double>::infinity(), best_s = best_h, best_p = best_h;
        for (int t = 0; t < trials; ++t) {
          best_h = std::min(best_h, time_reps(reps, [&] { h.exchange(a.data()); }));
          best_p = std::min(best_p, time_reps(reps, [&] { hp.exchange(c.data()); }));
          best_s = std::min(best_s, time_reps(reps, [&] { s.exchange(b.data()); }));
        }
        const std::int64_t cells = h.sent_elements() + h.self_elements();
        if (rank == 0)
          std::printf(
              "| %s | %dx%dx%d | %d | %s | %lldx%lldx%lld | %lld | %.1f | %.1f | %.1f | %.2f | %s "
              "|\n",
              split == 1 ? "slab" : "pencil", dims[0], dims[1], dims[2], w, corners ? "yes" : "no",
              static_cast<long long>(n[0]), static_cast<long long>(n[1]),
              static_cast<long long>(n[2]), static_cast<long long>(cells), best_h * 1e6,
              best_p * 1e6, best_s * 1e6, best_h / best_s, all_same ? "yes" : "NO");
        if (json.is_open())
          json << "{\"test\": \"halo\", \"size\": " << json_list(shape) << ", \"ranks\": " << size
               << ", \"blocks\": \"" << (split == 1 ? "slab" : "pencil")
               << "\", \"grid\": " << json_list(dims) << ", \"width\": " << w
               << ", \"corners\": " << (corners ? "true" : "false")
               << ", \"local_box\": " << json_list(n) << ", \"cells\": " << cells
               << ", \"reps\": " << reps << ", \"trials\": " << trials
               << ", \"time_us\": {\"dfft\": " << best_h * 1e6
               << ", \"dfft_packed\": " << best_p * 1e6 << ", \"sendrecv\": " << best_s * 1e6
               << "}, \"same\": " << (all_same ? "true" : "false") << ", \"timestamp\": \"" << stamp
               << "\", \"machine\": " << machine << ", \"run\": {\"command\": "
               << json_string("mpirun -np " + std::to_string(size) + " " + command) << "}}\n";
      }
    }
    MPI_Comm_free(&cart);
  }
  MPI_Finalize();
  return failures ? 1 : 0;
}
