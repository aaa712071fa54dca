// The ASCII timeline, drawn for a case small enough to work out by hand, at widths where its labels
// fit, where time must be squeezed, and where bars are too narrow for their labels.
#include <gtest/gtest.h>

#include <sstream>

#include "schedules/generators.h"
#include "sim/cli/timeline.h"

namespace pipegrid::cli {
namespace {

// 1F1B, p = 2, m = 2, F = 1, B = 2. Rank 1 runs 1F0 [1, 2], 1B0 [2, 4], 1F1 [4, 5], 1B1 [5, 7];
// rank 0 runs 0F0 [0, 1], 0F1 [1, 2], 0B0 [4, 6] and 0B1 [7, 9]. Makespan 9, compute 12 of 18.
std::string one_f_one_b_timeline(long width) {
  std::ostringstream out;
  draw_timeline(out, run::time_run(generate_1f1b({2, 2, 1}), ActionTimes{1, 2, 1, std::nullopt}, CommPlan::Framework,
                                   {0, P2pMode::Async, 1, true}),
                width);
  return out.str();
}

TEST(Timeline, OneFOneBOnTwoRanksWhereLabelsFit) {
  // The shortest op (1) gets the longest label plus one column: 4 columns per time unit, 36 in all,
  // which 100 columns hold after the 8 of "rank 1 |".
  EXPECT_EQ(one_f_one_b_timeline(100),
            "1f1b: pp 2, microbatches 2, chunks 1; makespan 9, bubble fraction 0.3333\n"
            "   time 0       2       4       6       8\n"
            "rank 0 |0F0 0F1 ........0B0---- ....0B1---- \n"
            "rank 1 |....1F0 1B0---- 1F1 1B1---- ........\n");
}

TEST(Timeline, SqueezedIntoFortyColumns) {
  // 40 − 8 = 32 columns for 9 time units: t lands on column round(32t / 9), so 1 → 4, 2 → 7, 4 → 14,
  // 5 → 18, 6 → 21, 7 → 25, 9 → 32. 0F0 gets 4 columns (its label and the blank), 0F1 and 1F0 only
  // 3, so they drop the stage (F1, F0); the backwards' 7 hold their labels. Ticks 8 columns apart at
  // 32/9 columns per unit: every 5 (column 18); 10 would be past the end. The heading wraps.
  EXPECT_EQ(one_f_one_b_timeline(40),
            "1f1b: pp 2, microbatches 2, chunks 1;\n"
            "  makespan 9, bubble fraction 0.3333\n"
            "   time 0                 5\n"
            "rank 0 |0F0 F1 .......0B0--- ....0B1--- \n"
            "rank 1 |....F0 1B0--- 1F1 1B1--- .......\n");
}

TEST(Timeline, BarsTooNarrowForTheirLabelsKeepTheKind) {
  // 20 − 8 = 12 columns, 4/3 per unit: 1 → 1, 2 → 3, 4 → 5, 5 → 7, 6 → 8, 7 → 9, 9 → 12. 0F0 is one
  // column, its kind letter alone; two columns hold a letter and the blank; three, B0 and the blank.
  // Ticks every 10: only 0 fits.
  EXPECT_EQ(one_f_one_b_timeline(20),
            "1f1b: pp 2,\n"
            "  microbatches 2,\n"
            "  chunks 1; makespan\n"
            "  9, bubble fraction\n"
            "  0.3333\n"
            "   time 0\n"
            "rank 0 |FF ..B0 .B1 \n"
            "rank 1 |.F B F B ...\n");
}

TEST(Timeline, WrapTextBreaksBetweenWords) {
  EXPECT_EQ(wrap_text("skipped dualpipe: needs an even number", 20), "skipped dualpipe:\n  needs an even\n  number\n");
  EXPECT_EQ(wrap_text("short", 20), "short\n");
  EXPECT_EQ(wrap_text("averyveryverylongword x", 10), "averyveryverylongword\n  x\n");
}

}  // namespace
}  // namespace pipegrid::cli
