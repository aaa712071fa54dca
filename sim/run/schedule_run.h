// A schedule checked and timed by the contention-free engine: what `pipegrid schedule` and
// `pipegrid check` print, in whichever format.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <optional>

#include "schedules/action_times.h"
#include "schedules/comm_plan.h"
#include "schedules/comm_timing.h"
#include "schedules/schedule.h"

namespace pipegrid::run {

/// A model's step timed by the contention-free engine (sim/exec/contention_free.h): what `timing`
/// then holds is the first data-parallel replica's pipeline, priced per virtual stage.
struct ModelStep {
  double step_time = 0;           // the last GPU's step end: pipeline, gradients, optimizer
  std::vector<StageOpTimes> ops;  // per virtual stage, replica 0's
  std::vector<MessageCost> forward_messages, backward_messages;
  nlohmann::json echo;  // the model, layout, platform and GPU it was priced for
};

struct ScheduleRun {
  Schedule schedule;  // with its comm actions (lowered by `plan` unless it came with them)
  ActionTimes times;  // per virtual stage, as the engine used them
  CommPlan plan = CommPlan::Framework;  // the plan the user asked for (framework: the schedule's own)
  bool written_comms = false;           // the schedule came with its comm actions (no plan lowered it)
  CommTimingOptions options;            // the p2p latency, semantics and channels the engine used
  Timing timing;                        // partial when `deadlock` is set
  std::vector<MessageSpan> messages;    // with options.record_spans: every message's flow
  std::optional<CommDeadlock> deadlock;  // the order of its comm actions deadlocks
  std::vector<int> peak_activations;  // per rank, in micro-batches on one virtual stage
  std::optional<ModelStep> model;     // the times came from a model, not --time-*
};

/// Lowers a schedule that validate() accepted and find_deadlock() cleared by the plan (unless it has
/// comm actions already), checks the comm actions (validate_comms, with the locators for errors)
/// and times it with the comm engine.
ScheduleRun time_run(Schedule schedule, const ActionTimes& times, CommPlan plan, const CommTimingOptions& options,
                     const OpLocator& locate_op = locate_in_program, const CommLocator& locate_batch = locate_comm_batch);

/// How many model stages make one rank's share of the model: v for interleaved, 2 for ZB-V and
/// DualPipeV, 1 for 1F1B — and for DualPipe, whose two virtual stages per rank are two copies.
double model_stages_per_rank(const Schedule& schedule);

/// The same work split over a rank's model stages: each takes 1 / model_stages_per_rank of a rank's
/// times. Used to compare schedules that cut the model differently.
ActionTimes per_model_stage(const ActionTimes& per_rank_share, double model_stages_per_rank);

}  // namespace pipegrid::run
