// The text formats of `pipegrid schedule` and `pipegrid check`: a table, JSON, CSV; the timeline
// has its own file.
#pragma once

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/number_format.h"
#include "sim/cli/schedule_run.h"

namespace pipegrid::cli {

/// The parameters, the metrics per rank, then each rank's program.
void print_table(std::ostream& out, const ScheduleRun& run);

/// Keys: schedule, pp, microbatches, chunks, times {f, b, w, i, fb}, p2p_latency, makespan,
/// bubble_fraction, ranks [{rank, busy, idle, peak_activations}].
nlohmann::json to_json(const ScheduleRun& run);

/// Several schedules of one pipeline, one row each, in the order given (the caller sorts). Times
/// per rank-stage (a rank's whole share of the model); peak activations in the same unit.
void print_comparison(std::ostream& out, const std::vector<ScheduleRun>& runs, const ActionTimes& per_rank_stage,
                      const std::vector<std::string>& skipped);
nlohmann::json comparison_json(const std::vector<ScheduleRun>& runs, const ActionTimes& per_rank_stage,
                               const std::vector<std::string>& skipped);

}  // namespace pipegrid::cli
