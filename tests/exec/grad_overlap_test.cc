// Gradient reduction as Megatron-LM's DistributedDataParallel does it, by hand on
// tests/data/platforms/star-4gpu.xml (GPU to GPU: 2 ms + bytes / 1 GB/s). 1F1B, p = 2, m = 2, d = 2
// (GPUs 0 and 1 hold rank 0, GPUs 2 and 3 rank 1), F = 1, B = 2, 1 GB of gradients per stage, buckets
// of 0.5 GB. The pipeline (Megatron's plan, async p2p, no bytes): rank 0 runs 0F0 [0, 1], 0F1 [1, 2],
// 0B0 [4.004, 6.004], 0B1 [7.004, 9.004]; rank 1 runs 1F0 [1.002, 2.002], 1B0 [2.002, 4.002],
// 1F1 [4.002, 5.002], 1B1 [5.002, 7.002].
// A ring all-reduce of S over two GPUs: 2 steps of S/2, S / bw + 2 × 2 ms.
//  - Rank 1's stage is one bucket (Megatron buckets only the first chunk of pipeline rank 0), ready
//    at the end of 1B1: [7.002, 8.006].
//  - Overlapped: rank 0's first bucket is ready half-way through 0B1 (8.004) and takes 0.504 s to
//    8.508; the second at 9.004, to 9.508. Its GPUs wait 0.504 after their last op.
//  - Not overlapped: one 1 GB all-reduce after 0B1: [9.004, 10.008], a wait of 1.004.
#include <gtest/gtest.h>

#include "exec_support.h"
#include "sim/exec/executor.h"

namespace pipegrid::sim {
namespace {

using test_support::explicit_job;
using test_support::set_gradients;
using test_support::star_gpus;

SimulationResult run(bool overlap, bool distributed_optimizer = false, bool gather_overlap = false) {
  SimulationInput input = explicit_job("star-4gpu.xml", star_gpus(4, 4), "1f1b", {2, 2, 0}, {1, 2, 2},
                                       ActionTimes{1, 2, 1, std::nullopt}, 0);
  set_gradients(input, 1e9, 0.5e9);
  input.options.grad_overlap = overlap;
  input.options.grad_bucket_bytes = 0.5e9;
  input.options.distributed_optimizer = distributed_optimizer;
  input.options.param_gather_overlap = gather_overlap;
  return simulate(input);
}

// One simulation per test: SimGrid runs one engine per process.
TEST(GradOverlap, BucketsStartAsTheBackwardProducesThem) {
  const SimulationResult r = run(true);
  ASSERT_FALSE(r.deadlock) << r.deadlock->line;
  EXPECT_NEAR(r.makespan, 9.508, 1e-9);
  for (int gpu : {0, 1}) EXPECT_NEAR(r.gpus[gpu].account.dp_exposed, 0.504, 1e-9) << gpu;
  for (int gpu : {2, 3}) EXPECT_NEAR(r.gpus[gpu].account.finish, 8.006, 1e-9) << gpu;
}

TEST(GradOverlap, WithoutOverlapTheReductionFollowsTheStep) {
  const SimulationResult r = run(false);
  ASSERT_FALSE(r.deadlock) << r.deadlock->line;
  EXPECT_NEAR(r.makespan, 10.008, 1e-9);
  for (int gpu : {0, 1}) EXPECT_NEAR(r.gpus[gpu].account.dp_exposed, 1.004, 1e-9) << gpu;
}

// The distributed optimizer: each bucket is reduce-scattered, one step of S/2 (half the all-reduce):
// rank 0's two buckets [8.004, 8.256] and [9.004, 9.256], rank 1's 1 GB [7.002, 7.504]. After the
// update (none here) the parameters, 0.5 GB per stage in bf16, are all-gathered on the same rings in
// the same buckets (a quarter GB each on rank 0: 0.125 s + 2 ms): [9.256, 9.383] and [9.383, 9.510].
TEST(GradOverlap, TheDistributedOptimizerReduceScattersThenAllGathers) {
  const SimulationResult r = run(true, /*distributed_optimizer=*/true, /*gather_overlap=*/false);
  ASSERT_FALSE(r.deadlock) << r.deadlock->line;
  EXPECT_NEAR(r.makespan, 9.510, 1e-9);
  EXPECT_NEAR(r.first_step(), 9.510, 1e-9);
  for (int gpu : {0, 1}) EXPECT_NEAR(r.gpus[gpu].account.dp_exposed, 0.252 + 0.254, 1e-9) << gpu;
}

TEST(GradOverlap, OverlappedParameterGathersAreLeftToTheNextStepsForwards) {
  // The step ends with the update (9.256); its gathers are the next forwards' — here, with no next
  // step, the run's last 0.254 s.
  const SimulationResult r = run(true, /*distributed_optimizer=*/true, /*gather_overlap=*/true);
  ASSERT_FALSE(r.deadlock) << r.deadlock->line;
  EXPECT_NEAR(r.first_step(), 9.256, 1e-9);
  EXPECT_NEAR(r.makespan, 9.510, 1e-9);
}

}  // namespace
}  // namespace pipegrid::sim
