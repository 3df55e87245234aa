// SPDX-License-Identifier: MIT
// Building, timing and validating one configuration (collective over the communicator).
#pragma once

#include <mpi.h>

#include <array>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bench.hpp"

namespace dfftapp {

/// The library rejected the configuration at plan creation (bad input for this rank count);
/// the sweep lists it as skipped. Any other exception is an unexpected failure.
struct Rejected : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Statistics of one direction, milliseconds, each repetition maxed over ranks.
struct DirectionTiming {
  double min = 0, median = 0, max = 0;
  double fft = 0, pack = 0, comm = 0, unpack = 0;  // median over repetitions
  std::vector<double> samples;                      // every repetition's max-over-ranks time
  std::vector<std::array<double, 4>> rank_phases;   // rank 0 only: per rank, median fft/pack/comm/unpack
  /// Per stage of the plan in execution order: its name and the median over repetitions of its
  /// fft/pack/comm/unpack time, each repetition's maximum over ranks.
  std::vector<std::pair<std::string, std::array<double, 4>>> stages;
};

struct Measurement {
  DirectionTiming forward, inverse;
  std::vector<std::int64_t> exchange_bytes;  // per exchange, max over ranks
  dfft::NodeTraffic traffic;                 // per transform, summed over ranks (docs/nodes.md)
  std::int64_t memory_host_bytes = 0, memory_device_bytes = 0;  // Plan::memory(), max over ranks
  double reference_error, roundtrip_error, laplacian_error;  // NaN when not run
  std::string description;                   // plan.describe() on rank 0 when asked
  // The plan's options (the tuner's choice with --tune) as it resolved them (dfft::resolved_options:
  // grid, wire format, staging, slices, chunks and steps in flight in use after --adapt).
  dfft::Options used;
  std::string tune_log;                      // dfft::describe() of the tune report, if tuned
};

struct MeasureSettings {
  int warmup = 2, reps = 10;
  bool validate = false, describe = false;
  /// Progress: what is under way and the fraction of the configuration's runs done (may be empty).
  std::function<void(const std::string&, double)> step;
};

Measurement measure(const Config& c, const MeasureSettings& s, MPI_Comm comm);

}  // namespace dfftapp
