// One experiment run to its end and printed, whichever way it came: `pipegrid simulate|schedule|check`
// flags, `pipegrid run FILE.toml`, or a sweep's configuration in its child process.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sim/input/experiment_file.h"

namespace pipegrid::cli {

/// What a command adds around its experiment's run, done while the run holds its folder.
struct AroundRun {
  std::vector<std::string> inputs;    // files read before the run (`run`'s TOML), never among its outputs
  std::function<void(int code)> after;  // once the run has ended (`run --plot`'s chart)
};

/// Runs the experiment through the run layer, its loggers at its --log-level, and prints what its
/// command prints (per its --format). With --out, the run holds its folder from start to end
/// (sim/output/output_folder.h: the lock, an earlier run's files removed, status.json). With
/// --report, then writes DIR/report.html (sim/cli/report_command.h).
/// Returns the exit code (0, 3 for a deadlock, 4 for a platform failure); throws InputError for bad
/// input and IoError for a failed write, after status.json has said so.
int run_and_print(const input::Experiment& experiment, const AroundRun& around = {});

}  // namespace pipegrid::cli
