// Comm plans against the frameworks' own orders: Megatron-LM's p2p calls as its schedules.py makes
// them, every schedule completing under rendezvous p2p in its framework's plan, and the per-op
// grouping deadlocking the ones it is known to deadlock, with the cycle.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "schedules/comm_plan.h"
#include "schedules/comm_timing.h"
#include "schedules/generators.h"
#include "schedules/schedule_csv.h"
#include "test_support.h"

namespace pipegrid {
namespace {

using test_support::error_of;

std::string csv_of(const Schedule& s) {
  std::ostringstream out;
  write_schedule_csv(out, s);
  return out.str();
}

TEST(CommPlan, MegatronOneFOneBIsItsP2pCalls) {
  // forward_backward_pipelining_without_interleaving, p = 2, m = 4 (schedules.py): rank 0 warms up
  // with one forward and send_forward, then send_forward_recv_backward after each steady forward
  // (send_backward_recv_forward after its backwards is empty on a first stage), recv_backward in the
  // cooldown; rank 1 (last stage, no warmup) recv_forward, then send_backward_recv_forward after each
  // backward, the last one send_backward. Each call one batch_isend_irecv, waited at once.
  const Schedule s = lower(generate_1f1b({2, 4, 1}), CommPlan::Framework);
  EXPECT_EQ(csv_of(s),
            "0F0,[0SEND_F0],0F1,[0SEND_F1;0RECV_B0],0B0,0F2,[0SEND_F2;0RECV_B1],0B1,0F3,[0SEND_F3;0RECV_B2],0B2,"
            "[0RECV_B3],0B3\n"
            "[1RECV_F0],1F0,1B0,[1SEND_B0;1RECV_F1],1F1,1B1,[1SEND_B1;1RECV_F2],1F2,1B2,[1SEND_B2;1RECV_F3],1F3,1B3,"
            "[1SEND_B3]\n");
}

TEST(CommPlan, MegatronInterleavedOnTwoRanksIsRefusedAsMegatronRefusesIt) {
  EXPECT_EQ(error_of([] { lower(generate_interleaved({2, 4, 2}), CommPlan::Megatron); }),
            "--comm-plan megatron: interleaved on 2 ranks batches two messages the same way between them, whose "
            "buffers NCCL would swap; Megatron-LM refuses it without overlapped p2p (arguments.py: pipeline size must "
            "be > 2)");
  // framework falls back to PyTorch's interleaved schedule there.
  EXPECT_EQ(plan_of_framework(generate_interleaved({2, 4, 2})), CommPlan::Torch);
  EXPECT_EQ(plan_of_framework(generate_interleaved({4, 8, 2})), CommPlan::Megatron);
}

TEST(CommPlan, MegatronInterleavedCallsPairUpRankByRank) {
  // p = 4, v = 2, m = 8: rank 3 (no extra warmup: (v − 1)p = 4 forwards) calls recv_forward first,
  // then one batch after each warmup forward; its first steady call carries the forward's send, the
  // backward's send and both receives of the next iteration.
  const Schedule s = lower(generate_interleaved({4, 8, 2}), CommPlan::Megatron);
  validate_comms(s);
  const auto& r3 = s.comms[3];
  ASSERT_GE(r3.size(), 6u);
  EXPECT_EQ(to_string(r3[0]), "[3RECV_F0]");
  EXPECT_EQ(r3[0].before, 0u);
  for (const CommBatch& b : r3) EXPECT_EQ(b.wait, CommWait::Now);
  // Each rank sends its messages in calls its neighbours receive them in: a rendezvous run finishes.
  EXPECT_FALSE(time_lowered(s, ActionTimes{1, 2, 1, std::nullopt}, {0.01, P2pMode::Rendezvous}).deadlock);
}

TEST(CommPlan, MegatronInterleavedWithEveryForwardInTheWarmupReceivesTheFirstGradientInRecvBackward) {
  // m = p: num_warmup_microbatches = total_num_microbatches on every rank (all_warmup_microbatches),
  // so the last warmup call is send_forward_recv_forward with recv_prev off (k = total − 1), then
  // recv_backward, then one send_backward_recv_backward after each backward. Rank 2 of p = 4, v = 2
  // (stages 2 and 6) gets stage 7's first gradient in that recv_backward — sent by rank 3 after its
  // first backward, so rank 2 receives it one call *before* the call it was sent in, not one after.
  const Schedule s = lower(generate_interleaved({4, 4, 2}), CommPlan::Megatron);
  validate_comms(s);
  std::vector<std::string> r2;
  for (const CommBatch& b : s.comms[2]) r2.push_back(to_string(b));
  const auto last_forward = std::find(r2.begin(), r2.end(), "[6RECV_F3;6SEND_F2]");
  ASSERT_NE(last_forward, r2.end());
  ASSERT_GE(r2.end() - last_forward, 4);
  EXPECT_EQ(last_forward[1], "[6SEND_F3]");
  EXPECT_EQ(last_forward[2], "[6RECV_B0]");
  EXPECT_EQ(last_forward[3], "[6SEND_B0;6RECV_B1]");
  // Every rank's calls pair up with its neighbours': rendezvous runs finish, for other depths too.
  for (int p : {3, 4, 8})
    for (int v : {2, 3}) {
      SCOPED_TRACE(::testing::Message() << "p=" << p << " v=" << v);
      const Schedule all_warmup = lower(generate_interleaved({p, p, v}), CommPlan::Megatron);
      validate_comms(all_warmup);
      const CommTiming t = time_lowered(all_warmup, ActionTimes{1, 2, 1, std::nullopt}, {0.01, P2pMode::Rendezvous});
      EXPECT_FALSE(t.deadlock) << t.deadlock->chain();
    }
}

struct Grid {
  const char* schedule;
  int chunks;
};

// Valid micro-batch counts for every schedule at p ranks: a multiple of 2p (interleaved, DualPipe).
int microbatches_for(int p) { return 4 * p; }

TEST(CommPlan, EveryScheduleCompletesUnderRendezvousInItsFrameworksPlan) {
  for (const Grid& g : {Grid{"gpipe", 0}, Grid{"1f1b", 0}, Grid{"interleaved", 2}, Grid{"zb-h1", 0}, Grid{"zb-h2", 0},
                        Grid{"zbv", 0}, Grid{"dualpipe", 0}, Grid{"dualpipev", 0}})
    for (int p : {4, 8, 16}) {
      SCOPED_TRACE(::testing::Message() << g.schedule << " p=" << p);
      const Schedule s = lower(generate_schedule(g.schedule, {p, microbatches_for(p), g.chunks}), CommPlan::Framework);
      validate_comms(s);
      const CommTiming t = time_lowered(s, ActionTimes{1, 2, 1, std::nullopt}, {0.01, P2pMode::Rendezvous});
      EXPECT_FALSE(t.deadlock) << t.deadlock->chain();
    }
}

TEST(CommPlan, PerOpGroupingDeadlocksTheSchedulesItIsKnownToDeadlock) {
  // The sends after an op with the receives before the next, waited at once: fine for GPipe, 1F1B and
  // ZB-H1, whose neighbours alternate directions in step; a deadlock for interleaved and ZB-H2, whose
  // ranks reach a batch their neighbour reaches with the other direction's messages. On the V-shaped
  // and two-direction schedules a rank also receives two streams from one neighbour (activations of
  // one chunk, gradients of the other) in another order than that neighbour sends them — refused
  // before any run, as NCCL would swap their buffers — or deadlocks first (DualPipe on 4 ranks).
  const ActionTimes times{1, 2, 1, std::nullopt};
  for (const Grid& g : {Grid{"gpipe", 0}, Grid{"1f1b", 0}, Grid{"zb-h1", 0}, Grid{"interleaved", 2}, Grid{"zb-h2", 0},
                        Grid{"zbv", 0}, Grid{"dualpipe", 0}, Grid{"dualpipev", 0}})
    for (int p : {4, 8, 16}) {
      SCOPED_TRACE(::testing::Message() << g.schedule << " p=" << p);
      const std::string name = g.schedule;
      const Schedule s = lower(generate_schedule(name, {p, microbatches_for(p), g.chunks}), CommPlan::PerOp);
      const std::string refused = error_of([&] { validate_comms(s); });
      if (name == "gpipe" || name == "1f1b" || name == "zb-h1") {
        EXPECT_EQ(refused, "");
        EXPECT_FALSE(time_lowered(s, times, {0.01, P2pMode::Rendezvous}).deadlock);
        continue;
      }
      if (!refused.empty()) {
        EXPECT_TRUE(name == "zbv" || name == "dualpipev" || name == "dualpipe") << refused;
        EXPECT_NE(refused.find("NCCL matches the messages between two ranks in the order they are posted"),
                  std::string::npos);
        continue;
      }
      const CommTiming t = time_lowered(s, times, {0.01, P2pMode::Rendezvous});
      ASSERT_TRUE(t.deadlock);
      // A cycle of at least two ranks, each blocked at a batch, each waiting for the next to post.
      ASSERT_GE(t.deadlock->cycle.size(), 2u);
      for (const auto& w : t.deadlock->cycle) {
        EXPECT_TRUE(w.in_batch);
        EXPECT_NE(w.awaited_rank, w.rank);
      }
      // Async p2p never holds a sender: the same batches finish.
      EXPECT_FALSE(time_lowered(s, times, {0.01, P2pMode::Async}).deadlock);
    }
}

TEST(CommPlan, TorchsLoweringSendsAfterTheProducerAndReceivesBeforeTheConsumer) {
  // _add_send_recv: a SEND right after the op that computes it; each RECV placed on the reader when
  // the sender's op is placed, so before the op that reads it; every action its own batch, waited at
  // its use. Checked on every schedule: validate_comms holds each of these rules.
  for (const Grid& g : {Grid{"gpipe", 0}, Grid{"1f1b", 0}, Grid{"interleaved", 2}, Grid{"zbv", 0}, Grid{"dualpipev", 0}}) {
    const Schedule s = lower(generate_schedule(g.schedule, {4, 8, g.chunks}), CommPlan::Torch);
    validate_comms(s);
    for (int r = 0; r < s.ranks; ++r)
      for (const CommBatch& b : s.comms[r]) {
        ASSERT_EQ(b.actions.size(), 1u);
        EXPECT_EQ(b.wait, CommWait::AtUse);
        if (!is_send(b.actions[0].kind)) continue;
        // The op just before the send produced it.
        const Op& before = s.programs[r][b.before - 1];
        bool produced = false;
        for (int i = 0; i < before.size(); ++i)
          produced |= before[i].stage == b.actions[0].stage && before[i].microbatch == b.actions[0].microbatch &&
                      before[i].kind != Kind::W;
        EXPECT_TRUE(produced) << g.schedule << " rank " << r << " " << to_string(b);
      }
  }
}

}  // namespace
}  // namespace pipegrid
