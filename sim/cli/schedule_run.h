// A schedule checked and timed by the contention-free engine: what `pipegrid schedule` and
// `pipegrid check` print, in whichever format.
#pragma once

#include <string>
#include <vector>

#include "schedules/action_times.h"
#include "schedules/schedule.h"
#include "schedules/timing.h"

namespace pipegrid::cli {

struct ScheduleRun {
  Schedule schedule;
  ActionTimes times;  // per virtual stage, as the engine used them
  double p2p_latency = 0;
  Timing timing;
  std::vector<int> peak_activations;  // per rank, in micro-batches on one virtual stage
};

/// Times a schedule that validate() accepted and find_deadlock() cleared.
ScheduleRun time_run(Schedule schedule, const ActionTimes& times, double p2p_latency, bool record_spans);

/// The same work split over v chunks: each chunk of a rank takes 1/v of the rank's times. Used to
/// compare schedules with different chunk counts on the same model.
ActionTimes per_chunk(const ActionTimes& per_rank_stage, int chunks);

}  // namespace pipegrid::cli
