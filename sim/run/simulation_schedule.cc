#include "sim/run/simulation_schedule.h"

#include <fmt/format.h>

#include "common/input_error.h"
#include "schedules/comm_check.h"
#include "schedules/deadlock.h"
#include "schedules/generators.h"
#include "schedules/schedule_csv.h"
#include "schedules/validate.h"
#include "sim/run/comm_plan_rules.h"
#include "sim/run/limits.h"

namespace pipegrid::run {

Schedule simulation_schedule(const ScheduleSpec& spec, std::optional<std::string>& compute_deadlock, bool& own_comms) {
  Schedule schedule;
  std::optional<CsvSchedule> csv;
  if (!spec.name.empty()) {
    check_schedule_size(spec.name, spec.params);
    schedule = generate_schedule(spec.name, spec.params);
    validate(schedule);
  } else {
    csv = read_schedule_csv_file(spec.file, spec.stage_placement);
    schedule = csv->schedule;
    validate(schedule, csv->locator());
    const auto agree = [&](const char* flag, const std::optional<int>& given, int value) {
      if (given && *given != value) throw InputError(fmt::format("--{} {}: {} has {}", flag, *given, csv->source, value));
    };
    agree("pp", spec.pp, schedule.ranks);
    agree("microbatches", spec.microbatches, schedule.microbatches);
    agree("chunks", spec.chunks, schedule.chunks);
    check_plan_applies(*csv, spec.comm_plan_given, spec.comm_plan);
  }
  if (const auto deadlock = find_deadlock(schedule)) {
    compute_deadlock = csv ? deadlock->report(schedule, csv->locator()) : deadlock->report(schedule);
    return schedule;
  }
  own_comms = schedule.has_comms();
  schedule = lower(schedule, spec.comm_plan);
  if (own_comms)
    validate_comms(schedule, csv->locator(), csv->comm_locator());
  else
    validate_plan(schedule, std::string(comm_plan_name(spec.comm_plan)));
  return schedule;
}

}  // namespace pipegrid::run
