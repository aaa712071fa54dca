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

}  // namespace pipegrid::sim
