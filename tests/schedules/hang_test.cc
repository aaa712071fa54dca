// Hangs without a cycle: a rank that skips an op, or runs fewer micro-batches, leaves a peer waiting
// for what it never computes or sends. The checker and the comm engine report the open chain of
// waits; a missing op nobody waits for stays a broken rule. Every expectation is worked by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "schedules/comm_timing.h"
#include "schedules/deadlock.h"
#include "schedules/generators.h"
#include "schedules/results.h"
#include "schedules/stage_chunks.h"
#include "test_support.h"

namespace pipegrid {
namespace {

using test_support::csv_schedule;
using test_support::error_of;

const std::string kUnmatched =
    "fix: a rank waits for a message its peer never sends: the peer ended its step without the op; every rank must "
    "run the same micro-batches (the same m, every forward and backward)";

TEST(Hang, ASkippedBackwardAPeerWaitsForIsAnOpenChain) {
  // Rank 1 never runs 1B1; rank 0's 0B1 reads its gradient. Rank 0 runs 0F0 [0, 1], 0F1 [1, 2] and
  // 0B0 [4, 6] (after 1F0 [1, 2], 1B0 [2, 4]); rank 1 ends its step with 1F1 [4, 5].
  const CsvSchedule csv = csv_schedule("0F0,0F1,0B0,0B1\n1F0,1B0,1F1\n");
  ASSERT_NO_THROW(validate_ops(csv.schedule, csv.locator()));
  EXPECT_EQ(error_of([&] { validate(csv.schedule, csv.locator()); }),
            "stage 1, micro-batch 1: no backward (B, or I and W) on rank 1");
  const auto deadlock = find_deadlock(csv.schedule);
  ASSERT_TRUE(deadlock);
  EXPECT_TRUE(deadlock->open);
  EXPECT_TRUE(deadlock->finished(1));
  EXPECT_EQ(deadlock->hint().shape, DeadlockShape::UnmatchedReceive);
  EXPECT_EQ(deadlock->report(csv.schedule, csv.locator()),
            "deadlock: rank 0 waits for 1B1 on rank 1, which ends its step without running it\n"
            "  rank 0 is blocked at 0B1 (test.csv:1:4)\n" +
                kUnmatched + "; rank 1 never runs 1B1");
  const Timing partial = time_schedule(csv.schedule, ActionTimes{}, {0, true});
  EXPECT_EQ(partial.ops_run, (std::vector<std::size_t>{3, 3}));
  EXPECT_EQ(partial.ranks[0].finish, 6);  // when rank 0 blocked
  EXPECT_EQ(partial.makespan, 6);
}

TEST(Hang, AMissingOpNobodyWaitsForIsNoHang) {
  // Rank 0 of 2 skips its own last backward: stage 0's input gradient is read by nobody, so the step
  // would finish, a gradient short — a broken rule, not a deadlock.
  const CsvSchedule csv = csv_schedule("0F0,0F1,0B0\n1F0,1B0,1F1,1B1\n");
  EXPECT_FALSE(find_deadlock(csv.schedule));
  EXPECT_FALSE(is_complete(csv.schedule));
  EXPECT_EQ(error_of([&] { validate_complete(csv.schedule); }),
            "stage 0, micro-batch 1: no backward (B, or I and W) on rank 0");
}

TEST(Hang, ARankRunningFewerMicroBatchesHangsItsTwoNeighbours) {
  // 1F1B, p = 3, m = 4, but rank 1 runs three micro-batches (no 1F3, no 1B3). Rank 2 waits at 2F3
  // for 1F3, rank 0 at 0B3 for 1B3 (it gets there: 0B2 reads 1B2, which rank 1 runs after 2B2).
  // The chain starts at the lowest blocked rank; rank 2 is blocked too.
  const CsvSchedule csv = csv_schedule(
      "0F0,0F1,0F2,0B0,0F3,0B1,0B2,0B3\n"
      "1F0,1F1,1B0,1F2,1B1,1B2\n"
      "2F0,2B0,2F1,2B1,2F2,2B2,2F3,2B3\n");
  const auto deadlock = find_deadlock(csv.schedule);
  ASSERT_TRUE(deadlock);
  EXPECT_EQ(deadlock->report(csv.schedule, csv.locator()),
            "deadlock: rank 0 waits for 1B3 on rank 1, which ends its step without running it\n"
            "  rank 0 is blocked at 0B3 (test.csv:1:8)\n"
            "  rank 2 is blocked at 2F3 (test.csv:3:7)\n" +
                kUnmatched + "; rank 1 never runs 1B3");
  ASSERT_EQ(deadlock->blocked.size(), 2u);
  EXPECT_EQ(deadlock->blocked[1].awaited, (Action{1, 3, Kind::F}));
}

TEST(Hang, AMissingSplitBackwardIsNamedAsItsStageRunsTheOthers) {
  // Rank 1 runs I and W for micro-batch 0, nothing of micro-batch 1's backward: 0I1 waits for 1I1.
  const CsvSchedule csv = csv_schedule("0F0,0F1,0I0,0W0,0I1,0W1\n1F0,1I0,1W0,1F1\n");
  const auto deadlock = find_deadlock(csv.schedule);
  ASSERT_TRUE(deadlock);
  EXPECT_EQ(deadlock->chain(), "rank 0 waits for 1I1 on rank 1, which ends its step without running it");
}

TEST(Hang, ACompleteScheduleStillNeedsACycle) {
  // The crossed order (tests/data/crossed_deadlock.csv) is closed, not open.
  const CsvSchedule csv =
      csv_schedule("0F0,0F1,0F2,0F3,0B0,0B1,0B2,0B3,0F4,0B4\n1F0,1B0,1F1,1B1,1F2,1B2,1F3,1F4,1B3,1B4\n");
  const auto deadlock = find_deadlock(csv.schedule);
  ASSERT_TRUE(deadlock);
  EXPECT_FALSE(deadlock->open);
  EXPECT_EQ(deadlock->cycle.size(), 2u);
  EXPECT_EQ(deadlock->blocked.size(), 2u);
}

// Whether a schedule without cycles that misses ops hangs, worked out without the engine: an op is
// doomed when the result it reads has no producer, when the op before it on its rank is doomed, or
// when its result's producer is; the run hangs iff some op is doomed.
bool some_op_is_doomed(const Schedule& s) {
  const ResultIndex index(s.num_stages(), s.microbatches);
  std::vector<std::pair<int, std::size_t>> producer(index.size(), {-1, 0});
  for (int r = 0; r < s.ranks; ++r)
    for (std::size_t k = 0; k < s.programs[r].size(); ++k)
      for (int i = 0; i < s.programs[r][k].size(); ++i)
        if (const auto out = output_of(s.programs[r][k][i])) producer[index(*out)] = {r, k};
  std::vector<std::vector<char>> doomed(s.ranks);
  for (int r = 0; r < s.ranks; ++r) doomed[r].assign(s.programs[r].size(), 0);
  for (bool changed = true; changed;) {
    changed = false;
    for (int r = 0; r < s.ranks; ++r)
      for (std::size_t k = 0; k < s.programs[r].size(); ++k) {
        if (doomed[r][k]) continue;
        bool dooms = k > 0 && doomed[r][k - 1];
        for (int i = 0; i < s.programs[r][k].size(); ++i)
          if (const auto in = input_of(s.layout, s.programs[r][k][i])) {
            const auto [pr, pk] = producer[index(*in)];
            dooms = dooms || pr < 0 || doomed[pr][pk];
          }
        if (dooms) doomed[r][k] = changed = 1;
      }
  }
  for (const auto& rank : doomed)
    if (std::find(rank.begin(), rank.end(), 1) != rank.end()) return true;
  return false;
}

TEST(Hang, TheCheckerAgreesWithTheDoomedOpsOnRandomDeletions) {
  std::mt19937 random(20261201);
  int hangs = 0, short_steps = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int p = 2 + trial % 3, m = p * (1 + trial % 2);
    const char* names[] = {"gpipe", "1f1b", "interleaved", "zb-h1"};
    Schedule s = generate_schedule(names[trial % 4], {p, m, 0});
    for (int cut = 0; cut < 1 + trial % 2; ++cut) {
      auto& program = s.programs[random() % p];
      program.erase(program.begin() + static_cast<std::ptrdiff_t>(random() % program.size()));
    }
    try {
      validate_ops(s);
    } catch (const std::exception&) {
      continue;  // a backward left without its forward, a W without its I: refused by rule
    }
    const bool hangs_by_hand = some_op_is_doomed(s);
    const auto deadlock = find_deadlock(s);
    ASSERT_EQ(deadlock.has_value(), hangs_by_hand) << "trial " << trial;
    if (deadlock) {
      // Deleting keeps each rank's order, so no cycle: the chain ends at an action never run.
      EXPECT_TRUE(deadlock->open) << deadlock->chain();
      for (std::size_t i = 0; i + 1 < deadlock->cycle.size(); ++i)
        EXPECT_EQ(deadlock->cycle[i].awaited_rank, deadlock->cycle[i + 1].rank);
    } else {
      EXPECT_FALSE(is_complete(s));
    }
    (deadlock ? hangs : short_steps)++;
  }
  EXPECT_GT(hangs, 50);
  EXPECT_GT(short_steps, 10);
}

// Through comm actions: rank 1 runs micro-batch 0 only, with its sends and receives; rank 0 runs both
// and posts each transfer in a batch waited at once.
const std::string kCommHang =
    "0F0,[0SEND_F0],0F1,[0SEND_F1],[0RECV_B0],0B0,[0RECV_B1],0B1\n"
    "[1RECV_F0],1F0,1B0,[1SEND_B0]\n";

TEST(Hang, AReceiveWhoseSenderEndedItsStepIsAnOpenChainOfTheCommEngine) {
  // Async, F = 1, B = 2: rank 0 runs 0F0 [0, 1], 0F1 [1, 2], waits at [0RECV_B0] until rank 1 sends
  // at 4 (1F0 [1, 2], 1B0 [2, 4]), runs 0B0 [4, 6] and posts [0RECV_B1] at 6, for a send rank 1,
  // finished at 4, never posts.
  const CsvSchedule csv = csv_schedule(kCommHang, CsvPlacement::Inferred, "two.csv");
  validate_ops(csv.schedule, csv.locator());
  ASSERT_NO_THROW(validate_comms(csv.schedule, csv.locator(), csv.comm_locator()));
  const CommTiming t = time_lowered(csv.schedule, ActionTimes{}, {0, P2pMode::Async, 1, true});
  ASSERT_TRUE(t.deadlock);
  EXPECT_EQ(t.deadlock->report(csv.schedule, csv.locator(), csv.comm_locator()),
            "deadlock: rank 0 waits for rank 1 to post 1SEND_B1, which ends its step without posting it\n"
            "  rank 0 is blocked at [0RECV_B1] (two.csv:1:7)\n" +
                kUnmatched + "; rank 1 never posts 1SEND_B1");
  EXPECT_EQ(t.deadlock->cycle.front().what, WaitKind::PeerSend);
  EXPECT_EQ(t.timing.ranks[0].finish, 6);
  EXPECT_EQ(t.timing.ops_run, (std::vector<std::size_t>{3, 2}));
  // Three flows started: 0F0 at 1, 0F1 at 2 (received by nobody), 1B0 at 4.
  ASSERT_EQ(t.messages.size(), 3u);
  EXPECT_EQ(t.messages[1].result.microbatch, 1);
  EXPECT_EQ(t.messages[1].start, 2);
  EXPECT_EQ(t.messages[2].from, 1);
  EXPECT_EQ(t.messages[2].start, 4);
}

TEST(Hang, UnderRendezvousTheSendNobodyReceivesBlocksFirst) {
  // Rendezvous: [0SEND_F1], posted at 2, waits for 1RECV_F1, which rank 1 does not have; rank 1
  // blocks at [1SEND_B0] (posted at 4) for 0RECV_B0, which rank 0 posts only after that send. The
  // chain ends at rank 1, blocked, that never posts the receive.
  const CsvSchedule csv = csv_schedule(kCommHang, CsvPlacement::Inferred, "two.csv");
  const CommTiming t = time_lowered(csv.schedule, ActionTimes{}, {0, P2pMode::Rendezvous, 1, true});
  ASSERT_TRUE(t.deadlock);
  EXPECT_EQ(t.deadlock->report(csv.schedule, csv.locator(), csv.comm_locator()),
            "deadlock: rank 0 waits for rank 1 to post 1RECV_F1, which never posts it\n"
            "  rank 0 is blocked at [0SEND_F1] (two.csv:1:4)\n"
            "  rank 1 is blocked at [1SEND_B0] (two.csv:2:4)\n" +
                kUnmatched + "; rank 1 never posts 1RECV_F1");
  EXPECT_EQ(t.deadlock->blocked[1].what, WaitKind::PeerReceive);
  EXPECT_EQ(t.timing.ranks[0].finish, 2);
  EXPECT_EQ(t.timing.ranks[1].finish, 4);
}

TEST(Hang, ASendOfAnOpNeverRunIsRefused) {
  // Rank 0 skips 0F1 but keeps its send (checked first: rank 0's cells come before rank 1's).
  const CsvSchedule csv = csv_schedule("0F0,0SEND_F0,0RECV_B0,0B0,0SEND_F1\n1RECV_F0,1F0,1B0,1SEND_B0,1F1,1B1\n",
                                       CsvPlacement::Inferred, "two.csv");
  EXPECT_EQ(error_of([&] { validate_comms(csv.schedule, csv.locator(), csv.comm_locator()); }),
            "two.csv:1:5: 0SEND_F1 sends micro-batch 1's activation of stage 0, which no op of rank 0 computes");
}

TEST(StageChunks, ChunkIsTheStagesPlaceAmongItsRanksAndDirectionDualPipesEnd) {
  // Megatron's loop: stage s on rank s mod p is chunk s / p. A V: r on the way down, 2p − 1 − r up.
  EXPECT_EQ(chunks_of_stages(StageLayout::chain(loop_placement(4, 2), 8)), (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(chunks_of_stages(StageLayout::chain(v_placement(3), 6)), (std::vector<int>{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(chunks_of_stages(StageLayout::chain({0, 1, 2}, 4)), (std::vector<int>{0, 0, 0}));
  // DualPipe on 4 ranks: virtual stages 0-3 enter at rank 0, 4-7 (model stages 0-3 on ranks 3-0) at
  // rank 3. DualPipeV's one chain enters at rank 0.
  const Schedule dualpipe = generate_schedule("dualpipe", {4, 8, 0});
  for (int s = 0; s < 8; ++s) EXPECT_EQ(direction_of(dualpipe, s), s < 4 ? "down" : "up") << s;
  const Schedule dualpipev = generate_schedule("dualpipev", {4, 8, 0});
  for (int s = 0; s < 8; ++s) EXPECT_EQ(direction_of(dualpipev, s), "down") << s;
  EXPECT_EQ(direction_of(generate_schedule("zbv", {4, 8, 0}), 5), "");
}

}  // namespace
}  // namespace pipegrid
