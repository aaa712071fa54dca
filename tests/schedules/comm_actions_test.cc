// Comm actions in PyTorch's notation: read from CSV, checked cell by cell, and run by the comm engine
// — a missing receive or a crossed order is refused by name, a deadlock of the order found with its
// cycle, never timed.
#include <gtest/gtest.h>

#include <sstream>

#include "schedules/comm_timing.h"
#include "test_support.h"

namespace pipegrid {
namespace {

using test_support::csv_schedule;
using test_support::error_of;

// PyTorch's own expected lowering of a two-rank, two-stage 1F1B (test_schedule.py, test_send_recv
// "simple_2_rank_2_stage": _add_send_recv's output).
const std::string kRank0 = "0F0,0SEND_F0,0F1,0SEND_F1,0RECV_B0,0B0,0RECV_B1,0B1\n";
const std::string kRank1 = "1RECV_F0,1RECV_F1,1F0,1B0,1SEND_B0,1F1,1B1,1SEND_B1\n";

// validate() then validate_comms() of CSV text; "" when both pass.
std::string check(const std::string& text, CsvPlacement placement = CsvPlacement::Inferred) {
  return error_of([&] {
    const CsvSchedule csv = csv_schedule(text, placement, "two.csv");
    validate(csv.schedule, csv.locator());
    validate_comms(csv.schedule, csv.locator(), csv.comm_locator());
  });
}

TEST(CommActions, CellsParseAsPyTorchWritesThem) {
  const auto one = parse_comm_cell("2SEND_B13");
  ASSERT_TRUE(one);
  EXPECT_EQ(one->wait, CommWait::AtUse);
  ASSERT_EQ(one->actions.size(), 1u);
  EXPECT_EQ(one->actions[0], (CommAction{2, 13, CommKind::SendB}));
  const auto batch = parse_comm_cell("[0SEND_F1;0RECV_B0]");
  ASSERT_TRUE(batch);
  EXPECT_EQ(batch->wait, CommWait::Now);
  EXPECT_EQ(batch->actions, (std::vector<CommAction>{{0, 1, CommKind::SendF}, {0, 0, CommKind::RecvB}}));
  EXPECT_EQ(to_string(*batch), "[0SEND_F1;0RECV_B0]");
  EXPECT_EQ(to_string(*one), "2SEND_B13");
  for (const char* bad : {"0SEND_X1", "[]", "[0SEND_F1;]", "SEND_F1", "0SEND_F", "0SEND_F-1", "[0SEND_F1"})
    EXPECT_FALSE(parse_comm_cell(bad)) << bad;
}

TEST(CommActions, ALoweredCsvReadsAndWritesBackTheSame) {
  const std::string text = kRank0 + "[1RECV_F0],1F0,1B0,[1SEND_B0;1RECV_F1],1F1,1B1,1SEND_B1\n";
  const CsvSchedule csv = csv_schedule(text, CsvPlacement::Inferred);
  ASSERT_TRUE(csv.schedule.has_comms());
  EXPECT_EQ(csv.schedule.comms[1].size(), 3u);
  std::ostringstream out;
  write_schedule_csv(out, csv.schedule);
  EXPECT_EQ(out.str(), text);
  EXPECT_EQ(check(text), "");
  // A file without comm cells is compute-only, for a plan to lower.
  EXPECT_FALSE(csv_schedule("0F0,0B0\n").schedule.has_comms());
}

TEST(CommActions, PyTorchsOwnLoweringIsValid) { EXPECT_EQ(check(kRank0 + kRank1), ""); }

TEST(CommActions, EachBrokenRuleIsNamedByItsCell) {
  // A receive missing: the op that needed it is named.
  EXPECT_EQ(check(kRank0 + "1RECV_F0,1F0,1B0,1SEND_B0,1F1,1B1,1SEND_B1\n"),
            "two.csv:2:5: 1F1 reads micro-batch 1's activation from rank 0, but no 1RECV_F1 comes before it");
  // A send missing.
  EXPECT_EQ(check("0F0,0SEND_F0,0F1,0RECV_B0,0B0,0RECV_B1,0B1\n" + kRank1),
            "two.csv:1:3: 0F1's activation is read on rank 1, but no 0SEND_F1 follows it");
  // Sent twice.
  EXPECT_EQ(check("0F0,0SEND_F0,0SEND_F0,0F1,0SEND_F1,0RECV_B0,0B0,0RECV_B1,0B1\n" + kRank1),
            "two.csv:1:3: 0SEND_F0 sends micro-batch 0's activation of stage 0 a second time (first at two.csv:1:2)");
  // Sent before it is computed.
  EXPECT_EQ(check("0SEND_F0,0F0,0F1,0SEND_F1,0RECV_B0,0B0,0RECV_B1,0B1\n" + kRank1),
            "two.csv:1:1: 0SEND_F0 sends micro-batch 0's activation of stage 0 before the op that computes it "
            "(two.csv:1:2)");
  // Received after the op that reads it.
  EXPECT_EQ(check(kRank0 + "1RECV_F0,1F0,1B0,1SEND_B0,1F1,1RECV_F1,1B1,1SEND_B1\n"),
            "two.csv:2:6: 1RECV_F1 receives micro-batch 1's activation after the op that reads it (two.csv:2:5)");
  // Received in another order than sent: NCCL would hand each the other's buffer.
  EXPECT_EQ(check(kRank0 + "1RECV_F1,1RECV_F0,1F0,1B0,1SEND_B0,1F1,1B1,1SEND_B1\n"),
            "two.csv:2:1: 1RECV_F1 is the 1st receive of rank 1 from rank 0, but the 1st send of rank 0 to it is "
            "0SEND_F0 (two.csv:1:2): NCCL matches the messages between two ranks in the order they are posted");
  // No transfer where both stages live on one rank (the V's turn), nor before a first stage.
  EXPECT_EQ(check("0F0,0SEND_F0,1RECV_F0,1F0,1B0,0B0\n"),
            "two.csv:1:2: 0SEND_F0: stages 0 and 1 are both on rank 0, so no transfer joins them");
  EXPECT_EQ(check("0RECV_F0,0F0,0SEND_F0,0RECV_B0,0B0\n1RECV_F0,1F0,1B0,1SEND_B0\n"),
            "two.csv:1:1: 0RECV_F0: stage 0 is the first stage of its chain, so there is nothing to receive");
  EXPECT_EQ(check("0F0,0SEND_F0,0RECV_B0,0B0\n1RECV_F0,1F0,1SEND_F0,1B0,1SEND_B0\n"),
            "two.csv:2:3: 1SEND_F0: stage 1 is the last stage of its chain, so there is nothing to send");
  EXPECT_EQ(check(kRank0 + kRank1 + "2SEND_F0\n"), "two.csv:3:1: 2SEND_F0 names stage 2, but the schedule has stages 0-1");
}

TEST(CommActions, ACrossedOrderDeadlocksWithItsCycleUnderRendezvous) {
  // Rank 0 waits for 1B0 in a batch before it sends 0F0, which rank 1 needs to compute 1B0. Under
  // async p2p the batch also waits (for the receive): every order of waits here is a deadlock.
  const CsvSchedule csv =
      csv_schedule("0F0,[0RECV_B0],0SEND_F0,0B0\n1RECV_F0,1F0,1B0,1SEND_B0\n", CsvPlacement::Inferred, "two.csv");
  validate(csv.schedule, csv.locator());
  validate_comms(csv.schedule, csv.locator(), csv.comm_locator());
  for (P2pMode mode : {P2pMode::Rendezvous, P2pMode::Async}) {
    const CommTiming t = time_lowered(csv.schedule, ActionTimes{}, {0.5, mode});
    ASSERT_TRUE(t.deadlock) << p2p_mode_name(mode);
    EXPECT_EQ(t.deadlock->report(csv.schedule, csv.locator(), csv.comm_locator()),
              "deadlock: rank 0 waits for rank 1 to post 1SEND_B0, which waits for rank 0 to post 0SEND_F0\n"
              "  rank 0 is blocked at [0RECV_B0] (two.csv:1:2)\n"
              "  rank 1 is blocked at 1F0 (two.csv:2:2)\n"
              "fix: both sides receive first and each waits for a send its peer posts only after its own receive; "
              "post the send before the receive on one side, or both in one batch (batch_isend_irecv)");
    EXPECT_EQ(t.deadlock->hint().shape, DeadlockShape::RecvRecv);
  }
}

TEST(CommActions, RendezvousHoldsASenderUntilItsReceiverPosts) {
  // F = 1, B = 2, L = 0.5. Rank 1 posts its receive of 0F1 only after 1B0.
  // Rendezvous: 0F0 [0, 1], its flow [1, 1.5] (rank 1 posted at 0); 0F1 [1.5, 2.5]; [0SEND_F1] holds
  // rank 0 until rank 1 posts at 4.5 (1F0 [1.5, 2.5], 1B0 [2.5, 4.5]): flow [4.5, 5]. Rank 0 posts
  // its receives at 5; 1B0's flow [5, 5.5], 1F1 [5, 6], 1B1 [6, 8], its flow [8, 8.5]; 0B0 [5.5, 7.5],
  // 0B1 [8.5, 10.5].
  // Async: the sends never hold rank 0: 0F1 [1, 2], its flow [2, 2.5], waiting at rank 1 by 4.5;
  // 1B0's flow [4.5, 5], 1F1 [4.5, 5.5], 1B1 [5.5, 7.5], flow [7.5, 8]; 0B0 [5, 7], 0B1 [8, 10].
  const CsvSchedule csv = csv_schedule(
      "0F0,[0SEND_F0],0F1,[0SEND_F1],0RECV_B0,0RECV_B1,0B0,0B1\n"
      "1RECV_F0,1F0,1B0,[1RECV_F1],1SEND_B0,1F1,1B1,1SEND_B1\n");
  const ActionTimes times{1, 2, 1, std::nullopt};
  EXPECT_DOUBLE_EQ(time_lowered(csv.schedule, times, {0.5, P2pMode::Rendezvous}).timing.makespan, 10.5);
  EXPECT_DOUBLE_EQ(time_lowered(csv.schedule, times, {0.5, P2pMode::Async}).timing.makespan, 10.0);
}

}  // namespace
}  // namespace pipegrid
