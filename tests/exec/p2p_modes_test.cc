// p2p semantics and channels on tests/data/platforms/star-4gpu.xml (a transfer costs 2 ms + bytes /
// 1 GB/s), against hand timelines and against the contention-free comm engine, which runs the same
// comm actions.
#include <gtest/gtest.h>

#include <sstream>

#include "exec_support.h"
#include "sim/exec/executor.h"
#include "schedules/comm_timing.h"
#include "schedules/schedule_csv.h"
#include "schedules/timing.h"

namespace pipegrid::sim {
namespace {

using test_support::explicit_job;
using test_support::star_gpus;

const ActionTimes kTimes{1, 2, 1, std::nullopt};

SimulationInput one_f_one_b(P2pMode mode, CommPlan plan) {
  SimulationInput input = explicit_job("star-4gpu.xml", star_gpus(4, 4), "1f1b", {2, 4, 0}, {1, 2, 1}, kTimes,
                                       /*p2p_bytes=*/0, plan);
  input.options.p2p = mode;
  return input;
}

TEST(P2pModes, RendezvousSendsOneAtATimeDeadlock1F1BWithItsCycle) {
  // Blocking calls: each send after its op, each receive before its op, each waited at once: rank 0 runs 0F0
  // [0, 1], its send is taken at once (rank 1 waits for it), arrives at 1.002; 0F1 [1.002, 2.002] and
  // its send blocks: rank 1 is busy with 1F0 [1.002, 2.002] and 1B0 [2.002, 4.002], then blocks
  // sending 1B0, which rank 0 would receive only after its send of 0F1. Both engines see the cycle.
  const SimulationInput input = one_f_one_b(P2pMode::Rendezvous, CommPlan::BlockingCalls);
  const SimulationResult result = simulate(input);
  ASSERT_TRUE(result.deadlock.has_value());
  EXPECT_EQ(result.deadlock->line,
            "deadlock at 4.002 s: gpu0 waits for gpu1 to receive 0F1, which waits for gpu0 to receive 1B0\n"
            "  gpu0 (tp 0, dp 0, pp 0) is blocked at [0SEND_F1]\n"
            "  gpu1 (tp 0, dp 0, pp 1) is blocked at [1SEND_B0]\n"
            "fix: both sides send first and a rendezvous send waits for a receive posted later; make sends asynchronous "
            "(--p2p async), post each send with the receive it meets in one batch (batch_isend_irecv: --comm-plan "
            "megatron), or have odd ranks receive first");
  const CommTiming engine = time_lowered(input.schedule, kTimes, {0.002, P2pMode::Rendezvous});
  ASSERT_TRUE(engine.deadlock.has_value());
  EXPECT_EQ(engine.deadlock->chain(), "rank 0 waits for rank 1 to post 1RECV_F1, which waits for rank 0 to post 0RECV_B0");
}

TEST(P2pModes, RendezvousPerOpBatches1F1BTakeTheirHandTimeline) {
  // Per-op: before each op a GPU posts the previous op's sends and this op's receives, then waits for
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
  // Five exchanges on the path: 15 + 5 × 0.002 = 15.010, in both engines.
  const SimulationInput input = one_f_one_b(P2pMode::Rendezvous, CommPlan::PerOp);
  const SimulationResult result = simulate(input);
  EXPECT_FALSE(result.deadlock.has_value());
  EXPECT_NEAR(result.makespan, 15.010, 1e-9);
  EXPECT_NEAR(time_lowered(input.schedule, kTimes, {0.002, P2pMode::Rendezvous}).timing.makespan, 15.010, 1e-9);
}

TEST(P2pModes, RendezvousMegatron1F1BAgreesWithTheCommEngine) {
  // Megatron's calls differ from per-op only in the warmup (a forward's send and the next forward's
  // receive are two calls): on a two-rank pipeline that changes nothing, 15.010 again.
  const SimulationInput input = one_f_one_b(P2pMode::Rendezvous, CommPlan::Framework);
  const SimulationResult result = simulate(input);
  EXPECT_FALSE(result.deadlock.has_value());
  EXPECT_NEAR(result.makespan, 15.010, 1e-9);
  EXPECT_NEAR(time_lowered(input.schedule, kTimes, {0.002, P2pMode::Rendezvous}).timing.makespan, 15.010, 1e-9);
}

TEST(P2pModes, AsyncOneFOneBAddsOnlyTheTransfersOnTheCriticalPath) {
  // Async sends never block: the makespan is the contention-free one with a 2 ms latency on every
  // cross-rank dependency.
  const SimulationResult result = simulate(one_f_one_b(P2pMode::Async, CommPlan::Torch));
  EXPECT_FALSE(result.deadlock.has_value());
  EXPECT_NEAR(result.makespan, time_schedule(generate_1f1b({2, 4, 1}), kTimes, {0.002, false}).makespan, 1e-9);
}

// Two activations of 1 GB posted together on one channel: the first ends at 2 + L + S/bw = 3.002, the
// second follows it on the wire and ends at 2 + L + 2S/bw = 4.002 (its latency was spent queueing).
// On two channels they share the port and both end at 4.002.
//   one channel:  1F0 [3.002, 4.002], 1F1 [4.002, 5.002], 1B0 [5.002, 7.002] sends 1B0 (to 8.004),
//                 1B1 [7.002, 9.002] sends 1B1 (to 10.004); 0B0 [8.004, 10.004], 0B1 [10.004, 12.004]
//   two channels: 1F0 [4.002, 5.002], 1F1 [5.002, 6.002], 1B0 [6.002, 8.002] (to 9.004), 1B1 [8.002,
//                 10.002] (to 11.004); 0B0 [9.004, 11.004], 0B1 [11.004, 13.004]
double two_messages_on(int channels) {
  std::istringstream csv(
      "0F0,0F1,[0SEND_F0;0SEND_F1],0RECV_B0,0RECV_B1,0B0,0B1\n"
      "1RECV_F0,1RECV_F1,1F0,1F1,1B0,1SEND_B0,1B1,1SEND_B1\n");
  const CsvSchedule read = read_schedule_csv(csv, "two.csv", CsvPlacement::Inferred);
  validate(read.schedule, read.locator());
  validate_comms(read.schedule, read.locator(), read.comm_locator());
  SimulationInput input = explicit_job("star-4gpu.xml", star_gpus(4, 4), "gpipe", {2, 2, 0}, {1, 2, 1}, kTimes,
                                       /*p2p_bytes=*/1e9);
  input.schedule = read.schedule;
  input.options.p2p_channels = channels;
  const SimulationResult result = simulate(input);
  EXPECT_FALSE(result.deadlock.has_value());
  return result.makespan;
}

// One simulation per test: SimGrid runs one engine per process.
TEST(P2pChannels, TwoMessagesOnOneChannelTravelInOrder) { EXPECT_NEAR(two_messages_on(1), 12.004, 1e-9); }
TEST(P2pChannels, TwoMessagesOnTwoChannelsShareTheWire) { EXPECT_NEAR(two_messages_on(2), 13.004, 1e-9); }

}  // namespace
}  // namespace pipegrid::sim
