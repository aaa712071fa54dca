// Training steps back to back, each ending with the optimizer's check and update, by hand on
// tests/data/platforms/star-4gpu.xml (GPU to GPU: 2 ms + bytes / 1 GB/s; no bytes here). 1F1B, p = 2,
// m = 2, F = 1, B = 2, an update of 0.5 s, PyTorch's plan, async p2p. One step's pipeline: rank 0 runs
// 0F0 [0, 1], 0F1 [1, 2], 0B0 [4.004, 6.004], 0B1 [7.004, 9.004]; rank 1 runs 1F0 [1.002, 2.002],
// 1B0 [2.002, 4.002], 1F1 [4.002, 5.002], 1B1 [5.002, 7.002].
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include "exec_support.h"
#include "sim/exec/executor.h"

namespace pipegrid::sim {
namespace {

using test_support::explicit_job;
using test_support::star_gpus;

SimulationResult two_steps(OptimizerSync sync) {
  SimulationInput input = explicit_job("star-4gpu.xml", star_gpus(4, 4), "1f1b", {2, 2, 0}, {1, 2, 1},
                                       ActionTimes{1, 2, 1, std::nullopt}, 0, CommPlan::Torch);
  input.options.steps = 2;
  input.options.optimizer_sync = sync;
  input.options.optimizer_seconds = {0.5, 0.5};
  return simulate(input);
}

// One simulation per test: SimGrid runs one engine per process.
TEST(Steps, TheAllReduceCheckHoldsEveryRankUntilTheLast) {
  // The check is a barrier of both GPUs: rank 0 arrives last, at 9.004; a tiny all-reduce of two
  // takes 2 hops of 2 ms: both update [9.008, 9.508]. The second step is the first, 9.508 later.
  const SimulationResult r = two_steps(OptimizerSync::AllReduce);
  ASSERT_FALSE(r.deadlock) << r.deadlock->line;
  ASSERT_EQ(r.step_ends.size(), 2u);
  EXPECT_NEAR(r.step_ends[0], 9.508, 1e-9);
  EXPECT_NEAR(r.step_ends[1], 19.016, 1e-9);
  EXPECT_NEAR(r.steady_step(), 9.508, 1e-9);
  EXPECT_NEAR(r.makespan, 19.016, 1e-9);
  EXPECT_NEAR(r.gpus[1].account.sync_wait, 2 * (9.008 - 7.002), 1e-9);  // idle at the barrier, twice
}

TEST(Steps, PostValidationLetsEachRankGoOnWithoutTheOthers) {
  // Step 1: rank 0 updates at once, [9.004, 9.504], and tells rank 1 (9.006), which updates
  // [9.006, 9.506]. Step 2: rank 0 starts at 9.504: 0F0 [9.504, 10.504], 0F1 [10.504, 11.504]; rank 1
  // 1F0 [10.506, 11.506], then (the last rank) sends the previous step's validation back before its
  // first backward (at rank 0 by 11.508, long before 0B0 needs it); 1B0 [11.506, 13.506], 1F1
  // [13.506, 14.506], 1B1 [14.506, 16.506]; 0B0 [13.508, 15.508], 0B1 [16.508, 18.508]; rank 0
  // updates [18.508, 19.008], rank 1 after the message, [18.510, 19.010].
  const SimulationResult r = two_steps(OptimizerSync::PostValidation);
  ASSERT_FALSE(r.deadlock) << r.deadlock->line;
  ASSERT_EQ(r.step_ends.size(), 2u);
  EXPECT_NEAR(r.step_ends[0], 9.506, 1e-9);
  EXPECT_NEAR(r.step_ends[1], 19.010, 1e-9);
  EXPECT_NEAR(r.steady_step(), 9.504, 1e-9);
  EXPECT_NEAR(r.gpus[0].account.step_ends[0], 9.504, 1e-9);
}

// Every schedule runs three steps under either check: post-validation's chain back waits where a rank
// first needs its next rank — on the V-shaped schedules that is a chunk-1 forward, long before any
// backward (waiting at the first backward deadlocked them).
class EveryScheduleSteps : public ::testing::TestWithParam<std::tuple<std::string, OptimizerSync>> {};

TEST_P(EveryScheduleSteps, ThreeStepsFinish) {
  const auto& [schedule, sync] = GetParam();
  SimulationInput input = explicit_job("ideal-16gpu.xml", star_gpus(16, 8), schedule, {4, 8, 0}, {1, 4, 2},
                                       ActionTimes{1, 2, 1, std::nullopt}, 0);
  input.options.steps = 3;
  input.options.optimizer_sync = sync;
  input.options.optimizer_seconds.assign(4, 0.5);
  const SimulationResult r = simulate(input);
  ASSERT_FALSE(r.deadlock) << r.deadlock->line;
  EXPECT_EQ(r.step_ends.size(), 3u);
}

INSTANTIATE_TEST_SUITE_P(
    Schedules, EveryScheduleSteps,
    ::testing::Combine(::testing::Values("gpipe", "1f1b", "interleaved", "zb-h1", "zb-h2", "zbv", "dualpipe", "dualpipev"),
                       ::testing::Values(OptimizerSync::AllReduce, OptimizerSync::PostValidation)),
    [](const auto& param_info) {
      std::string name = std::get<0>(param_info.param);
      std::replace(name.begin(), name.end(), '-', '_');
      return name + (std::get<1>(param_info.param) == OptimizerSync::AllReduce ? "_allreduce" : "_post_validation");
    });

}  // namespace
}  // namespace pipegrid::sim
