// What every SimGrid engine pipegrid makes needs around it: contexts that the sanitizers can follow,
// and a platform load whose failures are pipegrid's one line.
#pragma once

#include <simgrid/s4u/Engine.hpp>
#include <string>

#include "sim/simgrid/simgrid_errors.h"

namespace pipegrid::sim {

/// Under AddressSanitizer, actors run as threads: ASan cannot follow SimGrid's own context switches
/// (raw, ucontext and boost all give false stack-buffer-overflow reports), threads it can. Must be
/// called before the engine is made, which reads the setting. Elsewhere it does nothing.
void use_sanitizable_contexts();

/// pipegrid's network model for a platform whose <config> sets no network/model: CM02 (whose
/// bandwidth and latency factors are 1.0), without TCP cross-traffic (network/crosstraffic 0), so
/// that a hand-written link's latency and bandwidth are what a transfer sees. SimGrid's own default,
/// LV08, multiplies latencies by 13.01 and bandwidths by 0.97 and sends acknowledgements back.
inline constexpr const char* kDefaultNetworkModel = "CM02";

/// Loads a platform file checked by read_platform, into an engine just made (whose SIGINT handler it
/// replaces with pipegrid's again: common/interruption.h). What SimGrid still refuses is an InputError
/// "FILE: SimGrid cannot load it: …" (an exception) or, through `errors`, the same line on an abort.
/// With `default_network_model` (the file's <config> sets no network/model, PlatformFacts::
/// network_model_defaulted), kDefaultNetworkModel runs, cross-traffic off unless the file sets
/// network/crosstraffic, with one notice line on stderr naming the file. Without it, the file's
/// model is left as it is, with SimGrid's defaults for what the file does not set.
void load_platform(simgrid::s4u::Engine& engine, SimGridErrors& errors, const std::string& platform_file,
                   bool default_network_model);

}  // namespace pipegrid::sim
