// The contention-free estimate of a job's step: the executor's input priced as plain numbers — each
// op at its GPU's speed with its analytic TP all-reduces, each p2p message as its flow alone on its
// route (latency, then bytes at the bottleneck bandwidth), the gradient reductions, the optimizer's
// check and update as the executor charges them with analytic collectives — and timed by the
// contention-free engine (schedules/priced_step.h). SimGrid loads the platform for its routes and
// the same α-β formulas the executor's analytic collectives use; no actor runs.
#pragma once

#include <memory>

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

/// One platform loaded into SimGrid for many estimates, as contention_free_step makes one: SimGrid
/// computes a source GPU's routes once (DijkstraCache) for all of them — what planning thousands of
/// layouts on one cluster costs. Only one SimGrid engine lives in a process at a time.
class ContentionFreeSession {
 public:
  explicit ContentionFreeSession(const SimulationInput& first);  // loads first.platform_file
  ~ContentionFreeSession();
  ContentionFreeSession(const ContentionFreeSession&) = delete;
  ContentionFreeSession& operator=(const ContentionFreeSession&) = delete;
  /// As contention_free_step, for an input on the loaded platform file.
  ContentionFree step(const SimulationInput& input);

 private:
  struct Platform;
  std::unique_ptr<Platform> platform_;
};

}  // namespace pipegrid::sim
