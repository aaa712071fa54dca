// What the run layer logs (common/log.h's `run` logger) once a simulation is resolved, before SimGrid
// starts: at debug the job's layout on the platform and how it runs.
#pragma once

#include "sim/run/run_spec.h"
#include "sim/run/simulation_run.h"

namespace pipegrid::run {

/// "layout: 32 GPUs = tp 8 × pp 2 × dp 2 on 4 nodes (tp-dp-pp), schedule 1f1b, m = 8, v = 1, comm plan
/// megatron, p2p async", and a line on the costs and the collectives.
void log_resolved_run(const RunSpec& spec, const ResolvedRun& run);

}  // namespace pipegrid::run
