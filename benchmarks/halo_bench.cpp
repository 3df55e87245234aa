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
#include "halo_bench_util.hpp"

namespace {

using namespace halo_bench;

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
  return "{\"host\": " + json_string(host) + ", \"cpu_model\": " + json_string(cpu) +
         ", \"mpi_library\": " + json_string(mpi_library()) + ", \"ranks\": " + std::to_string(size) + "}";
}

}  // namespace

int main(int argc, char** argv) {
  halo_bench::Args args;
  if (!args.start("halo-bench", argc, argv)) return 2;
  const int rank = args.rank, size = args.size;
  const Shape& shape = args.shape;
  const int reps = args.reps, trials = args.trials;
  std::ofstream json;
  if (rank == 0 && !args.json.empty()) json.open(args.json, std::ios::app);
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
    const Blocks blocks(shape, split, size, rank, check);
    if (blocks.cart == MPI_COMM_NULL) continue;  // the same blocks as the slabs
    const auto& dims = blocks.dims;
    const auto& n = blocks.n;
    const dfft::Layout& l = blocks.layout;
    MPI_Comm cart = blocks.cart;
    for (int w : {1, 2}) {
      for (bool corners : {false, true}) {
        dfft::Halo<double> h(MPI_COMM_WORLD, l, {Shape(3, w), {}, {}, corners});
        dfft::Halo<double> hp(MPI_COMM_WORLD, l, {Shape(3, w), {}, {}, corners},
                              dfft::Method::p2p_sync);
        SendrecvHalo s(cart, n, w, corners);
        std::vector<double> a = blocks.array(shape, w);
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
               << "}, \"same\": " << (all_same ? "true" : "false") << ", \"timestamp\": \"" << args.stamp
               << "\", \"machine\": " << machine << ", \"run\": {\"command\": "
               << json_string("mpirun -np " + std::to_string(size) + " " + args.command) << "}}\n";
      }
    }
  }
  MPI_Finalize();
  return failures ? 1 : 0;
}
