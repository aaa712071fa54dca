#include "sim/run/schedule_run.h"

#include "schedules/memory.h"

namespace pipegrid::run {

ScheduleRun time_run(Schedule schedule, const ActionTimes& times, const TimingOptions& options) {
  ScheduleRun run;
  run.timing = time_schedule(schedule, times, options);
  run.peak_activations = peak_activations(schedule);
  run.schedule = std::move(schedule);
  run.times = times;
  run.options = options;
  return run;
}

double model_stages_per_rank(const Schedule& schedule) {
  return static_cast<double>(schedule.layout.num_model_stages()) / schedule.ranks;
}

ActionTimes per_model_stage(const ActionTimes& t, double stages) {
  ActionTimes scaled{t.f / stages, t.b / stages, t.w / stages, std::nullopt};
  if (t.fb) scaled.fb = *t.fb / stages;
  return scaled;
}

}  // namespace pipegrid::run
