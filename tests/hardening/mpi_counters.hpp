// SPDX-License-Identifier: MIT
// PMPI interposition for the hardening tests: the test executable defines the MPI_ functions
// below, so the (static) dfft library's calls land here first and are forwarded to PMPI_. They
// count live MPI objects (communicators, datatypes, groups, windows, MPI_Alloc_mem blocks), can
// make one named call fail once, on every rank, to drive the library's error paths, and can log
// the point-to-point sends per receiver (the node message counts are checked against them).
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace hardening {

struct LiveObjects {
  long comms = 0, types = 0, groups = 0, windows = 0, mem = 0;
  bool operator==(const LiveObjects&) const = default;
};

/// Objects created minus objects freed since the program started (all callers, this rank).
LiveObjects live();
std::string to_string(const LiveObjects& o);

/// The next `skip`+1-th call of `function` ("MPI_Alltoallv", "MPI_Alltoallw", "MPI_Isend" or
/// "MPI_Put") returns `code` without doing anything; later calls behave normally.
void inject_failure(const std::string& function, int code, int skip = 0);
/// Whether the armed failure has been delivered (and disarms it if not).
bool injected_and_disarm();
/// For interceptors defined elsewhere (io_failure_test.cpp): whether this call of `function` is
/// the armed one (counting it against `skip`), and the code to return then.
bool should_fail(const char* function);
int injected_code();

/// Messages and bytes this rank sent to one peer.
struct Sent {
  long messages = 0;
  std::int64_t bytes = 0;
};
/// From now on, every MPI_Send, MPI_Isend and MPI_Issend of this rank is logged by its receiver's
/// rank in MPI_COMM_WORLD (the log starts empty); stop_sends() ends the log and returns it.
void start_sends();
std::map<int, Sent> stop_sends();

}  // namespace hardening
