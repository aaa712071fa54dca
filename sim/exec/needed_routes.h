// The routes a job will ask SimGrid for: every (sender, receiver) of its pipeline transfers, its
// collectives' rings (as flows, or as α-β, which reads the same routes) and its expert-parallel
// all-to-alls. Checked before the actors start: a missing route would fail inside a running actor.
#pragma once

#include <string>
#include <vector>

#include "sim/exec/simulation_io.h"

namespace pipegrid::sim {

struct NeededRoute {
  int src_gpu;
  int dst_gpu;
  std::string why;  // "pipeline transfers between pp ranks 0 and 1", …
};

/// Each needed (src, dst) once, in a fixed order: the pipeline's transfers both ways, then the rings
/// of the tensor-parallel, data-parallel, expert data-parallel, stage-copy and embedding all-reduces
/// (each member to the next, as collectives.h runs them), then the all-to-alls' pairs (every pair, or
/// with DeepEP's flows those expert_flows.h names). A collective the
/// job does not run (fidelity off, one member, nothing to reduce) needs no route.
std::vector<NeededRoute> needed_routes(const SimulationInput& input);

/// The further routes that collectives between nodes with one ring per rail may ask for (rails.h),
/// each once: for every ring of needed_routes between nodes with two members or more on each (a ring
/// with a node of one member keeps one ring), its nodes' GPUs' routes among themselves and to the
/// next node's GPUs (how the rails are found), and each member to every other member of its node
/// and of the next node in the ring's order of nodes (how the rings per rail may go). When one is
/// missing, collectives keep one path per hop (SimulationInput::rails) rather than the run being
/// refused.
std::vector<NeededRoute> rail_routes(const SimulationInput& input);

}  // namespace pipegrid::sim
