// SPDX-License-Identifier: MIT
// Micro-benchmarks for the analytic model: ping-pong and grouped all-to-all (latency and
// bandwidth per communicator size), strided batch FFTs (flop rate) and box copies (pack rate).
// Every rank runs each benchmark at the same time, as in a real transform, and every number is
// the median over repetitions of the slowest rank's time (slowest_per_repetition, the statistic
// of the tuner and of dfft bench).
#include <algorithm>
#include <cmath>
#include <vector>

#include "backend/device.hpp"
#include "dfft/model.hpp"
#include "model/machine.hpp"
#include "transport/methods.hpp"
#include "transport/topology.hpp"
#include "tune/automatic.hpp"
#include "tune/select.hpp"
#include "util/check.hpp"

namespace dfft::model {

using namespace dfft::detail;

namespace {

double max_over(double v, MPI_Comm comm) {
  double r = 0;
  DFFT_MPI(MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_MAX, comm));
  return r;
}

// One-way time of a message of `bytes` between ranks a and b (others wait), seconds.
double pingpong_seconds(MPI_Comm comm, int rank, int a, int b, std::int64_t bytes, int reps) {
  std::vector<char> buf(static_cast<std::size_t>(bytes));
  const int n = static_cast<int>(bytes);
  std::vector<double> samples;
  for (int r = 0; r < reps + 1; ++r) {  // the first round trip warms up the connection
    DFFT_MPI(MPI_Barrier(comm));
    double t0 = MPI_Wtime();
    if (rank == a) {
      DFFT_MPI(MPI_Send(buf.data(), n, MPI_BYTE, b, 7, comm));
      DFFT_MPI(MPI_Recv(buf.data(), n, MPI_BYTE, b, 7, comm, MPI_STATUS_IGNORE));
    } else if (rank == b) {
      DFFT_MPI(MPI_Recv(buf.data(), n, MPI_BYTE, a, 7, comm, MPI_STATUS_IGNORE));
      DFFT_MPI(MPI_Send(buf.data(), n, MPI_BYTE, a, 7, comm));
    }
    if (r > 0) samples.push_back((MPI_Wtime() - t0) / 2);
  }
  double t = median_of(samples);
  DFFT_MPI(MPI_Bcast(&t, 1, MPI_DOUBLE, a, comm));
  return t;
}

// t = L + m / B from the smallest and the largest message: the bandwidth from the difference,
// the latency from the smallest message. (A least-squares line over sizes that differ by four
// orders of magnitude is set by the large messages alone and can give a negative latency.)
Link fit_link(int size, const std::vector<double>& m, const std::vector<double>& t) {
  Link l;
  l.size = size;
  const double dt = t.back() - t.front(), dm = m.back() - m.front();
  // No time difference means noise swamped the size dependence: take the largest message alone.
  l.bandwidth = dt > 0 ? dm / dt : m.back() / std::max(t.back(), 1e-12);
  l.latency = std::max(t.front() - m.front() / l.bandwidth, 1e-9);  // L = 0 would make L*B vanish
  return l;
}

Link pingpong_link(MPI_Comm comm, int rank, int a, int b, int reps) {
  const std::vector<double> sizes{8, 1024 * 1024};
  std::vector<double> t;
  for (double m : sizes) t.push_back(pingpong_seconds(comm, rank, a, b, static_cast<std::int64_t>(m), reps));
  return fit_link(2, sizes, t);
}

// Ping-pong between the first pair of ranks (in rank order) on one node and the first pair on
// two nodes. Ranks 0 and 1 are the first pair of their class, so their ping-pong is that class.
void class_links(Calibration& c, MPI_Comm comm, int rank, int reps, const std::vector<int>& ranks_per_node) {
  const Topology t = make_topology(comm, ranks_per_node);
  c.nodes = t.nodes();
  c.emulated_nodes = t.emulated;
  const int n = static_cast<int>(t.node.size());
  bool done[2] = {false, false};
  for (int a = 0; a < n && !(done[0] && done[1]); ++a)
    for (int b = a + 1; b < n; ++b) {
      const bool inter = t.node[a] != t.node[b];
      if (done[inter]) continue;
      done[inter] = true;
      (inter ? c.inter : c.intra) = pingpong_link(comm, rank, a, b, reps);
    }
  c.pingpong = t.node[0] == t.node[1] ? c.intra : c.inter;
}

// MPI_Alltoall inside groups of `p` consecutive ranks, all groups at once: per-peer cost.
Link alltoall_link(MPI_Comm comm, int rank, int p, int reps) {
  MPI_Comm g;
  DFFT_MPI(MPI_Comm_split(comm, rank / p, rank, &g));
  std::vector<double> sizes, t;
  for (double m : {64.0, 256.0 * 1024}) {
    const int n = static_cast<int>(m);
    std::vector<char> s(static_cast<std::size_t>(n) * p), r(s.size());
    std::vector<double> samples;
    for (int k = 0; k < reps + 1; ++k) {
      DFFT_MPI(MPI_Barrier(comm));
      double t0 = MPI_Wtime();
      DFFT_MPI(MPI_Alltoall(s.data(), n, MPI_BYTE, r.data(), n, MPI_BYTE, g));
      if (k > 0) samples.push_back(MPI_Wtime() - t0);
    }
    sizes.push_back(m);
    t.push_back(median_of(slowest_per_repetition(samples, comm)) / (p - 1));
  }
  DFFT_MPI(MPI_Comm_free(&g));
  return fit_link(p, sizes, t);
}

// Seconds per call of f. Each repetition runs f `inner` times from one barrier to the next:
// every rank's interval then covers the time until the last rank is done, so ranks that share a
// core (more ranks than cores) see the rate they really get, and `inner` (the same on every
// rank) makes a repetition last about 20 ms so that the barriers themselves do not count.
template <class F>
double timed_median(F&& f, int reps, Device& dev, MPI_Comm comm) {
  f();  // warm-up
  dev.synchronize();
  double t0 = MPI_Wtime();
  f();
  dev.synchronize();
  const double once = max_over(MPI_Wtime() - t0, comm);
  const int inner = static_cast<int>(std::clamp(std::ceil(0.02 / std::max(once, 1e-9)), 1.0, 1000.0));
  std::vector<double> samples;
  for (int k = 0; k < reps; ++k) {
    DFFT_MPI(MPI_Barrier(comm));
    t0 = MPI_Wtime();
    for (int i = 0; i < inner; ++i) f();
    dev.synchronize();
    DFFT_MPI(MPI_Barrier(comm));
    samples.push_back((MPI_Wtime() - t0) / inner);
  }
  return median_of(slowest_per_repetition(samples, comm));
}

// Batched 1-D complex FFTs along the contiguous (last), the middle and the slowest axis.
void fft_rates(Calibration& c, Device& dev, const CalibrateSettings& s, MPI_Comm comm) {
  const std::int64_t n = s.fft_n;
  Layout l{{{0, 0, 0}, {n, n, n}}, {0, 1, 2}, {}};
  const double count = static_cast<double>(n * n * n);
  for (int prec = 0; prec < 2; ++prec) {
    const std::size_t bytes = static_cast<std::size_t>(n * n * n) * (prec == 0 ? 16 : 8);
    Buffer a(dev, bytes), b(dev, bytes);
    std::vector<char> zeros(bytes, 0);
    dev.upload(a.get(), zeros.data(), bytes);
    for (int axis : {2, 1, 0}) {
      FftDesc d{FftDesc::Kind::forward, {axis}, l, l, prec == 0, Effort::estimate, {}, false};
      auto fft = dev.make_fft(d, a.get(), b.get());
      dev.upload(a.get(), zeros.data(), bytes);
      double t = timed_median([&] { fft->execute(a.get(), b.get()); }, s.reps, dev, comm);
      double rate = 5 * count * std::log2(static_cast<double>(n)) / std::max(t, 1e-12);
      (axis == 2 ? c.fft_contiguous : axis == 1 ? c.fft_middle : c.fft_strided)[prec] = rate;
    }
  }
}

// Copy half of the middle axis into a packed block, as a pencil exchange packs.
void pack_rate(Calibration& c, Device& dev, const CalibrateSettings& s, MPI_Comm comm) {
  const std::int64_t n = s.fft_n;
  Layout src{{{0, 0, 0}, {n, n, n}}, {0, 1, 2}, {}};
  Box half{{0, 0, 0}, {n, std::max<std::int64_t>(n / 2, 1), n}};
  Layout dst{half, {0, 1, 2}, {}};
  const std::size_t bytes = static_cast<std::size_t>(n * n * n) * 16;
  Buffer a(dev, bytes), b(dev, bytes);
  double t = timed_median([&] { dev.copy_box(a.get(), src, b.get(), dst, half, 16); }, s.reps, dev, comm);
  c.pack_rate = static_cast<double>(half.count()) * 16 / std::max(t, 1e-12);
}

// The link a redistribution method achieves: a dfft exchange on all ranks of `comm` whose
// blocks need no packing (rank r holds row r of a P x (P*m) array, rank k receives columns
// [k*m, (k+1)*m) of every row), timed through the method's own transport for a small and a
// large block; per-peer latency and bandwidth as for the all-to-all.
bool method_link(Calibration& c, Method m, Device& dev, const CalibrateSettings& s, MPI_Comm comm,
                 std::int64_t big_bytes) {
  int rank = 0, p = 1;
  DFFT_MPI(MPI_Comm_rank(comm, &rank));
  DFFT_MPI(MPI_Comm_size(comm, &p));
  std::vector<double> sizes, t;
  for (std::int64_t bytes : {std::int64_t{64}, big_bytes}) {
    const std::int64_t e = 16, n = bytes / e;
    ExchangeSpec spec;
    spec.elem = static_cast<std::size_t>(e);
    spec.me = rank;
    for (int k = 0; k < p; ++k) {
      spec.src.push_back(Layout{Box{{k, 0}, {k + 1, p * n}}, {0, 1}, {}});
      spec.dst.push_back(Layout{Box{{0, k * n}, {p, (k + 1) * n}}, {0, 1}, {}});
    }
    std::unique_ptr<Transport> x;
    try {
      x = make_transport(m, comm, spec, dev, TransportTuning{OneSidedSync::fence, kDefaultChunks, 2, comm});
    } catch (const Error&) {
      return false;  // not in this build or on this machine (refused on every rank alike)
    }
    const auto buf = static_cast<std::size_t>(p * n * e);
    Buffer a(dev, buf), b(dev, buf);
    StageTiming st;
    const double sec = timed_median([&] { x->execute(a.get(), b.get(), st); }, s.reps, dev, comm);
    sizes.push_back(static_cast<double>(bytes));
    t.push_back(sec / std::max(p - 1, 1));
  }
  c.method_links.push_back({m, fit_link(p, sizes, t)});
  return true;
}

}  // namespace

Calibration calibrate(MPI_Comm comm, Backend backend, const CalibrateSettings& s) {
  if (s.reps < 1 || s.fft_n < 2) fail("calibrate needs reps >= 1 and fft_n >= 2");
  int rank = 0, size = 1;
  DFFT_MPI(MPI_Comm_rank(comm, &rank));
  DFFT_MPI(MPI_Comm_size(comm, &size));
  Calibration c;
  c.ranks = size;
  c.backend = to_string(backend);
  c.measured = true;
  c.device = device_model(comm, backend, s.device);
  c.host = broadcast_string(host_name(), comm);
  c.timestamp = broadcast_string(utc_timestamp(), comm);
  const bool gpu = backend == Backend::cuda;
  std::vector<int> groups;  // all-to-all communicator sizes
  std::vector<Method> methods;  // the node-aware ones send what p2p-sync sends on one node
  if (size >= 2) {
    for (int p = 2; p <= size; ++p)
      if (size % p == 0) groups.push_back(p);
    for (const auto& i : method_table())
      if ((gpu ? i.cuda : i.cpu) && !i.node_aware) methods.push_back(i.method);
  }
  const double total = (size >= 2 ? 1.0 : 0.0) + static_cast<double>(groups.size()) + 2 + static_cast<double>(methods.size());
  double done = 0;
  auto next = [&](const std::string& what) {
    if (s.progress) s.progress(done, total, what);
    ++done;
  };
  if (size >= 2) {
    // Messages go through host memory here, as with host-staged MPI (docs/models.md).
    next("ping-pong per link class");
    class_links(c, comm, rank, s.reps, s.ranks_per_node);
    for (int p : groups) {
      next("all-to-all on " + std::to_string(p) + " ranks");
      c.alltoall.push_back(alltoall_link(comm, rank, p, s.reps));
    }
  }
  auto dev = gpu ? make_cuda_device(comm, s.device) : make_cpu_device();
  next("FFT rates");
  fft_rates(c, *dev, s, comm);
  next("pack rate");
  pack_rate(c, *dev, s, comm);
  // Large enough per peer that NVLink-class links are not measured by their latency alone.
  const std::int64_t big = gpu ? (std::int64_t{32} << 20) : (std::int64_t{1} << 20);
  for (Method m : methods) {
    next("method " + to_string(m));
    method_link(c, m, *dev, s, comm, big);
  }
  if (s.progress) s.progress(total, total, "calibrated");
  return c;
}

std::vector<int> node_layout(MPI_Comm comm, const std::vector<int>& ranks_per_node) {
  return make_topology(comm, ranks_per_node).node;
}

}  // namespace dfft::model
