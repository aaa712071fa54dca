// The contention-free estimate of a job's step: the executor's input priced as plain numbers — each
// op at its GPU's speed with its analytic TP all-reduces, each p2p message as its flow alone on its
// route (latency, then bytes at the bottleneck bandwidth), the gradient reductions, the optimizer's
// check and update as the executor charges them with analytic collectives — and timed by the
// contention-free engine (schedules/priced_step.h). SimGrid loads the platform for its routes and
// the same α-β formulas the executor's analytic collectives use; no actor runs.
#pragma once

#include "schedules/priced_step.h"
#include "sim/exec/simulation_io.h"

namespace pipegrid::sim {

struct ContentionFree {
  PricedJob job;
  PricedStep step;
};

/// Prices and times `input` (a resolved simulation's input, steps 1). InputError for what the
/// contention-free engine does not time: mixture-of-experts all-to-alls, post-validation, TP or DP
/// collectives as flows (it prices them as --tp-comm/--dp-comm analytic: the caller sets those),
/// GPUs whose speed varies over time.
ContentionFree contention_free_step(const SimulationInput& input);

}  // namespace pipegrid::sim
