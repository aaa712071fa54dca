// `pipegrid schedule` and `pipegrid check` as a user runs them: what they print and their exit codes
// (0 ok, 2 bad input with one line naming it, 3 deadlock).
#include <gtest/gtest.h>

#include <filesystem>

#include <set>
#include <sstream>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "command_runner.h"

namespace pipegrid {
namespace {

using test_support::run_pipegrid;

const std::string kData = PIPEGRID_TEST_DATA;

TEST(Cli, ScheduleJsonCarriesTheMetrics) {
  const auto r = run_pipegrid("schedule --schedule 1f1b --pp 4 --microbatches 8 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["schedule"], "1f1b");
  EXPECT_EQ(json["pp"], 4);
  EXPECT_EQ(json["microbatches"], 8);
  EXPECT_EQ(json["chunks"], 1);
  EXPECT_EQ(json["makespan"], 33.0);
  EXPECT_NEAR(json["bubble_fraction"].get<double>(), 1 - 96.0 / 132, 1e-12);
  ASSERT_EQ(json["ranks"].size(), 4u);
  for (int rank = 0; rank < 4; ++rank) {
    EXPECT_EQ(json["ranks"][rank]["rank"], rank);
    EXPECT_EQ(json["ranks"][rank]["busy"], 24.0);
    EXPECT_EQ(json["ranks"][rank]["idle"], 9.0);
    EXPECT_EQ(json["ranks"][rank]["peak_activations"], 4 - rank);
  }
}

// The compute cells of a CSV, in order.
std::string compute_cells(const std::string& csv) {
  std::string out, cell;
  std::istringstream lines(csv);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream cells(line);
    bool first = true;
    while (std::getline(cells, cell, ','))
      if (cell.find("SEND") == std::string::npos && cell.find("RECV") == std::string::npos) {
        out += (first ? "" : ",") + cell;
        first = false;
      }
    out += '\n';
  }
  return out;
}

TEST(Cli, ScheduleCsvReadsBackThroughCheck) {
  // Megatron's order on p = 2, v = 2, m = 4. Rank 1: warmup 2(2 − 1 − 1) + (2 − 1)·2 = 2 forwards, then
  // forward k + 2 and backward k for k = 0 … 5 (chunk groups of p = 2 micro-batches, backwards on the
  // last chunk first), then backwards 6 and 7. The CSV carries the comm actions of its plan (PyTorch's
  // on two ranks) and reads back as it is, timing the same: (m v + p − 1)(F + B) per chunk.
  const auto generated =
      run_pipegrid("schedule --schedule interleaved --pp 2 --microbatches 4 --format csv --p2p rendezvous");
  ASSERT_EQ(generated.exit_code, 0) << generated.err;
  EXPECT_EQ(compute_cells(generated.out),
            "0F0,0F1,2F0,2F1,0F2,2B0,0F3,2B1,2F2,0B0,2F3,0B1,2B2,2B3,0B2,0B3\n"
            "1F0,1F1,3F0,3B0,3F1,3B1,1F2,1B0,1F3,1B1,3F2,3B2,3F3,3B3,1B2,1B3\n");
  EXPECT_NE(generated.out.find("0F0,0SEND_F0,"), std::string::npos) << generated.out;
  const std::string path = ::testing::TempDir() + "interleaved.csv";
  std::ofstream(path) << generated.out;
  const auto checked = run_pipegrid("check " + path + " --placement loop --format json --p2p rendezvous");
  ASSERT_EQ(checked.exit_code, 0) << checked.err;
  EXPECT_EQ(nlohmann::json::parse(checked.out)["makespan"], (4 * 2 + 2 - 1) * 3.0);
}

TEST(Cli, AllComparesEverySchedule) {
  const auto r = run_pipegrid("schedule --schedule all --pp 4 --microbatches 8 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  ASSERT_EQ(json["schedules"].size(), 8u);  // every generator accepts p = 4, m = 8
  std::map<std::string, double> makespan;
  double previous = 0;
  for (const auto& row : json["schedules"]) {
    EXPECT_GE(row["makespan"].get<double>(), previous);  // sorted by makespan
    previous = row["makespan"].get<double>();
    makespan[row["schedule"]] = previous;
  }
  // Per rank share F = 1, B = 2: GPipe and 1F1B (8 + 3)·3 = 33; interleaved, v = 2 at half the
  // times, (16 + 3)·1.5 = 28.5; ZB-H1 8·3 + (p − 1)(F + I − W) = 24 + 3 = 27.
  EXPECT_EQ(makespan["gpipe"], 33.0);
  EXPECT_EQ(makespan["1f1b"], 33.0);
  EXPECT_EQ(makespan["interleaved"], 28.5);
  EXPECT_EQ(makespan["zb-h1"], 27.0);
  EXPECT_EQ(json["schedules"][0]["schedule"], "zbv");
}

TEST(Cli, AllSaysWhichSchedulesItSkipped) {
  const auto r = run_pipegrid("schedule --schedule all --pp 4 --microbatches 6");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("skipped interleaved: --microbatches 6: interleaved (Megatron's order) needs a multiple of "
                       "--pp (4); 6 % 4 = 2"),
            std::string::npos)
      << r.out;
}

TEST(Cli, AllUnderPerOpRendezvousSaysWhichDeadlockAndWhichAreRefused) {
  // The comparison keeps going past a schedule its plan cannot run: per-op batches deadlock
  // interleaved, ZB-H2 and DualPipe (tests/schedules/comm_plan_test.cc) and cross the orders of ZB-V and DualPipeV.
  const auto r = run_pipegrid("schedule --schedule all --pp 4 --microbatches 8 --comm-plan per-op --p2p rendezvous "
                              "--format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  std::set<std::string> ran;
  for (const auto& row : json["schedules"]) ran.insert(row["schedule"].get<std::string>());
  EXPECT_EQ(ran, (std::set<std::string>{"gpipe", "1f1b", "zb-h1"}));
  std::string skipped;
  for (const auto& line : json["skipped"]) skipped += line.get<std::string>() + "\n";
  for (const char* name : {"interleaved", "zb-h2", "dualpipe"})
    EXPECT_NE(skipped.find(std::string(name) + ": deadlocks under rendezvous p2p: rank 0 waits for"), std::string::npos)
        << name << "\n" << skipped;
  for (const char* name : {"zbv", "dualpipev"})
    EXPECT_NE(skipped.find(std::string(name) + ": --comm-plan per-op: its order of " + name + " cannot run on NCCL"),
              std::string::npos)
        << name << "\n" << skipped;
}

TEST(Cli, CheckTimesAValidHandWrittenSchedule) {
  const auto r = run_pipegrid("check " + kData + "/handwritten_1f1b.csv --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["pp"], 3);
  EXPECT_EQ(json["microbatches"], 4);
  EXPECT_EQ(json["makespan"], (4 + 3 - 1) * 3.0);  // 1F1B's (m + p − 1)(F + B)
}

TEST(Cli, CheckReportsADeadlockWithExitCode3) {
  const auto r = run_pipegrid("check " + kData + "/crossed_deadlock.csv");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "deadlock: rank 0 waits for 1B3 on rank 1, which waits for 0F4 on rank 0\n"
                   "  rank 0 is blocked at 0B3 (" + kData + "/crossed_deadlock.csv:3:8)\n"
                   "  rank 1 is blocked at 1F4 (" + kData + "/crossed_deadlock.csv:4:8)\n"
                   "fix: each rank runs the micro-batches in an order its neighbours cannot meet; generate every "
                   "rank's program from one schedule function so that the forwards and backwards line up\n");
}

struct BadInput {
  std::string name;
  std::string args;
  std::string message;
};

void PrintTo(const BadInput& input, std::ostream* out) { *out << "pipegrid " << input.args; }

class CliBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(CliBadInput, OneLineAndExitCode2) {
  const auto r = run_pipegrid(GetParam().args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "pipegrid: error: " + GetParam().message + "\n");
}

INSTANTIATE_TEST_SUITE_P(
    Messages, CliBadInput,
    ::testing::Values(
        BadInput{"PpZero", "schedule --schedule 1f1b --pp 0 --microbatches 8", "--pp 0: must be at least 1"},
        BadInput{"PpNegative", "schedule --schedule 1f1b --pp -4 --microbatches 8", "--pp -4: must be at least 1"},
        BadInput{"MicrobatchesZero", "schedule --schedule gpipe --pp 4 --microbatches 0", "--microbatches 0: must be at least 1"},
        BadInput{"AllMicrobatchesNegative", "schedule --schedule all --pp 4 --microbatches -3", "--microbatches -3: must be at least 1"},
        BadInput{"InterleavedFewerThanP", "schedule --schedule interleaved --pp 4 --microbatches 2",
                 "--microbatches 2: interleaved needs at least --pp (4) micro-batches"},
        BadInput{"InterleavedNotMultiple", "schedule --schedule interleaved --pp 4 --microbatches 10",
                 "--microbatches 10: interleaved (Megatron's order) needs a multiple of --pp (4); 10 % 4 = 2"},
        BadInput{"UnknownSchedule", "schedule --schedule zigzag --pp 4 --microbatches 8",
                 "--schedule zigzag: must be one of gpipe, 1f1b, interleaved, zb-h1, zb-h2, zbv, dualpipe, dualpipev, all"},
        BadInput{"NegativeF", "schedule --schedule 1f1b --pp 4 --microbatches 8 --time-f -1",
                 "--time-f -1: must not be negative"},
        BadInput{"NegativeFB", "schedule --schedule 1f1b --pp 4 --microbatches 8 --time-fb -2",
                 "--time-fb -2: must not be negative"},
        BadInput{"WAboveB", "schedule --schedule 1f1b --pp 4 --microbatches 8 --time-b 2 --time-w 3",
                 "--time-w 3: the weight part of a backward cannot exceed --time-b 2"},
        BadInput{"NegativeLatency", "schedule --schedule 1f1b --pp 4 --microbatches 8 --p2p-latency -1",
                 "--p2p-latency -1: must not be negative"},
        BadInput{"AllAsCsv", "schedule --schedule all --pp 4 --microbatches 8 --format csv",
                 "--format csv: writes one schedule; choose one with --schedule NAME"},
        BadInput{"UnknownFormat", "schedule --schedule 1f1b --pp 4 --microbatches 8 --format pdf",
                 "--format pdf: must be one of table, timeline, csv, json"},
        BadInput{"PpNotANumber", "schedule --schedule 1f1b --pp four --microbatches 8",
                 "--pp four: expected an integer"},
        BadInput{"MalformedCell", "check " + kData + "/malformed_cell.csv",
                 kData + "/malformed_cell.csv:2:3: '1X1': expected <stage><F|B|I|W><microbatch> such as 2F0, or a "
                         "pair such as (0F7;7B3)"},
        BadInput{"StageOnAnotherRank", "check " + kData + "/wrong_rank.csv", kData + "/wrong_rank.csv:2:3: 0F1 runs on rank 1, but stage 0 is on rank 0"},
        BadInput{"UnknownPlacement", "check " + kData + "/handwritten_1f1b.csv --placement zigzag",
                 "--placement zigzag: must be one of inferred, loop, v"},
        BadInput{"MissingFile", "check " + kData + "/no_such_file.csv", kData + "/no_such_file.csv: cannot open the file"},
        BadInput{"TimelineNarrowerThanAUsefulOne",
                 "schedule --schedule gpipe --pp 64 --microbatches 4096 --format timeline --width 19",
                 "--width 19: must be at least 20"},
        BadInput{"PlotOfAComparison", "schedule --schedule all --pp 4 --microbatches 8 --plot all.png",
                 "--plot all.png: draws one schedule; choose one with --schedule NAME"}),
    [](const ::testing::TestParamInfo<BadInput>& param_info) { return param_info.param.name; });

TEST(Cli, HelpOnEveryCommand) {
  for (const char* command : {"--help", "schedule --help", "check --help"}) {
    const auto r = run_pipegrid(command);
    EXPECT_EQ(r.exit_code, 0) << command;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << command;
  }
  EXPECT_NE(run_pipegrid("schedule --help").out.find("--time-fb"), std::string::npos);
  EXPECT_NE(run_pipegrid("check --help").out.find("--placement"), std::string::npos);
}

TEST(Cli, DocsOptionsIsWhatPipegridOptionsPrints) {
  // docs/options.md is generated from the schema; regenerate it with `build/pipegrid options > docs/options.md`.
  const auto r = run_pipegrid("options");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, test_support::read_file(PIPEGRID_SOURCE_DIR "/docs/options.md"));
}

TEST(Cli, DocsOutputFilesIsWhatPipegridOutputsPrints) {
  // Generated from the output stage's catalogue: `build/pipegrid outputs > docs/output-files.md`.
  const auto r = run_pipegrid("outputs");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, test_support::read_file(PIPEGRID_SOURCE_DIR "/docs/output-files.md"));
  // Every file of the catalogue is there, with a CSV's columns: trace.csv's first and last.
  EXPECT_NE(r.out.find("| `plan.csv` |"), std::string::npos);
  EXPECT_NE(r.out.find("`trace.csv`: `gpu`, `host`"), std::string::npos);
  EXPECT_NE(r.out.find("`chunk`, `direction`\n"), std::string::npos);
}

// Issue 38: each command's --help points to the page that walks through it, and that page exists.
TEST(Cli, EachCommandsHelpNamesItsGuideAndTheGuideExists) {
  const std::vector<std::pair<std::string, std::string>> pages = {
      {"simulate", "docs/guide/simulate-and-sweep.md"}, {"schedule", "docs/guide/simulate-and-sweep.md"},
      {"check", "docs/guide/simulate-and-sweep.md"},    {"run", "docs/guide/simulate-and-sweep.md"},
      {"sweep", "docs/guide/simulate-and-sweep.md"},    {"plan", "docs/guide/planning.md"},
      {"platform", "docs/guide/what-ifs.md"},           {"platform perturb", "docs/guide/what-ifs.md"},
      {"pitfalls", "docs/guide/teaching.md"},           {"report", "docs/guide/teaching.md"},
      {"options", "docs/options.md"},                   {"outputs", "docs/output-files.md"}};
  for (const auto& [command, page] : pages) {
    const auto r = run_pipegrid(command + " --help");
    EXPECT_EQ(r.exit_code, 0) << command;
    EXPECT_NE(r.out.find("Guide: " + page), std::string::npos) << command << ":\n" << r.out;
    EXPECT_TRUE(std::filesystem::is_regular_file(std::string(PIPEGRID_SOURCE_DIR) + "/" + page)) << page;
  }
  const auto top = run_pipegrid("--help");
  for (const char* guide : {"simulate-and-sweep.md", "planning.md", "what-ifs.md", "teaching.md",
                            "models-and-parallelisms.md", "gpus-and-calibration.md"}) {
    EXPECT_NE(top.out.find(guide), std::string::npos) << guide;
    EXPECT_TRUE(std::filesystem::is_regular_file(std::string(PIPEGRID_SOURCE_DIR) + "/docs/guide/" + guide)) << guide;
  }
}

TEST(Cli, VersionIsTheProjects) {
  const auto r = run_pipegrid("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "pipegrid " PIPEGRID_VERSION "\n");
}

}  // namespace
}  // namespace pipegrid
