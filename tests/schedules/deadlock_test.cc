// Deadlocks: the checker names the cycle of waits; the Boost graph and the engine agree on which
// schedules have one.
#include <gtest/gtest.h>

#include <random>

#include "schedules/deadlock.h"
#include "schedules/dependency_graph.h"
#include "schedules/generators.h"
#include "schedules/validate.h"
#include "test_support.h"

namespace pipegrid {
namespace {

using test_support::csv_schedule;

const std::string kData = PIPEGRID_TEST_DATA;

TEST(Deadlock, CrossedOrderIsReportedAsACycleOfWaits) {
  const CsvSchedule csv = read_schedule_csv_file(kData + "/crossed_deadlock.csv", CsvPlacement::Inferred);
  ASSERT_NO_THROW(validate(csv.schedule, csv.locator()));
  const auto deadlock = find_deadlock(csv.schedule);
  ASSERT_TRUE(deadlock.has_value());
  EXPECT_EQ(deadlock->chain(), "rank 0 waits for 1B3 on rank 1, which waits for 0F4 on rank 0");
  EXPECT_EQ(deadlock->report(csv.schedule, csv.locator()),
            "deadlock: rank 0 waits for 1B3 on rank 1, which waits for 0F4 on rank 0\n"
            "  rank 0 is blocked at 0B3 (" + kData + "/crossed_deadlock.csv:3:8)\n"
            "  rank 1 is blocked at 1F4 (" + kData + "/crossed_deadlock.csv:4:8)\n"
            "fix: each rank runs the micro-batches in an order its neighbours cannot meet; generate every rank's "
            "program from one schedule function so that the forwards and backwards line up");
  EXPECT_FALSE(deadlock->open);
  EXPECT_EQ(deadlock->hint().shape, DeadlockShape::ComputeOrder);
}

TEST(Deadlock, TheGraphsCycleRunsThroughTheBlockedOps) {
  const CsvSchedule csv = read_schedule_csv_file(kData + "/crossed_deadlock.csv", CsvPlacement::Inferred);
  const auto cycle = DependencyGraph(csv.schedule).find_cycle();
  // 0B3 ← 1B3 ← 1F4 ← 0F4 ← 0B3: two data edges and two program-order edges.
  std::vector<std::string> ops;
  for (const OpRef& op : cycle) ops.push_back(to_string(csv.schedule.programs[op.rank][op.position]));
  std::sort(ops.begin(), ops.end());
  EXPECT_EQ(ops, (std::vector<std::string>{"0B3", "0F4", "1B3", "1F4"}));
}

TEST(Deadlock, ARankCanWaitForItself) {
  // One rank holding stages 0 and 1 runs 1F0 before 0F0, whose output it needs.
  const CsvSchedule csv = csv_schedule("1F0,0F0,1B0,0B0\n");
  ASSERT_NO_THROW(validate(csv.schedule, csv.locator()));
  const auto deadlock = find_deadlock(csv.schedule);
  ASSERT_TRUE(deadlock.has_value());
  EXPECT_EQ(deadlock->chain(), "rank 0 waits for 0F0, which comes later in its own program");
}

TEST(Deadlock, ThreeRankCycle) {
  // Two chunks per rank (stages r and r + 3). Rank 0 starts with 3F0, which needs 2F0 from rank 2,
  // which needs 1F0 from rank 1, which needs 0F0 — queued behind 3F0 on rank 0.
  const CsvSchedule csv = csv_schedule(
      "3F0,0F0,3B0,0B0\n"
      "1F0,4F0,4B0,1B0\n"
      "2F0,5F0,5B0,2B0\n");
  ASSERT_NO_THROW(validate(csv.schedule, csv.locator()));
  const auto deadlock = find_deadlock(csv.schedule);
  ASSERT_TRUE(deadlock.has_value());
  EXPECT_EQ(deadlock->chain(),
            "rank 0 waits for 2F0 on rank 2, which waits for 1F0 on rank 1, which waits for 0F0 on rank 0");
}

// Random reorderings of valid schedules: Boost's cycle search and the engine's stall must agree on
// every one, and every reported chain must close.
TEST(Deadlock, GraphAndEngineAgreeOnRandomReorderings) {
  std::mt19937 random(20261130);
  int deadlocks = 0, fine = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int p = 2 + trial % 4, m = p * (1 + trial % 3);
    Schedule s = generate_schedule(trial % 3 == 0 ? "gpipe" : trial % 3 == 1 ? "1f1b" : "interleaved", {p, m, 0});
    for (int swaps = 0; swaps < 3; ++swaps) {
      auto& program = s.programs[random() % p];
      const std::size_t i = random() % (program.size() - 1);
      std::swap(program[i], program[i + 1]);
    }
    try {
      validate(s);
    } catch (const std::exception&) {
      continue;  // a swap that put a backward before its forward: invalid, not a deadlock
    }
    const bool cyclic = !DependencyGraph(s).find_cycle().empty();
    const Timing t = time_schedule(s, ActionTimes{});
    ASSERT_EQ(cyclic, t.stall.has_value()) << "trial " << trial;
    if (cyclic) {
      const Deadlock d = wait_cycle(s, *t.stall);
      ASSERT_FALSE(d.cycle.empty());
      for (std::size_t i = 0; i < d.cycle.size(); ++i)
        EXPECT_EQ(d.cycle[i].awaited_rank, d.cycle[(i + 1) % d.cycle.size()].rank);
    }
    (cyclic ? deadlocks : fine)++;
  }
  // Both outcomes must be exercised for the agreement to mean anything.
  EXPECT_GT(deadlocks, 20);
  EXPECT_GT(fine, 20);
}

}  // namespace
}  // namespace pipegrid
