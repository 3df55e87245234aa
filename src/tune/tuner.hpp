// SPDX-License-Identifier: MIT
// The tuner as the plan uses it (src/exec/plan.cpp) and its parts (wisdom file I/O, the plan
// timer). Public entry points: dfft/tune.hpp.
#pragma once

#include <mpi.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dfft/tune.hpp"
#include "exec/plan_impl.hpp"
#include "tune/select.hpp"

namespace dfft::detail {

/// Plan<T> construction: options.tune == none builds the plan as described; otherwise tunes
/// and builds the chosen plan, and sets `report`.
std::unique_ptr<PlanImpl> make_plan_impl(MPI_Comm comm, const std::vector<std::int64_t>& shape,
                                         const Options& opt, bool is_double, const Layout* user_in,
                                         const Layout* user_out,
                                         std::shared_ptr<const TuneReport>& report);

/// Tune (collective); when `built` is given, it receives the chosen plan.
TuneReport run_tuner(MPI_Comm comm, const std::vector<std::int64_t>& shape, const Options& opt,
                     bool is_double, const Layout* user_in, const Layout* user_out,
                     const TuneSettings& s, std::unique_ptr<PlanImpl>* built);

/// Build a plan on every rank or on none: when any rank throws dfft::Error, all return null
/// and `msg` holds the lowest failing rank's message (`status`, when given, its kind).
std::unique_ptr<PlanImpl> build_everywhere(MPI_Comm comm, const std::vector<std::int64_t>& shape,
                                           const Options& o, bool is_double, const Layout* in,
                                           const Layout* out, std::string& msg, Status* status = nullptr);

/// Wisdom file I/O: rank 0 reads (a missing file is no error), every rank parses the same text.
/// A file that exists but is not a readable dfft wisdom file throws InvalidArgument on every
/// rank; skipped entries become warnings. The result is the same on every rank.
Wisdom load_wisdom(const std::string& path, MPI_Comm comm, std::vector<std::string>& warnings);
/// The entry for `key` (the problem of options `opt`), checked against what this communicator
/// can build; invalid or missing entries add a warning and give nothing.
/// `base` with the choice an entry stores in place: every field the option table marks as the
/// tuner's choice (OptionField::from_choice).
Options with_choice(const Options& base, const WisdomEntry& e);
std::optional<WisdomEntry> find_wisdom(const Wisdom& w, const WisdomKey& key, const Options& opt, int dims,
                                       std::vector<std::string>& warnings);
/// Rank 0 merges `e` into the file (replacing an entry with the same key, keeping the entries it
/// cannot read) and replaces it through io::OutputFile. Collective: every rank throws when the
/// file is refused (InvalidArgument) or the write failed (LibraryError, the file as it was).
/// `make_dir`: create the file's folder first (the default file's cache folder may not exist yet).
void store_wisdom(const std::string& path, const WisdomEntry& e, MPI_Comm comm, bool make_dir = false);

/// The key of a tuning problem (collective: asks rank 0 for the device model and finds the
/// node layout): dfft::wisdom_key with the resolved fields in place.
WisdomKey wisdom_key(MPI_Comm comm, const std::vector<std::int64_t>& shape, const Options& opt,
                     bool is_double);

/// Times candidate plans for select_fastest().
std::unique_ptr<CandidateTimer> make_plan_timer(MPI_Comm comm, const std::vector<std::int64_t>& shape,
                                               const std::vector<Options>& candidates, bool is_double,
                                               const Layout* in, const Layout* out);

}  // namespace dfft::detail
