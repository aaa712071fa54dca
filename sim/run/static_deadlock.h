// deadlock.json of `pipegrid schedule` and `pipegrid check`: the checker's and the comm engine's
// waits in the one format the executor writes too (docs/exit-codes.md), with what a
// picture of the deadlock needs — when each rank blocked, the wait-for edges, the fix.
#pragma once

#include <nlohmann/json.hpp>

#include "schedules/comm_timing.h"
#include "schedules/deadlock.h"

namespace pipegrid::run {

/// Keys: engine ("checker" / "comm-engine"), time (the partial run's end: every rank that did not
/// finish is blocked by then), chain, cycle, open, blocked, wait_for {edges [{from, to, label}]},
/// hint {shape, text}. A wait: rank, gpu ("rank R"), position (0-based, in the program or, blocked
/// in a batch, in the rank's comm batches), blocked_at, blocked_since (the end of its last op, or
/// when it posted what it waits in), waits_for {rank, action, what}. `partial` is the run that
/// stalled (its ranks' finish times are when they blocked).
nlohmann::json deadlock_json(const Deadlock& deadlock, const Schedule& schedule, const Timing& partial);
nlohmann::json deadlock_json(const CommDeadlock& deadlock, const Schedule& schedule, const Timing& partial);

}  // namespace pipegrid::run
