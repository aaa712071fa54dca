#include "sim/cli/schedule_run.h"

#include "schedules/memory.h"

namespace pipegrid::cli {

ScheduleRun time_run(Schedule schedule, const ActionTimes& times, double p2p_latency, bool record_spans) {
  ScheduleRun run;
  run.timing = time_schedule(schedule, times, TimingOptions{p2p_latency, record_spans});
  run.peak_activations = peak_activations(schedule);
  run.schedule = std::move(schedule);
  run.times = times;
  run.p2p_latency = p2p_latency;
  return run;
}

ActionTimes per_chunk(const ActionTimes& t, int chunks) {
  ActionTimes scaled{t.f / chunks, t.b / chunks, t.w / chunks, std::nullopt};
  if (t.fb) scaled.fb = *t.fb / chunks;
  return scaled;
}

}  // namespace pipegrid::cli
