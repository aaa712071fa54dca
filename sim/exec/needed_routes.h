// The routes a job will ask SimGrid for: every (sender, receiver) of its pipeline transfers, its
// collectives' rings (as flows, or as α-β, which reads the same routes) and its expert-parallel
// all-to-alls. Checked before the actors start, because SimGrid ends the process on a missing route.
#pragma once

#include <string>
#include <vector>

#include "sim/exec/executor.h"

namespace pipegrid::sim {

struct NeededRoute {
  int src_gpu;
  int dst_gpu;
  std::string why;  // "pipeline transfers between pp ranks 0 and 1", …
};

/// Each needed (src, dst) once, in a fixed order: the pipeline's transfers both ways, then the rings
/// of the tensor-parallel, data-parallel, expert data-parallel, stage-copy and embedding all-reduces
/// (each member to the next, as collectives.h runs them), then the all-to-all pairs. A collective the
/// job does not run (fidelity off, one member, nothing to reduce) needs no route.
std::vector<NeededRoute> needed_routes(const SimulationInput& input, const Placement& placement);

}  // namespace pipegrid::sim
