// What `pipegrid schedule` and `pipegrid check` report about a timed schedule, as JSON: their
// --format json and their summary.json (sim/output/schedule_files.h writes the files).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/run/schedule_run.h"

namespace pipegrid::run {

/// Keys: schedule, pp, microbatches, chunks, times {f, b, w, i, fb}, p2p_latency, p2p, makespan,
/// bubble_fraction, longest_rank_span, ranks [{rank, busy, idle, peak_activations}], version.
nlohmann::json to_json(const ScheduleRun& run);

/// Several schedules of one pipeline, one row each, in the order given. Times per rank-stage (a rank's
/// whole share of the model); peak activations in the same unit.
nlohmann::json comparison_json(const std::vector<ScheduleRun>& runs, const ActionTimes& per_rank_stage,
                               const std::vector<std::string>& skipped);

/// Peak activations in units of a rank's share of the model (model_stages_per_rank stages make one).
double peak_in_rank_shares(const ScheduleRun& run);
/// Parameters per rank relative to an even split of the model over the ranks (2 for DualPipe's copies).
double parameters_share(const Schedule& schedule);

}  // namespace pipegrid::run
