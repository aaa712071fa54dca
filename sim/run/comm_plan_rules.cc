#include "sim/run/comm_plan_rules.h"

#include <fmt/format.h>

#include "common/input_error.h"
#include "schedules/comm_check.h"

namespace pipegrid::run {

void check_plan_applies(const CsvSchedule& csv, bool plan_given, CommPlan plan) {
  if (plan_given && csv.schedule.has_comms())
    throw InputError(fmt::format("--comm-plan {}: {} has comm actions of its own; a plan lowers a compute-only "
                                 "schedule",
                                 comm_plan_name(plan), csv.source));
}

void validate_plan(const Schedule& lowered, const std::string& plan_name) {
  try {
    validate_comms(lowered);
  } catch (const InputError& e) {
    throw InputError(fmt::format("--comm-plan {}: its order of {} cannot run on NCCL: {}", plan_name, lowered.name,
                                 e.what()));
  }
}

}  // namespace pipegrid::run
