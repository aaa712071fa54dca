// What a resolved simulation is checked for before SimGrid starts, because SimGrid's own reaction
// would be an abort, a hang or a silent misreading: ops and transfers its clock cannot hold, routes
// the job needs that the platform lacks, and the time-varying profiles the executor cannot follow.
#pragma once

#include <vector>

#include "schedules/schedule.h"
#include "sim/exec/simulation_io.h"
#include "sim/platform/platform_facts.h"

namespace pipegrid::run {

/// SimGrid's clock is a double: an op must end at a finite time, and a whole step too. Ops longer
/// than this (31 700 years) are a unit mistake, not a what-if.
inline constexpr double kMaxOpSeconds = 1e12;

/// Every GPU's longest computation, and the largest transfer over the slowest link of the platform,
/// finite and below kMaxOpSeconds: InputError otherwise.
void check_durations(const sim::JobCosts& costs, const Schedule& schedule, const sim::Placement& placement,
                     const platform::PlatformFacts& facts);

/// The optimizer's update on each pipeline rank below kMaxOpSeconds.
void check_optimizer_seconds(const std::vector<double>& seconds, double optimizer_bytes);

/// Every route the job needs exists (InputError naming it), and whether the rails' routes do
/// (in.rails); where the file does not spell its routes out, the executor asks SimGrid
/// (in.routes_checked false).
void check_routes(const platform::PlatformFacts& facts, sim::SimulationInput& in);

/// The contention-free engine's makespan of the run (schedules/timing.h): each op at its stages'
/// mean time at the job's median speed, every step the same, no communication — what the progress
/// line's ETA runs to. 0 when the costs give no time to an op.
double contention_free_makespan(const sim::SimulationInput& in, double peak_flops);

/// The platform's host and link profiles as the executor uses them (speed-profiled hosts, the dates a
/// link comes back); what --on-failure wait cannot wait for is refused.
void apply_profiles(const platform::PlatformFacts& facts, sim::SimulationInput& in);

}  // namespace pipegrid::run
