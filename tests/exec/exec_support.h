// Helpers for executor tests: the test platforms and a simulation input with explicit times.
#pragma once

#include <string>
#include <vector>

#include "schedules/comm_plan.h"
#include "schedules/generators.h"
#include "sim/exec/simulation_io.h"

namespace pipegrid::sim::test_support {

inline const std::string kPlatforms = PIPEGRID_TEST_DATA "/platforms";

/// The GPUs of tests/data/platforms/*: hosts gpu0 … gpu{n-1}, `per_node` to a node.
inline std::vector<PlatformGpu> star_gpus(int n, int per_node) {
  std::vector<PlatformGpu> gpus;
  for (int g = 0; g < n; ++g) gpus.push_back({"gpu" + std::to_string(g), g / per_node});
  return gpus;
}

/// A job on `platform` (a path), its GPUs placed in Megatron's order (tp-dp-pp).
inline SimulationInput job_on(const std::string& platform, std::vector<PlatformGpu> gpus, Schedule schedule,
                              ParallelSizes sizes, JobCosts costs = JobCosts(), ExecOptions options = {}) {
  SimulationInput input;
  input.platform_file = platform;
  input.platform_gpus = std::move(gpus);
  input.schedule = std::move(schedule);
  // The expert layers' layout follows the costs' routing, as a run's does (simulation_run.cc); without
  // experts it is the dense one.
  if (costs.routing().enabled()) sizes.ep = costs.routing().ep;
  else sizes.etp = sizes.tp;
  input.placement = Placement(sizes, "tp-dp-pp", input.platform_gpus, false);
  input.costs = std::move(costs);
  input.options = std::move(options);
  return input;
}

/// A job of the named schedule with explicit times (seconds at 1 Tflop/s, the test GPUs' speed).
inline SimulationInput explicit_job(const std::string& platform, std::vector<PlatformGpu> gpus, const std::string& schedule,
                                    ScheduleParams params, ParallelSizes sizes, const ActionTimes& times,
                                    double p2p_bytes, CommPlan plan = CommPlan::Framework) {
  SimulationInput input =
      job_on(kPlatforms + "/" + platform, std::move(gpus), lower(generate_schedule(schedule, params), plan), sizes);
  input.costs = JobCosts::from_times(times, 1e12, input.schedule.num_stages(), p2p_bytes);
  // The hand computations time the pipeline alone; the optimizer's check has tests of its own.
  input.options.optimizer_sync = OptimizerSync::None;
  return input;
}

/// Gives every stage of the job `gradient_bytes` of gradients (and `parameter_bytes` of parameters, for
/// the distributed optimizer's all-gather), for the gradient-reduction hand computations.
inline void set_gradients(SimulationInput& input, double gradient_bytes, double parameter_bytes = 0) {
  std::vector<StageWork> stages;
  for (int s = 0; s < input.costs.num_stages(); ++s) {
    StageWork work = input.costs.stage(s);
    work.gradient_bytes = gradient_bytes;
    work.parameter_bytes = parameter_bytes;
    stages.push_back(work);
  }
  input.costs = JobCosts(stages);
}

}  // namespace pipegrid::sim::test_support
