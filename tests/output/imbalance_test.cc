// Imbalance is visible: one stage made 1.5× heavier grows the idle time of every other rank (the heavy
// rank itself computes more in a longer step) and the summary names the rank that set the pace.
#include <gtest/gtest.h>

#include "exec_support.h"
#include "sim/exec/executor.h"
#include "sim/output/summary.h"

namespace pipegrid::sim {
namespace {

using namespace pipegrid::output;

using test_support::explicit_job;
using test_support::star_gpus;

std::vector<RankSummary> ranks_of(const std::map<int, double>& scale, Pace* pace) {
  SimulationInput input = explicit_job("ideal-16gpu.xml", star_gpus(16, 8), "1f1b", {4, 8, 0}, {1, 4, 1},
                                       ActionTimes{1, 2, 1, std::nullopt}, 0);
  input.costs.scale_stages(scale);
  const SimulationResult result = simulate(input);
  const auto ranks = summarize_ranks(result, input.schedule);
  *pace = find_pace(ranks, result);
  return ranks;
}

// Each test runs one simulation (one engine per process); the balanced numbers are the closed form:
// 1F1B with p = 4, m = 8, F = 1, B = 2 idles (p − 1)(F + B) = 9 on every rank.
TEST(Imbalance, OneHeavyStageGrowsTheOtherRanksIdleTime) {
  Pace pace;
  const auto ranks = ranks_of({{1, 1.5}}, &pace);
  for (const RankSummary& r : ranks)
    if (r.rank != 1) {
      EXPECT_GT(r.idle, 9 + 1e-9) << "rank " << r.rank;
    }
  EXPECT_EQ(pace.rank, 1);
  EXPECT_DOUBLE_EQ(pace.busy, 8 * 1.5 * 3);
  EXPECT_EQ(pace.explanation,
            "pipeline rank 1 (stages 1) computes longest, 36 s against a mean of 27 s (33.3 % more): the other ranks "
            "wait for it");
}

TEST(Imbalance, BalancedStagesIdleTheClosedForm) {
  Pace pace;
  const auto ranks = ranks_of({}, &pace);
  for (const RankSummary& r : ranks) EXPECT_NEAR(r.idle, 9, 1e-9) << "rank " << r.rank;
  EXPECT_EQ(pace.explanation, "every rank computes equally long: the bubble comes from the schedule, not from imbalance");
}

}  // namespace
}  // namespace pipegrid::sim
