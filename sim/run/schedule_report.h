// What `pipegrid schedule` and `pipegrid check` report about a timed schedule, as JSON (their
// --format json and their --out DIR/summary.json) and as files.
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

/// DIR/summary.json (to_json), DIR/schedule.csv (the programs) and DIR/trace.csv (schedule_trace.h;
/// needs the run's spans); InputError when DIR cannot be made.
void write_schedule_outputs(const std::string& dir, const ScheduleRun& run);

/// A deadlocked run's files: DIR/deadlock.json (static_deadlock.h), DIR/trace.csv of what ran before
/// it (`partial`, with spans) and DIR/schedule.csv (the programs). No summary.json: nothing finished.
void write_deadlock_outputs(const std::string& dir, const Schedule& schedule, const Timing& partial,
                            const std::vector<MessageSpan>& messages, const nlohmann::json& deadlock);

}  // namespace pipegrid::run
