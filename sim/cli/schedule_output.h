// The tables `pipegrid schedule` and `pipegrid check` print (JSON is sim/run/schedule_report.h; the
// timeline has its own file).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "common/number_format.h"
#include "sim/run/schedule_run.h"

namespace pipegrid::cli {

using run::ScheduleRun;

/// The parameters, the metrics per rank, then each rank's program.
void print_table(std::ostream& out, const ScheduleRun& run);

/// Several schedules of one pipeline, one row each, in the order given (the caller sorts). Times
/// per rank-stage (a rank's whole share of the model); peak activations in the same unit.
void print_comparison(std::ostream& out, const std::vector<ScheduleRun>& runs, const ActionTimes& per_rank_stage,
                      const std::vector<std::string>& skipped);

}  // namespace pipegrid::cli
