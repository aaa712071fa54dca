// The comm plan's rules that simulate and check share: where a plan applies, and what a plan's order
// must allow.
#pragma once

#include <string>

#include "schedules/comm_plan.h"
#include "schedules/p2p_mode.h"
#include "schedules/schedule_csv.h"

namespace pipegrid::run {

/// A plan lowers a compute-only schedule: InputError "--comm-plan P: FILE has comm actions of its own"
/// when one is given for a file that writes its own.
void check_plan_applies(const CsvSchedule& csv, bool plan_given, CommPlan plan);

/// validate_comms of a schedule a plan lowered: a plan whose grouping makes two ranks post their
/// messages to each other in different orders (per-op and blocking-calls on the V-shaped schedules)
/// is refused naming the plan.
void validate_plan(const Schedule& lowered, const std::string& plan_name);

}  // namespace pipegrid::run
