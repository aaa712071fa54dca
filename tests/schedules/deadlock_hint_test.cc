// The shape of a cycle of waits picks the fix: the classic pipeline deadlocks by their waits.
#include "schedules/deadlock_hint.h"

#include <gtest/gtest.h>

namespace pipegrid {
namespace {

TEST(DeadlockHint, TwoRanksThatBothSendFirstUnderRendezvousAreSendSend) {
  // 1F1B's rank 0 sends F1 while rank 1 sends B0: each waits for the other to post a receive.
  const DeadlockHint hint = deadlock_hint({WaitKind::PeerReceive, WaitKind::PeerReceive}, false);
  EXPECT_EQ(hint.shape, DeadlockShape::SendSend);
  EXPECT_NE(hint.text.find("--p2p async"), std::string::npos);
  EXPECT_NE(hint.text.find("odd ranks receive first"), std::string::npos);
}

TEST(DeadlockHint, EachShapeFromItsWaits) {
  EXPECT_EQ(deadlock_shape({WaitKind::Compute, WaitKind::Compute}, false), DeadlockShape::ComputeOrder);
  EXPECT_EQ(deadlock_shape({WaitKind::PeerSend, WaitKind::PeerSend, WaitKind::PeerSend}, false),
            DeadlockShape::RecvRecv);
  EXPECT_EQ(deadlock_shape({WaitKind::PeerSend}, true), DeadlockShape::UnmatchedReceive);
  EXPECT_EQ(deadlock_shape({WaitKind::Collective, WaitKind::PeerSend}, false), DeadlockShape::CollectiveOrder);
  EXPECT_EQ(deadlock_shape({WaitKind::PeerSend, WaitKind::PeerReceive}, false), DeadlockShape::Mixed);
  EXPECT_EQ(deadlock_shape({}, false), DeadlockShape::Mixed);
}

TEST(DeadlockHint, ShapesAndWaitsHaveTheNamesDeadlockJsonUses) {
  EXPECT_EQ(deadlock_shape_name(DeadlockShape::UnmatchedReceive), "unmatched-receive");
  EXPECT_EQ(deadlock_shape_name(DeadlockShape::CollectiveOrder), "collective-order");
  EXPECT_EQ(wait_kind_name(WaitKind::PeerReceive), "receive");
}

}  // namespace
}  // namespace pipegrid
