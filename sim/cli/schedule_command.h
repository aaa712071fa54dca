// What `pipegrid schedule` and `pipegrid check` print: per --format a table, an ASCII timeline, the
// programs as CSV or the metrics as JSON — for one schedule or, with --schedule all, for every one.
#pragma once

#include <string>

#include "sim/run/schedule_job.h"

namespace pipegrid::cli {

/// Prints the outcome and returns the exit code: 0, or 3 for a deadlock (the report on stderr).
int print_schedule_outcome(const run::ScheduleOutcome& outcome, const std::string& format);

}  // namespace pipegrid::cli
