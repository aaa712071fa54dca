// Context parallelism's messages priced for one virtual stage (schedules/cp_op_cost.h), by the
// executor's analytic path and the contention-free engine alike, so that the two agree.
#pragma once

#include <vector>

#include "schedules/cp_op_cost.h"
#include "sim/exec/job_costs.h"
#include "sim/exec/placement.h"
#include "sim/network/network.h"

namespace pipegrid::sim {

/// The stage's context-parallel layers and their α-β seconds for the GPUs `members` (one, or a TP
/// group run in lockstep: the longest member's message), whose speed is `speed` flop/s: the ring's
/// KV send to the next CP rank (p2p_seconds) and its steps' attention, or Ulysses' all-to-alls over
/// the CP group (all_to_all_seconds). Nothing with cp = 1.
CpStageComm cp_stage_comm(Network& network, const Placement& placement, const StageWork& work,
                          const std::vector<int>& members, double speed, bool all_to_all);

/// The next GPU of `gpu`'s CP group, ring order (its coordinate + 1, wrapping).
int cp_next(const Placement& placement, int gpu);
/// The previous one.
int cp_previous(const Placement& placement, int gpu);

}  // namespace pipegrid::sim
