// SPDX-License-Identifier: MIT
#include "mpi_counters.hpp"

#include <mpi.h>

#include <atomic>
#include <utility>

namespace hardening {
namespace {

std::atomic<long> g_comms{0}, g_types{0}, g_groups{0}, g_windows{0}, g_mem{0};
std::string g_fail_fn;
int g_fail_code = MPI_SUCCESS;
int g_fail_skip = 0;
bool g_fail_done = false;
bool g_log_sends = false;
std::map<int, Sent> g_sent;

// Logs a send of n elements of t to `dest` of comm, by dest's rank in MPI_COMM_WORLD. PMPI_ only:
// the logging must not count objects or log itself.
void log_send(int n, MPI_Datatype t, int dest, MPI_Comm comm) {
  if (!g_log_sends || dest == MPI_PROC_NULL) return;
  MPI_Group g = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
  int w = MPI_UNDEFINED, size = 0;
  PMPI_Comm_group(comm, &g);
  PMPI_Comm_group(MPI_COMM_WORLD, &world);
  PMPI_Group_translate_ranks(g, 1, &dest, world, &w);
  PMPI_Group_free(&g);
  PMPI_Group_free(&world);
  PMPI_Type_size(t, &size);
  Sent& s = g_sent[w];
  ++s.messages;
  s.bytes += static_cast<std::int64_t>(n) * size;
}

// Created objects are counted only when the call succeeded and produced a real handle.
int created(int rc, std::atomic<long>& n) {
  if (rc == MPI_SUCCESS) ++n;
  return rc;
}
int comm_created(int rc, MPI_Comm* c) {
  if (rc == MPI_SUCCESS && *c != MPI_COMM_NULL) ++g_comms;
  return rc;
}

}  // namespace

// Whether this call of `fn` is the one to fail.
bool should_fail(const char* fn) {
  if (g_fail_done || g_fail_fn != fn) return false;
  if (g_fail_skip-- > 0) return false;
  g_fail_done = true;
  return true;
}

int injected_code() { return g_fail_code; }

LiveObjects live() {
  return {g_comms.load(), g_types.load(), g_groups.load(), g_windows.load(), g_mem.load()};
}

std::string to_string(const LiveObjects& o) {
  return "comms " + std::to_string(o.comms) + ", types " + std::to_string(o.types) + ", groups " +
         std::to_string(o.groups) + ", windows " + std::to_string(o.windows) + ", alloc_mem " +
         std::to_string(o.mem);
}

void inject_failure(const std::string& function, int code, int skip) {
  g_fail_fn = function;
  g_fail_code = code;
  g_fail_skip = skip;
  g_fail_done = false;
}

void start_sends() {
  g_sent.clear();
  g_log_sends = true;
}

std::map<int, Sent> stop_sends() {
  g_log_sends = false;
  return std::move(g_sent);
}

bool injected_and_disarm() {
  const bool done = g_fail_done;
  g_fail_fn.clear();
  return done;
}

}  // namespace hardening

using hardening::comm_created;
using hardening::created;
using hardening::g_comms;
using hardening::g_groups;
using hardening::g_mem;
using hardening::g_types;
using hardening::g_windows;

extern "C" {

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* out) { return comm_created(PMPI_Comm_dup(comm, out), out); }
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* out) {
  return comm_created(PMPI_Comm_split(comm, color, key, out), out);
}
int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm* out) {
  return comm_created(PMPI_Comm_split_type(comm, type, key, info, out), out);
}
int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* out) {
  return comm_created(PMPI_Comm_create(comm, group, out), out);
}
int MPI_Comm_free(MPI_Comm* comm) {
  const int rc = PMPI_Comm_free(comm);
  if (rc == MPI_SUCCESS) --g_comms;
  return rc;
}

int MPI_Type_contiguous(int n, MPI_Datatype old, MPI_Datatype* out) {
  return created(PMPI_Type_contiguous(n, old, out), g_types);
}
int MPI_Type_vector(int n, int len, int stride, MPI_Datatype old, MPI_Datatype* out) {
  return created(PMPI_Type_vector(n, len, stride, old, out), g_types);
}
int MPI_Type_create_hvector(int n, int len, MPI_Aint stride, MPI_Datatype old, MPI_Datatype* out) {
  return created(PMPI_Type_create_hvector(n, len, stride, old, out), g_types);
}
int MPI_Type_create_hindexed(int n, const int lens[], const MPI_Aint displs[], MPI_Datatype old,
                             MPI_Datatype* out) {
  return created(PMPI_Type_create_hindexed(n, lens, displs, old, out), g_types);
}
int MPI_Type_create_struct(int n, const int lens[], const MPI_Aint displs[],
                           const MPI_Datatype types[], MPI_Datatype* out) {
  return created(PMPI_Type_create_struct(n, lens, displs, types, out), g_types);
}
int MPI_Type_create_resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* out) {
  return created(PMPI_Type_create_resized(old, lb, extent, out), g_types);
}
int MPI_Type_dup(MPI_Datatype old, MPI_Datatype* out) { return created(PMPI_Type_dup(old, out), g_types); }
int MPI_Type_free(MPI_Datatype* t) {
  const int rc = PMPI_Type_free(t);
  if (rc == MPI_SUCCESS) --g_types;
  return rc;
}

int MPI_Comm_group(MPI_Comm comm, MPI_Group* g) { return created(PMPI_Comm_group(comm, g), g_groups); }
int MPI_Group_free(MPI_Group* g) {
  const int rc = PMPI_Group_free(g);
  if (rc == MPI_SUCCESS) --g_groups;
  return rc;
}

int MPI_Win_allocate(MPI_Aint size, int unit, MPI_Info info, MPI_Comm comm, void* base, MPI_Win* w) {
  return created(PMPI_Win_allocate(size, unit, info, comm, base, w), g_windows);
}
int MPI_Win_create(void* base, MPI_Aint size, int unit, MPI_Info info, MPI_Comm comm, MPI_Win* w) {
  return created(PMPI_Win_create(base, size, unit, info, comm, w), g_windows);
}
int MPI_Win_free(MPI_Win* w) {
  const int rc = PMPI_Win_free(w);
  if (rc == MPI_SUCCESS) --g_windows;
  return rc;
}
int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* base) {
  return created(PMPI_Alloc_mem(size, info, base), g_mem);
}
int MPI_Free_mem(void* base) {
  const int rc = PMPI_Free_mem(base);
  if (rc == MPI_SUCCESS) --g_mem;
  return rc;
}

// Fault injection points: one per exchange method family.
int MPI_Alltoallv(const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb,
                  const int rc[], const int rd[], MPI_Datatype rt, MPI_Comm comm) {
  if (hardening::should_fail("MPI_Alltoallv")) return hardening::g_fail_code;
  return PMPI_Alltoallv(sb, sc, sd, st, rb, rc, rd, rt, comm);
}
int MPI_Alltoallw(const void* sb, const int sc[], const int sd[], const MPI_Datatype st[], void* rb,
                  const int rc[], const int rd[], const MPI_Datatype rt[], MPI_Comm comm) {
  if (hardening::should_fail("MPI_Alltoallw")) return hardening::g_fail_code;
  return PMPI_Alltoallw(sb, sc, sd, st, rb, rc, rd, rt, comm);
}
int MPI_Isend(const void* buf, int n, MPI_Datatype t, int dest, int tag, MPI_Comm comm,
              MPI_Request* req) {
  if (hardening::should_fail("MPI_Isend")) return hardening::g_fail_code;
  hardening::log_send(n, t, dest, comm);
  return PMPI_Isend(buf, n, t, dest, tag, comm, req);
}
int MPI_Issend(const void* buf, int n, MPI_Datatype t, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  hardening::log_send(n, t, dest, comm);
  return PMPI_Issend(buf, n, t, dest, tag, comm, req);
}
int MPI_Send(const void* buf, int n, MPI_Datatype t, int dest, int tag, MPI_Comm comm) {
  hardening::log_send(n, t, dest, comm);
  return PMPI_Send(buf, n, t, dest, tag, comm);
}
int MPI_Put(const void* ob, int on, MPI_Datatype ot, int target, MPI_Aint disp, int tn,
            MPI_Datatype tt, MPI_Win win) {
  if (hardening::should_fail("MPI_Put")) return hardening::g_fail_code;
  return PMPI_Put(ob, on, ot, target, disp, tn, tt, win);
}

}  // extern "C"
