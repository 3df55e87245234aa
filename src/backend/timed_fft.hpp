// SPDX-License-Identifier: MIT
// The faster of two ways to run one local FFT step, chosen by timing once per problem in the
// process: the FFT library's own plan of the step, or another engine (a GPU's column kernel, a
// split of a step into passes the library runs faster). Which wins depends on the lengths,
// the strides and the machine, so under Effort::measure both are timed; a later plan of the same
// problem takes the same one without timing again (as FFTW's wisdom gives it the same plans),
// so that two such plans run, and describe themselves, alike.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "backend/device.hpp"

namespace dfft::detail {

using FftMaker = std::function<std::unique_ptr<LocalFft>()>;

/// The faster of `library()` and `own()`, timed by `seconds` (one execution on the plan's
/// scratch buffers) the first time the process meets `key`. The result's engine_timing() gives
/// both times, the first labelled `library_name`, the second with own()'s engine(). Where own()
/// returns null (it cannot plan this step), library() without timing.
std::unique_ptr<LocalFft> faster_fft(const std::string& key, const std::string& library_name, const FftMaker& library,
                                     const FftMaker& own, const std::function<double(LocalFft&)>& seconds);

/// An environment variable that overrides FftDesc::Engine::automatic for measurements
/// (docs/environment.md): "0" never the other engine, "1" wherever it applies, anything else or
/// unset: timed under Effort::measure, the library under estimate.
enum class EnginePolicy { never, always, timed };
EnginePolicy engine_policy(const char* variable);

}  // namespace dfft::detail
