// SPDX-License-Identifier: MIT
// Plan lifetimes (docs/hardening.md): many create/execute/destroy cycles over every flat CPU method,
// both variants, all decompositions and both transforms, with and without FFT/exchange overlap,
// must not grow resident memory, and every MPI communicator,
// datatype, group, window and MPI_Alloc_mem block a plan makes must be gone when it is destroyed.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <complex>
#include <cstdio>
#include <vector>

#include "dfft/dfft.hpp"
#include "mpi_counters.hpp"

#ifndef DFFT_LEAK_CYCLES
#define DFFT_LEAK_CYCLES 1000
#endif

namespace {

using dfft::Decomposition;
using dfft::Method;
using dfft::Variant;

constexpr int kWarmup = 50;
// Bound on resident growth after the warm-up. A leak of 1 KiB per cycle over the remaining 950
// cycles would exceed it; FFTW's planner cache and malloc arenas settle within the warm-up.
constexpr long kMaxGrowthBytes = 512 * 1024;

long resident_bytes() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = -1;
    std::fclose(f);
  }
  return resident * sysconf(_SC_PAGESIZE);
}

dfft::Options config(int cycle) {
  static const Method methods[] = {Method::a2a_sync, Method::a2a_type, Method::p2p_sync,
                                   Method::p2p_type, Method::onesided, Method::p2p_pipelined};
  static const Decomposition decomps[] = {Decomposition::slab_2d1d, Decomposition::slab_1d2d,
                                          Decomposition::pencil};
  constexpr int nm = static_cast<int>(sizeof(methods) / sizeof(methods[0]));
  dfft::Options o;
  o.effort = dfft::Effort::estimate;  // many plans: FFTW_MEASURE would dominate the run
  o.methods = {methods[cycle % nm]};
  o.variant = (cycle / nm) % 2 ? Variant::Realigned : Variant::Default;
  o.decomposition = decomps[(cycle / (2 * nm)) % 3];
  o.transform = (cycle / (6 * nm)) % 2 ? dfft::Transform::c2c : dfft::Transform::r2c;
  o.onesided_sync = (cycle / (12 * nm)) % 2 ? dfft::OneSidedSync::flush : dfft::OneSidedSync::fence;
  // FFT/exchange overlap makes its own slices, streams of work and executor state per plan.
  o.overlap = cycle % 7 < 3 ? 2 : 1;  // a period of its own: 200 cycles meet 137 of the 144 pairings
  return o;
}

// Most objects seen alive while a plan existed: proves the counters see the library's calls.
hardening::LiveObjects g_seen;
// Plans that ran sliced: proves the overlap half of the rotation is not refused or ignored.
int g_sliced = 0;

void note_alive() {
  const auto n = hardening::live();
  g_seen.comms = std::max(g_seen.comms, n.comms);
  g_seen.types = std::max(g_seen.types, n.types);
  g_seen.groups = std::max(g_seen.groups, n.groups);
  g_seen.windows = std::max(g_seen.windows, n.windows);
  g_seen.mem = std::max(g_seen.mem, n.mem);
}

// One cycle: make the plan, run forward and inverse once, check the round trip, destroy.
double cycle_once(int cycle) {
  const auto opt = config(cycle);
  dfft::Plan<double> plan(MPI_COMM_WORLD, {12, 10, 9}, opt);
  note_alive();
  if (plan.overlap_slices() > 1) ++g_sliced;
  double err = 0;
  if (opt.transform == dfft::Transform::r2c) {
    std::vector<double> in(plan.input_count()), back(plan.input_count());
    std::vector<std::complex<double>> out(plan.output_count());
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<double>(i % 7) - 3.0;
    plan.forward(in.data(), out.data());
    plan.inverse(out.data(), back.data());
    for (std::size_t i = 0; i < in.size(); ++i) err = std::max(err, std::abs(in[i] - back[i]));
  } else {
    std::vector<std::complex<double>> in(plan.input_count()), out(plan.output_count()),
        back(plan.input_count());
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = {double(i % 5), -double(i % 3)};
    plan.forward(in.data(), out.data());
    plan.inverse(out.data(), back.data());
    for (std::size_t i = 0; i < in.size(); ++i) err = std::max(err, std::abs(in[i] - back[i]));
  }
  return err;
}

TEST(LeakCycle, PlansReleaseEverything) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const auto before = hardening::live();
  long rss_warm = 0, rss_peak = 0;
  int objects_ok = 1;
  double worst_err = 0;
  for (int c = 0; c < DFFT_LEAK_CYCLES; ++c) {
    worst_err = std::max(worst_err, cycle_once(c));
    const auto now = hardening::live();
    if (!(now == before)) {
      ADD_FAILURE() << "cycle " << c << " (" << dfft::to_string(config(c).methods[0])
                    << "): live MPI objects after destroy: " << hardening::to_string(now)
                    << " (before: " << hardening::to_string(before) << ")";
      objects_ok = 0;
      break;
    }
    if (c + 1 == kWarmup) rss_warm = resident_bytes();
    if (c + 1 > kWarmup) rss_peak = std::max(rss_peak, resident_bytes());
  }
  EXPECT_LT(worst_err, 1e-12);
  // Every plan duplicates the communicator, the -type methods commit datatypes and onesided
  // opens a window: a counter that never moved would mean the interposition is not in effect.
  EXPECT_GT(g_seen.comms, before.comms);
  EXPECT_GT(g_seen.types, before.types);
  EXPECT_GT(g_seen.windows, before.windows);
  EXPECT_GT(g_sliced, 0);
  int all_ok = 0;
  MPI_Allreduce(&objects_ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  EXPECT_EQ(all_ok, 1);
  const long growth = rss_peak - rss_warm;
  long worst_growth = 0;
  MPI_Allreduce(&growth, &worst_growth, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("[leak-cycle] %d cycles (%d sliced); resident after %d-cycle warm-up %ld KiB, growth after it "
                "(max over ranks) %ld KiB; most alive during a plan: %s; live after every destroy: %s\n",
                DFFT_LEAK_CYCLES, g_sliced, kWarmup, rss_warm / 1024, worst_growth / 1024,
                hardening::to_string(g_seen).c_str(), hardening::to_string(hardening::live()).c_str());
#ifndef DFFT_SANITIZE_BUILD
  // Under ASan the quarantine holds freed blocks, so resident memory grows by design; LeakSanitizer
  // checks the leaks there instead.
  EXPECT_LE(worst_growth, kMaxGrowthBytes);
#endif
}

}  // namespace
