// What an op's tensor-parallel collectives add to its compute (schedules/tp_op_cost.h), by hand:
// whole all-reduces, sequence parallelism's halves back to back, the backward's native pairs under
// their dgrad and wgrad GEMMs (Megatron-Core's LinearWithGradAccumulationAndAsyncCommunication), and
// Transformer Engine's overlap.
#include <gtest/gtest.h>

#include "schedules/tp_op_cost.h"

namespace pipegrid {
namespace {

TEST(TpOpCost, AllReducesAndHalvesBackToBack) {
  // An all-reduce takes 4 s, a half 2 s.
  EXPECT_DOUBLE_EQ((TpOpCost{{3, 0, 0}, 4}.serial()), 12);
  EXPECT_DOUBLE_EQ((TpOpCost{{0, 2, 3}, 4}.serial()), 10);
}

TEST(TpOpCost, TheBackwardsNativePairsCostWhatTheyOutlastTheirGemm) {
  // A whole B of two layers: 4 column GEMMs, so 8 all-gathers (4 re-gathers) and 4 reduce-scatters,
  // all 4 reduce-scatters and 4 re-gathers native. Halves of 2 s; dgrad GEMMs 12 s, so each column
  // GEMM's dgrad is 12 / 8 = 1.5 s: a re-gather costs 0.5 s beyond it; wgrad 40 s, 5 s each: a
  // reduce-scatter hides whole. 4 plain all-gathers × 2 + 4 × 0.5 + 4 × 0 = 10 s (12 back to back
  // without the pairs: 24 s).
  TpCollectives b{0, 4, 8};
  b.native_gathers = 4;
  b.native_scatters = 4;
  EXPECT_DOUBLE_EQ((TpOpCost{b, 4, 52, 12, 40}.serial()), 4 * 2 + 4 * 0.5);
  // A split backward's I has the re-gathers' pairs only: its reduce-scatters wait for W's GEMMs.
  TpCollectives i{0, 4, 8};
  i.native_gathers = 4;
  EXPECT_DOUBLE_EQ((TpOpCost{i, 4, 12, 12, 0}.serial()), 4 * 2 + 4 * 0.5 + 4 * 2);
  // Without GEMMs to run under (an MoE op's phases), the pairs are back to back.
  EXPECT_DOUBLE_EQ((TpOpCost{b, 4}.serial()), 12 * 2);
}

TEST(TpOpCost, TransformerEnginesOverlapTakesEveryHalfUnderAShareOfTheGemms) {
  // 4 halves of 2 s under 4 shares of 12 / 4 = 3 s GEMM: nothing beyond the compute; a reduce-scatter's
  // GEMM 1.5 times slower (4.5 s) adds 1.5 s each.
  EXPECT_DOUBLE_EQ((TpOpCost{{0, 2, 2}, 4, 12}.overlapped_extra(1)), 0);
  EXPECT_DOUBLE_EQ((TpOpCost{{0, 2, 2}, 4, 12}.overlapped_extra(1.5)), 2 * 1.5);
}

}  // namespace
}  // namespace pipegrid
