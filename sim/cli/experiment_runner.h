// One experiment run to its end and printed, whichever way it came: `pipegrid simulate|schedule|check`
// flags, `pipegrid run FILE.toml`, or a sweep's configuration in its child process.
#pragma once

#include "sim/input/experiment_file.h"

namespace pipegrid::cli {

/// Runs the experiment through the run layer, its loggers at its --log-level, and prints what its
/// command prints (per its --format).
/// With --report, then writes DIR/report.html (sim/cli/report_command.h).
/// Returns the exit code (0, or 3 for a deadlock); throws InputError for bad input.
int run_and_print(const input::Experiment& experiment);

}  // namespace pipegrid::cli
