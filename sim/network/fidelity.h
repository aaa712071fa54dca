// How faithfully a collective runs (--tp-comm, --dp-comm, --ep-comm) and which flows an all-to-all
// runs (--ep-flows): the names a user gives, declared once (common/named.h).
#pragma once

#include "common/named.h"

namespace pipegrid::sim {

/// Real flows over the platform (a ring step by step, collectives.h), an α-β formula with no flows, or nothing.
enum class CommFidelity { Flow, Analytic, Off };
inline constexpr Named<CommFidelity> kCommFidelities[] = {
    {"flow", CommFidelity::Flow}, {"analytic", CommFidelity::Analytic}, {"off", CommFidelity::Off}};

/// DeepEP's InfiniBand-then-NVLink hops, or a flow from every member to every other one (expert_flows.h).
enum class EpFlows { DeepEp, Pairwise };
inline constexpr Named<EpFlows> kEpFlows[] = {{"deepep", EpFlows::DeepEp}, {"pairwise", EpFlows::Pairwise}};

/// How a ring collective runs as flows (collectives.h): step by step, each member forwarding a piece
/// per step once it has the previous one, or streamed, one flow per member and channel carrying all
/// its steps' pieces, as NCCL pipelines a ring's slices. Auto: step by step up to kStepRingMembers
/// members (a node's TP group, small data-parallel groups), streamed above, where steps would be
/// 2(n − 1) flows per member.
enum class RingFlows { Auto, Steps, Streamed };
inline constexpr Named<RingFlows> kRingFlows[] = {
    {"auto", RingFlows::Auto}, {"steps", RingFlows::Steps}, {"streamed", RingFlows::Streamed}};
inline constexpr int kStepRingMembers = 16;

}  // namespace pipegrid::sim
