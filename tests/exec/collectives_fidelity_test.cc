// The collectives' fidelity knobs agree where they should: on an uncontended ring (tests/data/
// platforms/star-4gpu.xml: 2 ms and 1 GB/s between any two GPUs) tensor-parallel all-reduces run as
// flows take what the α-β formula says, and the data-parallel all-reduce after the last backward
// adds its ring time to the step.
#include <gtest/gtest.h>

#include "exec_support.h"
#include "sim/exec/executor.h"

namespace pipegrid::sim {
namespace {

using test_support::explicit_job;
using test_support::star_gpus;

constexpr double kRing4 = 2.0 * 3 / 4 * 1e9 / 1e9 + 2.0 * 3 * 2e-3;  // 1 GB over 4 GPUs: 1.512 s

// One stage on four TP GPUs, two micro-batches, F = 1 s and B = 2 s with 2 all-reduces of 1 GB in
// each F and each B: compute 6 s plus 8 all-reduces.
SimulationInput tensor_parallel_job(CommFidelity fidelity) {
  SimulationInput input = explicit_job("star-4gpu.xml", star_gpus(4, 4), "gpipe", {1, 2, 0}, {4, 1, 1},
                                       ActionTimes{1, 2, 1, std::nullopt}, 0);
  StageWork work = input.costs.stage(0);
  work.tp_allreduces_forward = work.tp_allreduces_backward = 2;
  work.tp_allreduce_bytes = 1e9;
  input.costs = JobCosts({work});
  input.options.tp_comm = fidelity;
  return input;
}

TEST(CollectivesFidelity, TensorParallelFlowsTakeTheRingFormula) {
  const SimulationResult result = simulate(tensor_parallel_job(CommFidelity::Flow));
  EXPECT_NEAR(result.makespan, 6 + 8 * kRing4, 1e-9 * result.makespan);
  for (const GpuReport& gpu : result.gpus) EXPECT_NEAR(gpu.account.tp_exposed, 8 * kRing4, 1e-9 * result.makespan);
}

TEST(CollectivesFidelity, TensorParallelAnalyticTakesTheRingFormula) {
  const SimulationResult result = simulate(tensor_parallel_job(CommFidelity::Analytic));
  EXPECT_NEAR(result.makespan, 6 + 8 * kRing4, 1e-9 * result.makespan);
}

TEST(CollectivesFidelity, TensorParallelOffCostsNothing) {
  EXPECT_NEAR(simulate(tensor_parallel_job(CommFidelity::Off)).makespan, 6, 1e-9);
}

TEST(CollectivesFidelity, DataParallelAllReduceFollowsTheLastBackward) {
  // Four replicas of a one-stage pipeline, 1 GB of gradients each: the step is the compute (3 s for
  // one micro-batch) plus one ring all-reduce over the four GPUs.
  SimulationInput input = explicit_job("star-4gpu.xml", star_gpus(4, 4), "gpipe", {1, 1, 0}, {1, 1, 4},
                                       ActionTimes{1, 2, 1, std::nullopt}, 0);
  StageWork work = input.costs.stage(0);
  work.gradient_bytes = 1e9;
  input.costs = JobCosts({work});
  const SimulationResult result = simulate(input);
  EXPECT_NEAR(result.makespan, 3 + kRing4, 1e-9 * result.makespan);
  for (const GpuReport& gpu : result.gpus) EXPECT_NEAR(gpu.account.dp_exposed, kRing4, 1e-9 * result.makespan);
}

}  // namespace
}  // namespace pipegrid::sim
