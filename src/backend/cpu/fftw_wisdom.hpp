// SPDX-License-Identifier: MIT
// FFTW wisdom kept on disk, one file per machine and precision (Options::fftw_wisdom), so that
// FFTW_MEASURE planning of a size already seen costs milliseconds instead of seconds.
#pragma once

#include <mutex>
#include <string>

#include "dfft/types.hpp"

namespace dfft::detail {

/// FFTW's planner shares wisdom and trigonometric tables between plans and is not thread-safe
/// (FFTW manual, "Thread safety": only the execute functions are): planning, destroying plans
/// and importing or exporting wisdom take this lock.
std::mutex& fftw_planner_mutex();

/// The wisdom file a plan with these options uses; empty when none (estimate, switched off, not
/// the CPU backend, or no directory known).
std::string fftw_wisdom_path(const Options& opt, bool is_double);
/// The directory of the machine's wisdom files: Options::fftw_wisdom_dir, else $DFFT_WISDOM_DIR,
/// else $XDG_CACHE_HOME/dfft, else ~/.cache/dfft; empty when none is known.
std::string wisdom_dir(const Options& opt);
/// <wisdom_dir(opt)>/<prefix><hostname><suffix>; empty when no directory or host name is known.
std::string machine_file(const Options& opt, const std::string& prefix, const std::string& suffix);

/// Imports the file at construction; save() merges what planning added since into the file.
/// A missing, unreadable, corrupt or foreign file only means no wisdom; a failed write is not an
/// error either (it costs planning time later), but save() says why, for the plan to report.
class FftwWisdomFile {
 public:
  FftwWisdomFile(std::string path, bool is_double);
  /// Empty when saved (or nothing new to save); else why the file could not be written.
  std::string save();

 private:
  std::string export_text() const;
  bool import_text(const std::string& text) const;

  std::string path_;
  bool is_double_;
  std::string before_;  // in-memory wisdom after the import
};

}  // namespace dfft::detail
