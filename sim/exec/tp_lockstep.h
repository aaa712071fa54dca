// One actor per tensor-parallel group instead of one per GPU, where the group runs in lockstep
// (--tp-lockstep auto, the default). Megatron's TP ranks run the same program, and every TP op
// all-reduces among them: no member's op can start before each has its input. The group's actor
// posts its members' sends, waits for all their receives before the op, computes once for them all
// and fills each member's account, trace rows and waits (deadlock reports stay per GPU); each
// member's gradient rings stay its own (comm_stream.h).
//
// Condition (checked per group): TP > 1; TP all-reduces analytic or off (as flows each member runs
// its own ring); no mixture-of-experts stage; the members on one node, of one speed, none with a
// speed profile. It is exact — the same makespan, step ends, per-GPU accounts and link report as one
// actor per GPU (--tp-lockstep off), to rounding — when the members' inputs arrive together, as on
// a rail-symmetric platform (every member's flows cross links that are images of the first member's,
// of the same bandwidth, latency and sharing, no link shared between members: the generated DGX and
// SuperPOD platforms). Where they do not, the per-GPU run lets a member whose input came early start
// its op alone, which the analytic all-reduce inside the op would not allow; lockstep is then the
// more faithful of the two, and --tp-lockstep off gives the per-GPU run.
#pragma once

#include <vector>

#include "sim/exec/job.h"

namespace pipegrid::sim {

/// The GPUs each actor runs: a lockstep TP group's members in TP order, or one GPU.
std::vector<std::vector<int>> rank_actors(const Job& job);

}  // namespace pipegrid::sim
