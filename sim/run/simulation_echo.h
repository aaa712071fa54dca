// summary.json's `inputs`: what was simulated and with which options, said by each option's name as
// the user gives it (common/named.h), so that a run can be read back and run again.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/run/run_spec.h"
#include "sim/run/simulation_run.h"

namespace pipegrid::run {

/// The inputs of a resolved run: platform (its file, or the platform gen command of a generated one),
/// schedule and layout, options, and the model with its compute model or the explicit times.
nlohmann::json simulation_echo(const RunSpec& spec, const ResolvedRun& run);

}  // namespace pipegrid::run
