// The ASCII timeline, drawn for a case small enough to work out by hand.
#include <gtest/gtest.h>

#include <sstream>

#include "schedules/generators.h"
#include "sim/cli/timeline.h"

namespace pipegrid::cli {
namespace {

TEST(Timeline, OneFOneBOnTwoRanks) {
  // 1F1B, p = 2, m = 2, F = 1, B = 2. Rank 1 runs 1F0 [1, 2], 1B0 [2, 4], 1F1 [4, 5], 1B1 [5, 7];
  // rank 0 runs 0F0 [0, 1], 0F1 [1, 2], 0B0 [4, 6] and 0B1 [7, 9]. Makespan 9, compute 12 of 18.
  // The shortest op (1) gets the longest label plus one column: 4 columns per time unit.
  std::ostringstream out;
  draw_timeline(out, run::time_run(generate_1f1b({2, 2, 1}), ActionTimes{1, 2, 1, std::nullopt}, CommPlan::Framework,
                                         {0, P2pMode::Async, 1, true}));
  EXPECT_EQ(out.str(),
            "1f1b: pp 2, microbatches 2, chunks 1; makespan 9, bubble fraction 0.3333\n"
            "   time 0       2       4       6       8\n"
            "rank 0 |0F0 0F1 ........0B0---- ....0B1---- \n"
            "rank 1 |....1F0 1B0---- 1F1 1B1---- ........\n");
}

}  // namespace
}  // namespace pipegrid::cli
