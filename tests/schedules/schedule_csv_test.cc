// Schedules as CSV: PyTorch's reference file reads as it is, and errors name line and column.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "schedules/deadlock.h"
#include "schedules/validate.h"
#include "test_support.h"

namespace pipegrid {
namespace {

using test_support::csv_schedule;
using test_support::error_of;

const std::string kData = PIPEGRID_TEST_DATA;

TEST(ScheduleCsv, ReadsPyTorchsDualPipeVTraceAsItIs) {
  const CsvSchedule csv = read_schedule_csv_file(kData + "/dualpipev_4rank_10mb.csv", CsvPlacement::Inferred);
  const Schedule& s = csv.schedule;
  EXPECT_EQ(s.ranks, 4);
  EXPECT_EQ(s.num_stages(), 8);
  EXPECT_EQ(s.microbatches, 10);
  // The ranks that run each stage are exactly the V placement: rank r holds r and 7 − r.
  EXPECT_EQ(s.layout.rank_of_stage, v_placement(4));
  // Rank 0's 18th cell is the first overlapped pair (PyTorch's OVERLAP_F_B tag dropped).
  EXPECT_EQ(to_string(s.programs[0][17]), "(0F7;7B3)");
  // 8 stages × 10 micro-batches × F, and a backward each (B or I + W), in 4 lines.
  EXPECT_NO_THROW(validate(s, csv.locator()));
  EXPECT_FALSE(find_deadlock(s).has_value());
}

TEST(ScheduleCsv, WritesWhatItReads) {
  const CsvSchedule csv = read_schedule_csv_file(kData + "/dualpipev_4rank_10mb.csv", CsvPlacement::Inferred);
  std::ostringstream out;
  write_schedule_csv(out, csv.schedule);
  std::ifstream original(kData + "/dualpipev_4rank_10mb.csv");
  std::stringstream expected;
  expected << original.rdbuf();
  EXPECT_EQ(out.str(), expected.str());
}

TEST(ScheduleCsv, SkipsCommentsBlankCellsAndCommunication) {
  const CsvSchedule csv = csv_schedule(
      "# rank 0\n"
      "0F0, ,0SEND_F0,0F1,,0RECV_B0,0B0,0B1\n"
      "1RECV_F0,1F0,1B0,1SEND_B0,1F1,1B1\n"
      "\n");
  EXPECT_EQ(csv.schedule.ranks, 2);
  EXPECT_EQ(csv.schedule.programs[0].size(), 4u);
  EXPECT_EQ(csv.line_of_rank, (std::vector<int>{2, 3}));
  EXPECT_EQ(csv.column_of_op[0], (std::vector<int>{1, 4, 7, 8}));
}

TEST(ScheduleCsv, NamesTheLineAndColumnOfAMalformedCell) {
  EXPECT_EQ(error_of([] { read_schedule_csv_file(kData + "/malformed_cell.csv", CsvPlacement::Inferred); }),
            kData + "/malformed_cell.csv:2:3: '1X1': expected <stage><F|B|I|W><microbatch> such as 2F0, or a pair "
                    "such as (0F7;7B3)");
  EXPECT_EQ(error_of([] { csv_schedule("0F0,0B0\n1F0,(1B0;1F1\n"); }),
            "test.csv:2:2: '(1B0;1F1': expected <stage><F|B|I|W><microbatch> such as 2F0, or a pair such as (0F7;7B3)");
}

TEST(ScheduleCsv, ValidationErrorsPointIntoTheFile) {
  const CsvSchedule csv = read_schedule_csv_file(kData + "/wrong_rank.csv", CsvPlacement::Inferred);
  EXPECT_EQ(error_of([&] { validate(csv.schedule, csv.locator()); }),
            kData + "/wrong_rank.csv:2:3: 0F1 runs on rank 1, but stage 0 is on rank 0");
}

TEST(ScheduleCsv, GivenPlacementsAndTheirLimits) {
  // Loop placement puts stage 2 on rank 0, which this file runs on rank 1.
  const CsvSchedule loop = csv_schedule("0F0,2F0\n1F0,2B0\n", CsvPlacement::Loop);
  EXPECT_EQ(error_of([&] { validate(loop.schedule, loop.locator()); }),
            "test.csv:2:2: 2B0 runs on rank 1, but stage 2 is on rank 0");
  EXPECT_EQ(error_of([] { csv_schedule("0F0,5F0\n1F0\n", CsvPlacement::V); }),
            "test.csv: V placement holds 2 x 2 stages, but stage 5 appears");
  EXPECT_EQ(error_of([] { csv_schedule("0F0,2F0\n"); }), "test.csv: no rank runs stage 1, but stages up to 2 appear");
  EXPECT_EQ(error_of([] { csv_schedule("# nothing\n,,\n"); }), "test.csv: no actions");
}

}  // namespace
}  // namespace pipegrid
