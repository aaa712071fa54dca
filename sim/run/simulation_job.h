// `pipegrid simulate` below the command line: the options resolved, the schedule checked for a
// static deadlock, the SimGrid executor run with the trace written as it goes, and the output stage's
// files written.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "sim/output/output_files.h"
#include "sim/run/simulation_run.h"

namespace pipegrid::run {

struct SimulationOutcome {
  ResolvedRun run;
  std::optional<std::string> deadlock;  // the cycle of waits (exit code 3), static or found by SimGrid
  /// A host or link went down and ended the job (exit code 4): the one line; failure.json and the
  /// traces up to the failure are written, summary.json and links.csv are not (the step never ended).
  std::optional<std::string> failure;
  sim::SimulationResult result;
  nlohmann::json summary;  // summary.json, when the run finished
  std::vector<output::OutputFile> written;  // under --out, in the order written
};

/// Resolves and runs one simulation. InputError for any bad input, before SimGrid starts.
SimulationOutcome run_simulation(const RunSpec& spec);

}  // namespace pipegrid::run
