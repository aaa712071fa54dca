// The p2p options every timed command shares, read once: --p2p, --comm-plan.
#pragma once

#include "schedules/comm_plan.h"
#include "schedules/p2p_mode.h"
#include "sim/input/option_values.h"

namespace pipegrid::run {

/// --p2p: async, or rendezvous (also spelt blocking, its old name).
P2pMode p2p_mode_of(const input::OptionValues& values);
/// --comm-plan.
CommPlan comm_plan_of(const input::OptionValues& values);

}  // namespace pipegrid::run
