// `pipegrid report DIR`: DIR/report.html from a run's output files (sim/report/report.h); and the same
// after a run for `--report` on simulate, schedule, check and run.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include "sim/input/option_values.h"

namespace pipegrid::cli {

void add_report_command(CLI::App& app, std::function<int()>& run);

/// InputError before the run when --report is given without an output directory, or for a run that
/// writes no files to report (schedule --schedule all).
void check_report_request(const input::OptionValues& values);

/// After a run that exited with `code`: writes DIR/report.html when --report is on and says so on
/// stderr. The run's exit code stands: a report that cannot be made is a warning.
void report_after_run(const input::OptionValues& values, int code);

}  // namespace pipegrid::cli
