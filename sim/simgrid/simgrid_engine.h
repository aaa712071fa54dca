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

/// Loads a platform file checked by read_platform. What SimGrid still refuses is an InputError
/// "FILE: SimGrid cannot load it: …" (an exception) or, through `errors`, the same line on an abort.
void load_platform(simgrid::s4u::Engine& engine, SimGridErrors& errors, const std::string& platform_file);

}  // namespace pipegrid::sim
