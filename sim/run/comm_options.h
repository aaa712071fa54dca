// The p2p options every timed command shares, read once: --p2p, --comm-plan.
#pragma once

#include <string>

#include "schedules/comm_plan.h"
#include "schedules/p2p_mode.h"
#include "sim/input/option_values.h"

namespace pipegrid::run {

/// --p2p: async, or rendezvous (also spelt blocking, its old name).
P2pMode p2p_mode_of(const input::OptionValues& values);
/// --comm-plan.
CommPlan comm_plan_of(const input::OptionValues& values);

/// validate_comms of a schedule a plan lowered: a plan whose grouping makes two ranks post their
/// messages to each other in different orders (per-op and blocking-calls on the V-shaped schedules)
/// is refused naming the plan.
void validate_plan(const Schedule& lowered, const std::string& plan_name);

}  // namespace pipegrid::run
