// Each rule of validate(), broken once, with the exact message the user reads.
#include <gtest/gtest.h>

#include "schedules/generators.h"
#include "schedules/validate.h"
#include "test_support.h"

namespace pipegrid {
namespace {

using test_support::csv_schedule;

std::string error_of(const std::string& csv_text) {
  const CsvSchedule csv = csv_schedule(csv_text);
  return test_support::error_of([&] { validate(csv.schedule, csv.locator()); });
}

TEST(Validate, AcceptsAHandWrittenOneFOneB) { EXPECT_EQ(error_of("0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n"), ""); }

TEST(Validate, AcceptsASplitBackward) { EXPECT_EQ(error_of("0F0,0I0,0W0\n1F0,1I0,1W0\n"), ""); }

TEST(Validate, NamesTheBrokenRule) {
  EXPECT_EQ(error_of("0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1,1F1\n"), "test.csv:2:5: 1F1 runs a second time");
  EXPECT_EQ(error_of("0F0,0F1,0B0,0B1\n1F0,1B0,1F1\n"), "stage 1, micro-batch 1: no backward (B, or I and W) on rank 1");
  EXPECT_EQ(error_of("0F0,0B0,0F1\n1F0,1B0,1F1,1B1\n"), "stage 0, micro-batch 1: no backward (B, or I and W) on rank 0");
  EXPECT_EQ(error_of("0F0,0B0,0B1\n1F0,1B0,1F1,1B1\n"), "test.csv:1:3: 0B1 runs before its forward 0F1");
  EXPECT_EQ(error_of("0F0,0I0\n1F0,1B0\n"), "stage 0, micro-batch 0: no weight gradient (W) after its I on rank 0");
  EXPECT_EQ(error_of("0F0,0W0,0I0\n1F0,1B0\n"), "test.csv:1:2: 0W0 runs before its input gradient 0I0");
  EXPECT_EQ(error_of("0F0,0B0,0W0\n1F0,1B0\n"), "test.csv:1:3: 0W0 mixes a full backward B with a split one (I and W)");
  EXPECT_EQ(error_of("0F0,0F1,0B0,0I1,0W1\n1F0,1B0,1F1,1B1\n"), "");
  EXPECT_EQ(error_of("0F0,(0F1;0B1),0B0\n1F0,1B0,1F1,1B1\n"), "test.csv:1:2: 0B1 runs before its forward 0F1");
  EXPECT_EQ(error_of("0F0,(0F1;0W0),0B1\n1F0,1B0,1F1,1B1\n"),
            "test.csv:1:2: (0F1;0W0) pairs F with W; an overlapped pair joins a forward with a backward (B or I)");
  EXPECT_EQ(error_of("0F0,0B0\n1F0,1B0\n2F1\n"), "stage 0, micro-batch 1: no forward (F) on rank 0");
}

TEST(Validate, GeneratedSchedulesNameRankAndPosition) {
  Schedule s = generate_1f1b({2, 2, 1});
  s.programs[1].push_back(Action{0, 1, Kind::F});
  EXPECT_EQ(test_support::error_of([&] { validate(s); }), "rank 1, position 5: 0F1 runs on rank 1, but stage 0 is on rank 0");
  s = generate_1f1b({2, 2, 1});
  s.programs[0][0] = Action{5, 0, Kind::F};
  EXPECT_EQ(test_support::error_of([&] { validate(s); }),
            "rank 0, position 1: 5F0 names stage 5, but the schedule has stages 0-1");
  s = generate_1f1b({2, 2, 1});
  s.programs[0][1] = Action{0, 2, Kind::F};
  EXPECT_EQ(test_support::error_of([&] { validate(s); }),
            "rank 0, position 2: 0F2 names micro-batch 2, but stage 0 runs micro-batches 0-1");
}

}  // namespace
}  // namespace pipegrid
