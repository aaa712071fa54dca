// The engine and the network over a job's hosts as the executor sets them up, shared with the
// contention-free pricing (contention_free.h), so that both read the same routes, rails and NCCL
// efficiency — and one process may make both engines, SimGrid refusing a setting changed between them.
#pragma once

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <vector>

#include "sim/exec/simulation_io.h"
#include "sim/network/network.h"
#include "sim/simgrid/simgrid_errors.h"

namespace pipegrid::sim {

/// The engine's settings, chosen for speed at thousands of actors (docs/performance.md): the CPU
/// model's trace integration, and no stack guard page per actor. TI asserts that a speed profile
/// repeats and ends as it starts (cpu_ti.cpp): with one, SimGrid's default (Lazy) model runs the execs.
void configure_engine(const SimulationInput& input);

/// The job's platform into `engine` with configure_engine's settings, SimGrid's errors into `errors`.
void load_job_platform(simgrid::s4u::Engine& engine, SimGridErrors& errors, const SimulationInput& input);

/// The job's GPUs' hosts, in the placement's order.
std::vector<simgrid::s4u::Host*> job_hosts(const simgrid::s4u::Engine& engine, const SimulationInput& input);

/// Its flows as execs or comms, the platform's rails when their routes exist (`rails`), NCCL's
/// NVLink efficiency inside a node.
void connect_network(Network& network, const simgrid::s4u::Engine& engine, const SimulationInput& input,
                     const std::vector<simgrid::s4u::Host*>& hosts, bool rails);

}  // namespace pipegrid::sim
