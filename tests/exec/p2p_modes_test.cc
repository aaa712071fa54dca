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

TEST(P2pModes, BatchedOneFOneBTakesItsHandTimeline) {
  // Batched: before each op a GPU posts the previous op's sends and this op's receives, then waits for
  // all of them; a flow starts once both sides have posted and takes L = 2 ms. Rank 0 runs 0F0 0F1 0B0
  // 0F2 0B1 0F3 0B2 0B3, rank 1 1F0 1B0 1F1 1B1 1F2 1B2 1F3 1B3 (F = 1, B = 2):
  //   0F0 [0, 1]; rank 1 waits for it; rank 0 posts its send at 1, both wait to 1.002
  //   0F1 [1.002, 2.002] and 1F0 [1.002, 2.002]; 1B0 [2.002, 4.002] needs nobody
  //   rank 0 posts 0F1's send and 1B0's receive at 2.002, rank 1 both at 4.002: both flows to 4.004
  //   0B0 [4.004, 6.004], 0F2 [6.004, 7.004];  1F1 [4.004, 5.004], 1B1 [5.004, 7.004]
  //   both post at 7.004 (0F2 out, 1B1 in; 1B1 out, 0F2 in): 7.006
  //   0B1 [7.006, 9.006], 0F3 [9.006, 10.006];  1F2 [7.006, 8.006], 1B2 [8.006, 10.006]
  //   both post at 10.006: 10.008
  //   0B2 [10.008, 12.008], then waits for 1B3;  1F3 [10.008, 11.008], 1B3 [11.008, 13.008]
  //   rank 1 posts 1B3's send at 13.008: 13.010; 0B3 [13.010, 15.010].
  // Five exchanges on the path, 15 + 5 × 0.002 = 15.010. The contention-free engine's batched mode
  // (the sender held for L once after an op that sends) finds the same path: 0F1 ends 2.002 + L; 1F1
  // waits for rank 1's hold after 1B0 (4.004); 0B0 for 1B0 + L (4.004); and so on to 0B3 at 13.010.
  const SimulationResult result = simulate(one_f_one_b(P2pMode::Batched));
  EXPECT_FALSE(result.deadlock_report.has_value());
  EXPECT_NEAR(result.makespan, 15.010, 1e-9);
  const Timing engine = time_schedule(generate_1f1b({2, 4, 1}), ActionTimes{1, 2, 1, std::nullopt},
                                      {0.002, false, P2pMode::Batched});
  EXPECT_NEAR(engine.makespan, 15.010, 1e-9);
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
