// The three p2p semantics on tests/data/platforms/star-4gpu.xml (transfers cost 2 ms + bytes / 1 GB/s):
// blocking 1F1B deadlocks — each neighbour sends before it receives — while batched and async finish.
#include <gtest/gtest.h>

#include "exec_support.h"
#include "schedules/timing.h"

namespace pipegrid::sim {
namespace {

using test_support::explicit_job;
using test_support::star_gpus;

SimulationInput one_f_one_b(P2pMode mode) {
  SimulationInput input = explicit_job("star-4gpu.xml", star_gpus(4, 4), "1f1b", {2, 4, 0}, {1, 2, 1},
                                       ActionTimes{1, 2, 1, std::nullopt}, /*p2p_bytes=*/0);
  input.options.p2p = mode;
  return input;
}

TEST(P2pModes, BlockingOneFOneBDeadlocksWithItsCycle) {
  // Rank 0 runs 0F0 [0, 1], sends it (taken at once: rank 1 waits for it), arrives at 1.002, runs 0F1
  // [1, 2] and blocks sending it; rank 1 runs 1F0 [1.002, 2.002], 1B0 [2.002, 4.002] and blocks
  // sending 1B0, which rank 0 would receive only after its send of 0F1.
  const SimulationResult result = simulate(one_f_one_b(P2pMode::Blocking));
  ASSERT_TRUE(result.deadlock_report.has_value());
  EXPECT_EQ(*result.deadlock_report,
            "deadlock at 4.002 s: gpu0 waits for gpu1 to receive 0F1, which waits for gpu0 to receive 1B0\n"
            "  gpu0 (tp 0, dp 0, pp 0) is blocked at 0F1\n"
            "  gpu1 (tp 0, dp 0, pp 1) is blocked at 1B0");
}

TEST(P2pModes, BatchedOneFOneBFinishes) {
  const SimulationResult result = simulate(one_f_one_b(P2pMode::Batched));
  EXPECT_FALSE(result.deadlock_report.has_value());
  // No faster than the contention-free (4 + 2 − 1)(1 + 2) = 15, plus at least the two 2 ms transfers
  // of the first forward and the last backward.
  EXPECT_GE(result.makespan, 15 + 2 * 0.002 - 1e-9);
}

TEST(P2pModes, AsyncOneFOneBAddsOnlyTheTransfersOnTheCriticalPath) {
  // Async sends never block: the makespan is the contention-free one with a 2 ms latency on every
  // cross-rank dependency (the two engines agree with latency, see the schedule tests).
  const SimulationResult result = simulate(one_f_one_b(P2pMode::Async));
  EXPECT_FALSE(result.deadlock_report.has_value());
  const Schedule s = generate_1f1b({2, 4, 1});
  EXPECT_NEAR(result.makespan, time_schedule(s, ActionTimes{1, 2, 1, std::nullopt}, {0.002, false}).makespan, 1e-9);
}

}  // namespace
}  // namespace pipegrid::sim
