#include "sim/run/schedule_run.h"

#include "schedules/memory.h"
#include "sim/run/comm_plan_rules.h"

namespace pipegrid::run {

ScheduleRun time_run(Schedule schedule, const ActionTimes& times, CommPlan plan, const CommTimingOptions& options,
                     const OpLocator& locate_op, const CommLocator& locate_batch) {
  ScheduleRun run;
  const bool written = schedule.has_comms();  // its batches are cells of a file, not a plan's
  run.schedule = lower(schedule, plan);
  if (written)
    validate_comms(run.schedule, locate_op, locate_batch);
  else
    validate_plan(run.schedule, std::string(comm_plan_name(plan)));
  CommTiming timed = time_lowered(run.schedule, times, options);
  run.timing = std::move(timed.timing);
  run.deadlock = std::move(timed.deadlock);
  run.messages = std::move(timed.messages);
  run.peak_activations = peak_activations(run.schedule);
  run.times = times;
  run.plan = plan;
  run.written_comms = written;
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
