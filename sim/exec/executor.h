// One simulation: the schedule run by one SimGrid actor per GPU on a platform, from the engine's start
// to the result. The caller has checked every input (docs/design.md: bad input never reaches SimGrid).
#pragma once

#include "sim/exec/simulation_io.h"

namespace pipegrid::sim {

/// Runs the simulation, handing the trace to `input.trace` as it goes. Call once per process
/// (SimGrid keeps process-wide state).
SimulationResult simulate(const SimulationInput& input);

}  // namespace pipegrid::sim
