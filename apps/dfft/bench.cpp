// SPDX-License-Identifier: MIT
// The `dfft bench` sweep: runs each configuration, agrees across ranks on skips and failures,
// prints the table on rank 0 and writes the JSON lines.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numeric>
#include <random>
#include <set>

#include "bench.hpp"
#include "dfft/option_fields.hpp"
#include "output_target.hpp"
#include "cases.hpp"
#include "dfft/reference.hpp"
#include "machine.hpp"
#include "measure.hpp"
#include "mpi_check.hpp"
#include "progress.hpp"
#include "bench_summary.hpp"
#include "report.hpp"
#include "results.hpp"
#include "stats.hpp"

namespace dfftapp {

namespace {

enum Outcome { ok = 0, skipped = 1, failed = 2 };

struct Tally {
  int configs = 0, ran = 0, records = 0, skipped = 0, failed = 0, invalid = 0;
  int single_device = 0, noisy = 0;  // rank 0: reference records written, noisy rows
};

double total_points(const std::vector<std::int64_t>& s) {
  return std::accumulate(s.begin(), s.end(), 1.0, [](double a, std::int64_t v) { return a * static_cast<double>(v); });
}

// FFTW convention: 5 N log2 N flops for complex, half of that for real transforms, per array of
// the batch.
double gflops(const std::vector<std::int64_t>& shape, bool real, double ms, int batch) {
  const double n = total_points(shape);
  if (ms <= 0 || n < 2) return 0;
  return batch * (real ? 2.5 : 5.0) * n * std::log2(n) / (ms * 1e-3) / 1e9;
}

// A check passes below its limit (validation_limits: the precision's, plus the wire format's
// expected error); "not run" (NaN) passes only where the library does not run it by design
// (serial reference too large, Laplacian on axes shorter than 7 points, either on a plan with
// DCT/DST axes).
std::string validation(const Config& c, const Measurement& m) {
  const auto lim = validation_limits(c.is_double, m.used.codec, static_cast<int>(m.exchange_bytes.size()), c.shape);
  const bool periodic =
      std::all_of(c.opt.r2r.begin(), c.opt.r2r.end(), [](dfft::R2R k) { return k == dfft::R2R::none; });
  bool short_axis = !periodic;
  for (auto s : c.shape) short_axis |= s < 7;
  const bool ref_expected = periodic && total_points(c.shape) <= static_cast<double>(1 << 26);
  auto bad = [&](double e, double limit, bool expected) { return std::isnan(e) ? expected : !(e <= limit); };
  bool fail = bad(m.reference_error, lim.reference, ref_expected) || bad(m.roundtrip_error, lim.roundtrip, true) ||
              bad(m.laplacian_error, lim.laplacian, !short_axis);
  return fail ? "fail" : "pass";
}

Record base_record(const Config& c, const BenchArgs& a, int ranks) {
  Record r;
  r.precision = c.is_double ? "double" : "float";
  r.size = c.shape;
  r.ranks = ranks;
  r.warmup = c.warmup;
  r.reps = c.reps;
  r.test = c.test;
  r.options = c.opt;
  return r;
}

// A record names what the plan ran, read from the plan (its options are the tuner's choice with
// --tune, each field the plan resolves as it resolved it: dfft::resolved_options), never what
// the command line or cases file asked for.
std::vector<Record> records(const Config& c, const BenchArgs& a, int ranks, const Measurement& m) {
  Record r = base_record(c, a, ranks);
  r.options = m.used;
  r.exchange_bytes = m.exchange_bytes;
  r.traffic = m.traffic;
  r.memory_host_bytes = m.memory_host_bytes;
  r.memory_device_bytes = m.memory_device_bytes;
  r.reference_error = m.reference_error;
  r.roundtrip_error = m.roundtrip_error;
  r.laplacian_error = m.laplacian_error;
  if (c.validate) r.validation = validation(c, m);
  r.timestamp = utc_timestamp();
  r.host = host_name();
  const bool real = c.opt.transform != dfft::Transform::c2c;
  std::vector<Record> out;
  for (const auto* t : {&m.forward, &m.inverse}) {
    Record d = r;
    const bool fwd = t == &m.forward;
    d.direction = fwd ? "forward" : "inverse";
    d.time_min = t->min;
    d.time_median = t->median;
    d.time_max = t->max;
    d.fft = t->fft;
    d.pack = t->pack;
    d.comm = t->comm;
    d.unpack = t->unpack;
    d.gflops = gflops(c.shape, real, t->median, c.opt.batch);
    d.samples_ms = t->samples;
    d.rank_phases = t->rank_phases;
    d.stages = t->stages;
    // The inverse is checked by the round trip once the forward matches the serial reference.
    d.error = fwd ? m.reference_error : m.roundtrip_error;
    out.push_back(d);
  }
  if (c.inverse_first) std::swap(out[0], out[1]);
  return out;
}

// Every rank learns the worst outcome and the message of the lowest rank that had it.
Outcome agree(Outcome mine, std::string& msg, MPI_Comm comm) {
  int rank = 0, size = 1, worst = 0;
  APP_MPI(MPI_Comm_rank(comm, &rank));
  APP_MPI(MPI_Comm_size(comm, &size));
  int k = mine;
  APP_MPI(MPI_Allreduce(&k, &worst, 1, MPI_INT, MPI_MAX, comm));
  if (worst == ok) return ok;
  int cand = k == worst ? rank : size, root = 0;
  APP_MPI(MPI_Allreduce(&cand, &root, 1, MPI_INT, MPI_MIN, comm));
  int len = static_cast<int>(msg.size());
  APP_MPI(MPI_Bcast(&len, 1, MPI_INT, root, comm));
  msg.resize(static_cast<std::size_t>(len));
  APP_MPI(MPI_Bcast(msg.data(), len, MPI_CHAR, root, comm));
  return static_cast<Outcome>(worst);
}

std::string label(const Config& c, const BenchArgs& a, int ranks) {
  Record r = base_record(c, a, ranks);
  return r.precision + " " + record_option(r, "transform") + " " + shape_text(r.size) + " " + configuration_text(r);
}

struct Sweep {
  const BenchArgs& a;
  MPI_Comm comm;
  int rank = 0, ranks = 1;
  Table table{stdout};
  JsonLines json;
  Tally tally;
  CsvWriter csv;
  nlohmann::json machine;  // rank 0
  Fastest fastest;         // rank 0
  std::function<void(const std::string&, double)> step;  // progress within a configuration

  void emit(const Record& r) {
    if (rank != 0) return;
    table.row(r);
    Record full = r;
    full.machine = &machine;
    if (json.is_open()) json.write(full);
    if (csv.is_open()) csv.write(to_json(full));
  }

  // The whole transform on one device of rank 0 ("single-device" rows) for comparison. The other
  // ranks wait at the barrier; an error here is reported, not thrown, so they are not left there.
  void reference(const Config& c) {
    int broken = 0;
    if (rank == 0) {
      try {
        reference_rows(c);
      } catch (const std::exception& e) {
        table.note(std::string("  single-device reference failed: ") + message_of(e));
        broken = 1;
      }
    }
    APP_MPI(MPI_Bcast(&broken, 1, MPI_INT, 0, comm));  // every rank returns the same exit code
    tally.failed += broken;
  }

  // One pass over device memory per direction (ms) from the last single-device rows: the dfft rows
  // of the same problem that follow count their passes by it (0: none measured).
  double pass_ms[2] = {0, 0};

  void reference_rows(const Config& c) {
    pass_ms[0] = pass_ms[1] = 0;
    for (bool fwd : {true, false}) {
      auto t = dfft::single_device_reference(c.opt.backend, c.shape, c.opt.transform, c.is_double, fwd,
                                             c.warmup, c.reps, c.opt.effort);
      if (!t.ran) {
        table.note("  single-device reference not run: " + t.why);
        return;
      }
      Record r = base_record(c, a, 1);
      r.labels = {{"decomposition", "single-device"}, {"variant", "-"}};
      // A serial transform has no exchange: every field that says how data are distributed or
      // exchanged, and every field the tuner chooses, holds its default, then what the transform
      // runs (the table's serial column: one array, one slice, nothing pipelined or adapted).
      for (const dfft::OptionField& f : dfft::option_fields()) {
        if (f.distribution_only || f.from_choice) f.set(r.options, f.default_text());
        if (!f.serial.empty()) f.set(r.options, std::string(f.serial));
      }
      r.direction = fwd ? "forward" : "inverse";
      r.time_min = t.min * 1e3;
      r.time_median = t.median * 1e3;
      r.time_max = t.max * 1e3;
      r.fft = r.time_median;  // a serial transform is all FFT
      r.gflops = gflops(c.shape, c.opt.transform != dfft::Transform::c2c, r.time_median, 1);
      pass_ms[fwd ? 0 : 1] = t.pass * 1e3;
      if (t.pass > 0) r.memory_passes = r.time_median / pass_ms[fwd ? 0 : 1];
      r.timestamp = utc_timestamp();
      r.host = host_name();
      emit(r);
      ++tally.single_device;
    }
  }

  void describe(const Config& c, const std::string& path) {
    std::string text = "  path of " + label(c, a, ranks) + " (rank 0):";
    std::size_t start = 0;
    while (start < path.size()) {
      std::size_t end = path.find('\n', start);
      if (end == std::string::npos) end = path.size();
      text += "\n    " + path.substr(start, end - start);
      start = end + 1;
    }
    table.note(text);
  }

  // A configuration with `ranks` set runs on world ranks [0, ranks); the others wait.
  MPI_Comm sub_comm(const Config& c) {
    MPI_Comm sub = MPI_COMM_NULL;
    if (c.ranks <= 0 || c.ranks >= ranks) return comm;
    APP_MPI(MPI_Comm_split(comm, rank < c.ranks ? 0 : MPI_UNDEFINED, rank, &sub));
    return sub;
  }

  void run(const Config& c) {
    MeasureSettings s{c.warmup, c.reps, c.validate, a.verbose, step};
    Measurement m;
    std::string msg;
    Outcome mine = ok;
    const int used = c.ranks > 0 ? c.ranks : ranks;
    MPI_Comm sub = used > ranks ? MPI_COMM_NULL : sub_comm(c);
    try {
      if (used > ranks) throw Rejected("needs " + std::to_string(used) + " ranks, running on " + std::to_string(ranks));
      if (sub != MPI_COMM_NULL) m = measure(c, s, sub);
    } catch (const Rejected& e) {
      mine = skipped;
      msg = message_of(e);
    } catch (const std::exception& e) {
      mine = failed;
      msg = message_of(e);
      std::fprintf(stderr, "dfft bench: rank %d: %s: %s\n", rank, label(c, a, ranks).c_str(), msg.c_str());
      std::fflush(stderr);
    }
    if (sub != MPI_COMM_NULL && sub != comm) APP_MPI(MPI_Comm_free(&sub));
    Outcome all = agree(mine, msg, comm);
    ++tally.configs;
    if (all != ok) {
      (all == skipped ? tally.skipped : tally.failed)++;
      if (rank == 0)
        table.note(std::string(all == skipped ? "  skipped: " : "  FAILED: ") + label(c, a, used) + ": " + msg);
      return;
    }
    if (rank == 0 && a.verbose) describe(c, m.description);
    if (rank == 0 && !m.tune_log.empty()) table.note(m.tune_log);
    ++tally.ran;
    // Rank 0 always takes part, so its verdict is the configuration's (ranks left out have none).
    int invalid = 0;
    if (rank == 0) {
      auto recs = records(c, a, used, m);
      invalid = recs.front().validation == "fail";
      std::string passes;
      for (auto& r : recs) {
        const double one = pass_ms[r.direction == "forward" ? 0 : 1];
        if (c.reference && one > 0 && c.opt.batch == 1) {
          r.memory_passes = r.time_median / one;
          char buf[96];
          std::snprintf(buf, sizeof buf, "%s%s %.2f (one pass %.3f ms)", passes.empty() ? "" : ", ", r.direction.c_str(),
                        r.memory_passes, one);
          passes += buf;
        }
      }
      if (!passes.empty())
        table.note("  passes over device memory (input read and output written once at the device copy rate of the "
                   "single-device row's job): " + passes);
      for (const auto& r : recs) {
        emit(r);
        const std::string noisy = noise_note(r);
        if (!noisy.empty()) table.note(noisy);
        tally.noisy += !noisy.empty();
      }
      fastest.add(recs);
    }
    APP_MPI(MPI_Bcast(&invalid, 1, MPI_INT, 0, comm));
    tally.invalid += invalid;
    tally.records += 2;
  }
};

bool same_group(const Config& x, const Config& y) {
  return x.shape == y.shape && x.is_double == y.is_double && x.opt.transform == y.opt.transform;
}

void preamble(Sweep& s, const std::vector<Config>& configs) {
  Record proto;
  bool any_reference = false;
  std::set<std::string> backends;
  for (const auto& c : configs) {
    s.table.fit(base_record(c, s.a, c.ranks > 0 ? c.ranks : s.ranks));
    any_reference |= c.reference;
    backends.insert(dfft::to_string(c.opt.backend));
  }
  if (any_reference) {
    proto.labels["decomposition"] = "single-device";
    s.table.fit(proto);
  }
  const std::string backend = join(std::vector<std::string>(backends.begin(), backends.end()), ",");
  if (!s.a.cases.empty())
    std::printf("dfft bench: %zu configuration%s from %s on %d rank%s, backend %s\n", configs.size(),
                configs.size() == 1 ? "" : "s", s.a.cases.c_str(), s.ranks, s.ranks == 1 ? "" : "s",
                backend.c_str());
  else
    std::printf("dfft bench: %zu configuration%s on %d rank%s, backend %s, warmup %d, reps %d%s%s\n",
                configs.size(), configs.size() == 1 ? "" : "s", s.ranks, s.ranks == 1 ? "" : "s",
                s.a.option("backend").c_str(), s.a.warmup, s.a.reps, s.a.validate > 0 ? ", validating" : "",
                s.a.default_sweep ? " (embedded default sweep; see dfft bench --help)" : "");
  std::printf("times in ms: max over ranks per repetition; phases: medians of per-repetition maxima\n");
  s.table.header();
}

// Relative cost of a configuration for the remaining-time estimate: N log N per transform.
double cost(const Config& c) {
  const double n = std::max(2.0, total_points(c.shape));
  const double runs = 2.0 * (c.warmup + c.reps) + (c.validate ? 8.0 : 0.0) + (c.reference ? 2.0 * c.reps : 0.0);
  return n * std::log2(n) * runs;
}

void list_configs(const Sweep& s, const std::vector<Config>& configs) {
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const Config& c = configs[i];
    std::printf("%zu: %s, %d rank%s, warmup %d, reps %d%s%s%s\n", i + 1,
                label(c, s.a, c.ranks > 0 ? c.ranks : s.ranks).c_str(), c.ranks > 0 ? c.ranks : s.ranks,
                (c.ranks > 0 ? c.ranks : s.ranks) == 1 ? "" : "s", c.warmup, c.reps, c.validate ? ", validate" : "",
                c.reference ? ", reference" : "", c.test.empty() ? "" : (" [" + c.test + "]").c_str());
  }
  std::printf("dfft bench: %zu configuration%s\n", configs.size(), configs.size() == 1 ? "" : "s");
}

// Same arguments on every rank, so every rank gets the same configurations or the same error
// (a cases file is read by rank 0 and broadcast).
std::vector<Config> configurations(const BenchArgs& a, MPI_Comm comm) {
  try {
    return a.cases.empty() ? expand(a) : expand_cases(load_cases(a.cases, comm), a);
  } catch (const dfft::Error& e) {  // a name the library does not know
    if (a.cases.empty()) throw UsageError(message_of(e));
    throw InputError(a.cases + ": " + message_of(e));
  }
}

// Refused or uncreatable outputs end the run before anything is measured (bad command line).
void open_outputs(Sweep& s) {
  std::string why;
  int opened = 1;
  if (s.rank == 0) {
    if (!s.a.json.empty() && !s.json.open(s.a.json, why)) opened = 0;
    else if (!s.a.csv.empty() && !s.csv.open(s.a.csv, why)) opened = 0;
  }
  APP_MPI(MPI_Bcast(&opened, 1, MPI_INT, 0, s.comm));
  if (!opened) throw UsageError(s.rank == 0 ? why : std::string());
}

// Puts the record files in place; false (every rank) when a write failed: the records are then
// not saved, the files at the paths are as they were, and the run's summary says FAIL.
bool commit_outputs(Sweep& s) {
  int ok = 1;
  if (s.rank == 0)
    for (OutputFile* f : {&s.json.file(), &s.csv.file()})
      if (!f->commit()) {
        std::fprintf(stderr, "dfft bench: %s\n", f->error().c_str());
        ok = 0;
      }
  APP_MPI(MPI_Bcast(&ok, 1, MPI_INT, 0, s.comm));
  return ok != 0;
}

}  // namespace

int run_bench(const BenchArgs& a, MPI_Comm comm) {
  Sweep s{a, comm, 0, 1, Table{stdout}, JsonLines{}, Tally{}, CsvWriter{}, nlohmann::json{}, Fastest{}, {}};
  APP_MPI(MPI_Comm_rank(comm, &s.rank));
  APP_MPI(MPI_Comm_size(comm, &s.ranks));
  std::vector<Config> configs = configurations(a, comm);
  std::size_t dropped = 0;
  if (s.ranks == 1 && a.option("tune") == "none") dropped = keep_one_per_problem(configs);
  if (dropped > 0 && s.rank == 0)
    std::fprintf(stderr, "dfft bench: on 1 rank every decomposition, variant, grid, method and codec is the "
                 "same local transform: running one configuration per size, precision and transform "
                 "(%zu left out; run on 2 or more ranks to compare them)\n", dropped);
  if (a.shuffle != 0) {
    // std::shuffle's algorithm is the library's own, but every rank runs this same binary.
    std::mt19937 gen(a.shuffle);
    std::shuffle(configs.begin(), configs.end(), gen);
  }
  if (a.list) {
    if (s.rank == 0) list_configs(s, configs);
    return 0;
  }
  open_outputs(s);
  if (a.option("tune") == "measure")
    if (const std::string w = wisdom_target(a.option("wisdom_file"), comm); !w.empty()) check_wisdom_target(w, comm);
  bool cuda = false;
  std::vector<double> costs;
  for (const auto& c : configs) {
    cuda |= c.opt.backend == dfft::Backend::cuda;
    costs.push_back(cost(c));
  }
  if (s.rank == 0) {
    s.machine = machine_description(cuda);
    preamble(s, configs);
  }
  Progress progress("dfft bench", s.rank == 0 && progress_wanted(a.progress));
  const double total = std::accumulate(costs.begin(), costs.end(), 0.0);
  double finished = 0;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const std::string name = "[" + std::to_string(i + 1) + "/" + std::to_string(configs.size()) + "] " +
                             label(configs[i], a, configs[i].ranks > 0 ? configs[i].ranks : s.ranks);
    // Within a configuration: its share of the cost as its timed runs go by (planning counts
    // as none of it, so the ticker names it while a big plan is made).
    s.step = [&, i](const std::string& what, double fraction) {
      progress.update(finished + fraction * costs[i], total, name + ": " + what);
    };
    if (configs[i].reference && (i == 0 || !same_group(configs[i], configs[i - 1]) || !configs[i - 1].reference))
      s.reference(configs[i]);
    s.run(configs[i]);
    finished += costs[i];
    progress.update(finished, total, name);
  }
  const Tally& t = s.tally;
  const bool saved = commit_outputs(s);
  const bool bad = !saved || t.failed > 0 || t.invalid > 0 || t.ran == 0;
  if (s.rank == 0) {
    s.fastest.print(stdout);
    if (t.noisy > 0)
      std::printf("dfft bench: %d row%s noisy (max/median or median/min > %.0f): their times are not reliable\n", t.noisy,
                  t.noisy == 1 ? "" : "s", kNoiseRatio);
    std::printf("dfft bench: %d configuration%s: %d ran (%d records + %d single-device), %d skipped, %d "
                "failed, %d failed validation -> %s\n",
                t.configs, t.configs == 1 ? "" : "s", t.ran, t.records, t.single_device, t.skipped, t.failed,
                t.invalid, bad ? "FAIL" : "OK");
  }
  if (!saved || t.failed > 0 || t.ran == 0) return exit_failure;
  return t.invalid > 0 ? exit_validation : exit_ok;
}

}  // namespace dfftapp
