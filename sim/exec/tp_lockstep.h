// One actor per tensor-parallel group instead of one per GPU where the group runs in lockstep
// (--tp-lockstep auto): Megatron's TP ranks run the same program and all-reduce in every op, so the
// group's actor computes once for all and fills each member's account, trace and waits. The
// conditions, and why the result is the per-GPU run's, are in docs/design.md ("TP groups in lockstep").
#pragma once

#include <vector>

#include "sim/exec/job.h"

namespace pipegrid::sim {

/// The GPUs each actor runs: a lockstep TP group's members in TP order, or one GPU.
std::vector<std::vector<int>> rank_actors(const JobPlan& plan, const GpuHosts& gpus);

}  // namespace pipegrid::sim
