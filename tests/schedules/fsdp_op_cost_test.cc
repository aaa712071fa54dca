// ZeRO-3's all-gathers around an op (schedules/fsdp_op_cost.h), worked by hand: one unit of prefetch,
// the units FSDP2 gathers forward and backward, and which ops gather.
#include <gtest/gtest.h>

#include "schedules/fsdp_op_cost.h"
#include "schedules/generators.h"

namespace pipegrid {
namespace {

TEST(FsdpOpCost, AForwardWaitsForTheRootAndFirstBlockThenForWhatEachBlockDoesNotHide) {
  // Root gather 1 s, blocks 2 s, 3 blocks computing 1 s each. Root [0, 1]; block 1 issued at 1, [1, 3],
  // computes [3, 4]; block 2 issued as block 1 starts, [3, 5], computes [5, 6]; block 3 [5, 7], [7, 8].
  const FsdpOpUnits units = fsdp_op_units({1, 2, 3}, 3, /*backward=*/false, /*keep_last_block=*/false);
  EXPECT_EQ(units.gather, (std::vector<double>{1, 2, 2, 2}));
  EXPECT_EQ(units.compute, (std::vector<double>{0, 1, 1, 1}));
  const FsdpOpTiming timing = fsdp_op_timing(units);
  EXPECT_EQ(timing.gather_start, (std::vector<double>{0, 1, 3, 5}));
  EXPECT_EQ(timing.gather_end, (std::vector<double>{1, 3, 5, 7}));
  EXPECT_EQ(timing.exposed, 8 - 3);  // root + block + 2 × (block − compute)
}

TEST(FsdpOpCost, TorchtitansLastBlockStaysGatheredForTheBackward) {
  // Backward: the root [0, 1], block 3 kept (computes [1, 2]), block 2 issued at 1, [1, 3], computes
  // [3, 4]; block 1 [3, 5], computes [5, 6].
  const FsdpOpTiming timing = fsdp_op_timing(fsdp_op_units({1, 2, 3}, 3, true, true));
  EXPECT_EQ(timing.gather_end, (std::vector<double>{1, 1, 3, 5}));
  EXPECT_EQ(timing.exposed, 6 - 3);
  // Resharded after its forward it is gathered again, as in the forward: [0, 1], [1, 3], [3, 5], [5, 7].
  EXPECT_EQ(fsdp_op_timing(fsdp_op_units({1, 2, 3}, 3, true, false)).exposed, 8 - 3);
}

TEST(FsdpOpCost, GathersShorterThanABlocksComputeHideButTheFirst) {
  // A middle stage (no root): blocks of 0.5 s gathers and 1 s compute: only the first is exposed.
  const FsdpOpTiming timing = fsdp_op_timing(fsdp_op_units({0, 0.5, 3}, 3, false, false));
  EXPECT_EQ(timing.gather_start.size(), 3u);
  EXPECT_EQ(timing.exposed, 0.5);
  // A stage without blocks: its root, then all of its compute.
  EXPECT_EQ(fsdp_op_timing(fsdp_op_units({2, 0, 0}, 3, false, false)).exposed, 2);
}

TEST(FsdpOpCost, WhichOpsGather) {
  // 1F1B on 2 ranks, 3 micro-batches: each stage's first forward is micro-batch 0's.
  const Schedule s = generate_schedule("1f1b", {2, 3, 0});
  EXPECT_EQ(first_forwards(s), (std::vector<int>{0, 0}));
  EXPECT_TRUE(fsdp_gathers(FsdpGathers::OncePerStep, {1, 0, Kind::F}, 0));
  EXPECT_FALSE(fsdp_gathers(FsdpGathers::OncePerStep, {1, 1, Kind::F}, 0));
  EXPECT_FALSE(fsdp_gathers(FsdpGathers::OncePerStep, {1, 0, Kind::B}, 0));
  EXPECT_TRUE(fsdp_gathers(FsdpGathers::PerOp, {1, 2, Kind::B}, 0));
  EXPECT_TRUE(fsdp_gathers(FsdpGathers::PerOp, {1, 2, Kind::I}, 0));
  EXPECT_FALSE(fsdp_gathers(FsdpGathers::PerOp, {1, 2, Kind::W}, 0));  // a W reads no parameter
  EXPECT_FALSE(fsdp_gathers(FsdpGathers::None, {1, 0, Kind::F}, 0));
}

}  // namespace
}  // namespace pipegrid
