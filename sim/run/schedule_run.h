// A schedule checked and timed by the contention-free engine: what `pipegrid schedule` and
// `pipegrid check` print, in whichever format.
#pragma once

#include <string>
#include <vector>

#include "schedules/action_times.h"
#include "schedules/schedule.h"
#include "schedules/timing.h"

namespace pipegrid::run {

struct ScheduleRun {
  Schedule schedule;
  ActionTimes times;  // per virtual stage, as the engine used them
  TimingOptions options;  // the p2p latency and mode the engine used
  Timing timing;
  std::vector<int> peak_activations;  // per rank, in micro-batches on one virtual stage
};

/// Times a schedule that validate() accepted and find_deadlock() cleared.
ScheduleRun time_run(Schedule schedule, const ActionTimes& times, const TimingOptions& options);

/// How many model stages make one rank's share of the model: v for interleaved, 2 for ZB-V and
/// DualPipeV, 1 for 1F1B — and for DualPipe, whose two virtual stages per rank are two copies.
double model_stages_per_rank(const Schedule& schedule);

/// The same work split over a rank's model stages: each takes 1 / model_stages_per_rank of a rank's
/// times. Used to compare schedules that cut the model differently.
ActionTimes per_model_stage(const ActionTimes& per_rank_share, double model_stages_per_rank);

}  // namespace pipegrid::run
