// What `pipegrid simulate` prints: the run's table (or its summary as JSON), or the deadlock report.
#pragma once

#include <string>

#include "sim/run/simulation_job.h"

namespace pipegrid::cli {

/// Prints the outcome per --format (table or json) and returns the exit code: 0, or 3 for a deadlock.
int print_simulation_outcome(const run::SimulationOutcome& outcome, const std::string& format);

}  // namespace pipegrid::cli
