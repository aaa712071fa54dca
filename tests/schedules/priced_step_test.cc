// The contention-free engine with a model's prices, worked out by hand: per-stage op times with their
// TP all-reduces, messages with a latency and a time on the wire (queued on their channel), and the
// step's end — gradient collectives on their streams, the check's barrier, the update, the gathers.
#include <gtest/gtest.h>

#include "schedules/comm_plan.h"
#include "schedules/generators.h"
#include "schedules/priced_step.h"

namespace pipegrid {
namespace {

TEST(OpTimes, AStageTableAddsItsTensorParallelAllReduces) {
  // Stage 0: F 1, I 1.5, W 0.5, two all-reduces of 0.25 in F and in the backward; stage 1 none.
  const OpTimes times(std::vector<StageOpTimes>{{1, 1.5, 0.5, 2, 2, 0.25}, {3, 4, 2, 0, 0, 0}});
  EXPECT_DOUBLE_EQ(times.of(Op(Action{0, 0, Kind::F})), 1 + 2 * 0.25);
  EXPECT_DOUBLE_EQ(times.of(Op(Action{0, 0, Kind::B})), 2 + 2 * 0.25);
  EXPECT_DOUBLE_EQ(times.of(Op(Action{0, 0, Kind::W})), 0.5);  // no all-reduce in W
  EXPECT_DOUBLE_EQ(times.compute_of(Op(Action{0, 0, Kind::I})), 1.5);
  // A pair of stage 0's F and stage 1's B: both computes, four all-reduces at the first half's size.
  EXPECT_DOUBLE_EQ(times.of(Op(Action{0, 1, Kind::F}, Action{1, 0, Kind::B})), 1 + 6 + 2 * 0.25);
  // One ActionTimes for every stage is ActionTimes::of, pairs included.
  const ActionTimes uniform{1.25, 2.5, 1.0, 3.0};
  const Op pair(Action{0, 1, Kind::F}, Action{1, 0, Kind::I});
  EXPECT_EQ(OpTimes(uniform).of(pair), uniform.of(pair));
}

TEST(PricedMessages, AQueuedMessageStartsWhenTheOneBeforeItEnds) {
  // GPipe on 2 ranks, 2 micro-batches, F = 1: rank 0's forwards end at 1 and 2. Each activation takes
  // 0.5 of latency and 2 on the wire: the first arrives at 1 + 0.5 + 2 = 3.5; the second, on the same
  // channel, waits for it and arrives at max(3.5, 2 + 0.5) + 2 = 5.5 (alone it would at 4.5).
  const Schedule s = lower(generate_schedule("gpipe", {2, 2, 0}), CommPlan::Framework);
  const OpTimes times(std::vector<StageOpTimes>{{1, 1, 0, 0, 0, 0}, {1, 1, 0, 0, 0, 0}});
  CommTimingOptions options;
  options.record_spans = true;
  options.forward_messages = {{0.5, 2}, {0, 0}};
  options.backward_messages = {{0, 0}, {0.5, 2}};
  const CommTiming timed = time_lowered(s, times, options);
  ASSERT_FALSE(timed.deadlock);
  ASSERT_EQ(s.programs[1][0], Op(Action{1, 0, Kind::F}));
  ASSERT_EQ(s.programs[1][1], Op(Action{1, 1, Kind::F}));
  EXPECT_DOUBLE_EQ(timed.timing.spans[1][0].start, 3.5);
  EXPECT_DOUBLE_EQ(timed.timing.spans[1][1].start, 5.5);
  // Two channels: the second no longer queues.
  options.channels = 2;
  EXPECT_DOUBLE_EQ(time_lowered(s, times, options).timing.spans[1][1].start, 4.5);
}

TEST(StepEnd, GradientsOnTheirStreamsThenTheCheckTheUpdateAndTheGathers) {
  // Two ops: [0, 1] and [1, 3], the second computing 2 (its W of stage 0).
  const std::vector<Op> program = {Op(Action{0, 0, Kind::F}), Op(Action{0, 0, Kind::W})};
  const OpTimes times(std::vector<StageOpTimes>{{1, 0, 2, 0, 0, 0}});
  const std::vector<OpSpan> spans = {{0, 1}, {1, 3}};
  const std::vector<StepCollective> reductions = {
      {1, 0.5, 0, 3, false},  // a bucket half-way through the W: launched at 2, on stream 0 until 5
      {2, 1, 0, 1, false},    // after the last op (the rank finished at 4): behind it, 5 to 6
      {2, 1, 1, 2, true},     // the embeddings, once both streams drained at 6: 6 to 8
  };
  std::vector<double> streams;
  EXPECT_DOUBLE_EQ(gradients_reduced(program, times, spans, 4, reductions, streams), 8);
  EXPECT_DOUBLE_EQ(barrier_release({8, 7.5, 6}, 0.25), 8.25);
  // Released at 8.25, the update takes 1, then an all-gather of 0.5 on stream 0 (free since 6).
  const RankStepEnd rank{reductions, 1, {{0, 1, 0, 0.5, false}}};
  EXPECT_DOUBLE_EQ(step_end(8.25, rank, streams), 9.75);
}

}  // namespace
}  // namespace pipegrid
