// What `pipegrid schedule` and `pipegrid check` print: per --format a table, an ASCII timeline, the
// programs as CSV or the metrics as JSON — for one schedule or, with --schedule all, for every one —
// and with --plot the Gantt chart of the run's trace.
#pragma once

#include <string>

#include "sim/input/option_values.h"
#include "sim/run/schedule_job.h"

namespace pipegrid::cli {

/// Prints the outcome and returns the exit code: 0, or 3 for a deadlock (the report on stderr).
/// `width`: the columns a timeline fits in.
int print_schedule_outcome(const run::ScheduleOutcome& outcome, const std::string& format, long width);

/// Runs `schedule` or `check` (`command`) with these values, prints the outcome and, with --plot
/// FILE.png, draws the chart of the trace it wrote: under --out DIR, or else in a temporary
/// directory (removed afterwards) whose folder is named after the schedule, which the chart's title
/// shows. A chart that cannot be drawn is a warning; the run's exit code stands.
int run_schedule_command(const input::OptionValues& values, input::Command command);

}  // namespace pipegrid::cli
