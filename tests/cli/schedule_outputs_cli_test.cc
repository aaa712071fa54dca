// What `pipegrid schedule` and `pipegrid check` write and print beyond the metrics: deadlock.json and
// the fix line of a deadlock, hangs of schedules that miss ops (exit 3) against a missing op nobody
// waits for (exit 2), trace.csv with chunk and direction, the timeline's width and --plot. The
// expected times are worked out by hand in the comments.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "command_runner.h"

namespace pipegrid {
namespace {

using nlohmann::json;
using test_support::read_file;
using test_support::run_pipegrid;

const std::string kData = PIPEGRID_TEST_DATA;
const std::string kHeader = "gpu,host,node,tp,dp,pp,track,kind,stage,microbatch,peer,bytes,start,end,chunk,direction\n";
const std::string kUnmatched =
    "fix: a rank waits for a message its peer never sends: the peer ended its step without the op; every rank must "
    "run the same micro-batches (the same m, every forward and backward)";

std::string temp_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "pipegrid-static-" + name + "-" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  return dir;
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string dir = temp_dir(name);
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/" + name + ".csv") << text;
  return dir + "/" + name + ".csv";
}

json wait(int rank, std::size_t position, const std::string& at, double since, int peer, const std::string& action,
          const std::string& what) {
  return {{"rank", rank},           {"gpu", "rank " + std::to_string(rank)},
          {"position", position},   {"blocked_at", at},
          {"blocked_since", since}, {"waits_for", {{"rank", peer}, {"action", action}, {"what", what}}}};
}

TEST(ScheduleOutputs, TheCrossedDeadlocksJsonAndPartialTrace) {
  // F = 1, B = 2. Rank 0 runs 0F0-0F3 over [0, 4] and 0B0 [4, 6], 0B1 [7, 9], 0B2 [10, 12] as rank 1's
  // 1B0 [2, 4], 1B1 [5, 7], 1B2 [8, 10] come (1F0 [1, 2], 1F1 [4, 5], 1F2 [7, 8]); then rank 0 blocks at
  // 0B3 (position 7) since 12, rank 1 after 1F3 [10, 11] at 1F4 (position 7) since 11.
  const std::string out = temp_dir("crossed");
  const auto r = run_pipegrid("check " + kData + "/crossed_deadlock.csv --out " + out);
  EXPECT_EQ(r.exit_code, 3);
  const json deadlock = json::parse(read_file(out + "/deadlock.json"));
  const json rank0 = wait(0, 7, "0B3", 12, 1, "1B3", "compute"), rank1 = wait(1, 7, "1F4", 11, 0, "0F4", "compute");
  EXPECT_EQ(
      deadlock,
      (json{{"engine", "checker"},
            {"time", 12.0},
            {"chain", "rank 0 waits for 1B3 on rank 1, which waits for 0F4 on rank 0"},
            {"cycle", {rank0, rank1}},
            {"open", false},
            {"blocked", {rank0, rank1}},
            {"wait_for",
             {{"edges", {{{"from", 0}, {"to", 1}, {"label", "1B3"}}, {{"from", 1}, {"to", 0}, {"label", "0F4"}}}}}},
            {"hint",
             {{"shape", "compute-order"},
              {"text",
               "each rank runs the micro-batches in an order its neighbours cannot meet; generate "
               "every rank's program from one schedule function so that the forwards and "
               "backwards line up"}}}}));
  EXPECT_EQ(read_file(out + "/trace.csv"), kHeader +
                                               "0,rank 0,0,0,0,0,compute,F,0,0,,0,0,1,0,\n"
                                               "0,rank 0,0,0,0,0,compute,F,0,1,,0,1,2,0,\n"
                                               "0,rank 0,0,0,0,0,compute,F,0,2,,0,2,3,0,\n"
                                               "0,rank 0,0,0,0,0,compute,F,0,3,,0,3,4,0,\n"
                                               "0,rank 0,0,0,0,0,compute,B,0,0,,0,4,6,0,\n"
                                               "0,rank 0,0,0,0,0,compute,B,0,1,,0,7,9,0,\n"
                                               "0,rank 0,0,0,0,0,compute,B,0,2,,0,10,12,0,\n"
                                               "1,rank 1,1,0,0,1,compute,F,1,0,,0,1,2,0,\n"
                                               "1,rank 1,1,0,0,1,compute,B,1,0,,0,2,4,0,\n"
                                               "1,rank 1,1,0,0,1,compute,F,1,1,,0,4,5,0,\n"
                                               "1,rank 1,1,0,0,1,compute,B,1,1,,0,5,7,0,\n"
                                               "1,rank 1,1,0,0,1,compute,F,1,2,,0,7,8,0,\n"
                                               "1,rank 1,1,0,0,1,compute,B,1,2,,0,8,10,0,\n"
                                               "1,rank 1,1,0,0,1,compute,F,1,3,,0,10,11,0,\n");
  EXPECT_TRUE(std::filesystem::exists(out + "/schedule.csv"));
  EXPECT_FALSE(std::filesystem::exists(out + "/summary.json"));  // nothing finished
}

TEST(ScheduleOutputs, ASkippedBackwardAPeerWaitsForHangsWithExitCode3) {
  // Rank 0 runs 0F0 [0, 1], 0F1 [1, 2], 0B0 [4, 6] (1B0 [2, 4]) and blocks at 0B1 (cell 4 of line 3)
  // since 6 for 1B1, which rank 1 never runs: it ends its step with 1F1 [4, 5].
  const std::string out = temp_dir("skipped");
  const std::string file = kData + "/skipped_backward.csv";
  const auto r = run_pipegrid("check " + file + " --out " + out);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "deadlock: rank 0 waits for 1B1 on rank 1, which ends its step without running it\n"
            "  rank 0 is blocked at 0B1 (" +
                file + ":3:4)\n" + kUnmatched + "; rank 1 never runs 1B1\n");
  const json deadlock = json::parse(read_file(out + "/deadlock.json"));
  const json rank0 = wait(0, 3, "0B1", 6, 1, "1B1", "compute");
  EXPECT_EQ(deadlock["open"], true);
  EXPECT_EQ(deadlock["time"], 6.0);
  EXPECT_EQ(deadlock["cycle"], json::array({rank0}));
  EXPECT_EQ(deadlock["blocked"], json::array({rank0}));
  EXPECT_EQ(deadlock["hint"]["shape"], "unmatched-receive");
  EXPECT_EQ(read_file(out + "/trace.csv"), kHeader +
                                               "0,rank 0,0,0,0,0,compute,F,0,0,,0,0,1,0,\n"
                                               "0,rank 0,0,0,0,0,compute,F,0,1,,0,1,2,0,\n"
                                               "0,rank 0,0,0,0,0,compute,B,0,0,,0,4,6,0,\n"
                                               "1,rank 1,1,0,0,1,compute,F,1,0,,0,1,2,0,\n"
                                               "1,rank 1,1,0,0,1,compute,B,1,0,,0,2,4,0,\n"
                                               "1,rank 1,1,0,0,1,compute,F,1,1,,0,4,5,0,\n");
}

TEST(ScheduleOutputs, AMissingOpNobodyWaitsForStaysBadInput) {
  // Rank 0 of 2 skips its own last backward: nothing reads stage 0's input gradient.
  const auto r = run_pipegrid("check " + write_temp("own-backward", "0F0,0F1,0B0\n1F0,1B0,1F1,1B1\n"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipegrid: error: stage 0, micro-batch 1: no backward (B, or I and W) on rank 0\n");
}

TEST(ScheduleOutputs, RanksRunningDifferentNumbersOfMicroBatchesHang) {
  // Two ranks, rank 0 four micro-batches of 1F1B, rank 1 three: 0B3 waits for 1B3.
  const std::string two = write_temp("fewer-two", "0F0,0F1,0B0,0F2,0B1,0F3,0B2,0B3\n1F0,1B0,1F1,1B1,1F2,1B2\n");
  const auto r = run_pipegrid("check " + two);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err,
            "deadlock: rank 0 waits for 1B3 on rank 1, which ends its step without running it\n"
            "  rank 0 is blocked at 0B3 (" +
                two + ":1:8)\n" + kUnmatched + "; rank 1 never runs 1B3\n");
  // Three ranks, the middle one short: both neighbours block (tests/schedules/hang_test.cc derives it).
  const std::string three = kData + "/fewer_microbatches.csv";
  const auto r3 = run_pipegrid("check " + three + " --format json");
  EXPECT_EQ(r3.exit_code, 3);
  EXPECT_EQ(r3.err,
            "deadlock: rank 0 waits for 1B3 on rank 1, which ends its step without running it\n"
            "  rank 0 is blocked at 0B3 (" +
                three +
                ":3:8)\n"
                "  rank 2 is blocked at 2F3 (" +
                three + ":5:7)\n" + kUnmatched + "; rank 1 never runs 1B3\n");
}

TEST(ScheduleOutputs, AReceiveWhoseSenderSkippedTheOpHangsInTheCommEngine) {
  // Rank 1 runs micro-batch 0 only; rank 0 waits in [0RECV_B1] (its 4th comm batch), posted at 6
  // after 0B0 [4, 6] (tests/schedules/hang_test.cc). Flows: 0F0 at 1, 0F1 at 2 (nobody receives it), 1B0 at 4.
  const std::string file = write_temp("comm-hang",
                                      "0F0,[0SEND_F0],0F1,[0SEND_F1],[0RECV_B0],0B0,[0RECV_B1],0B1\n"
                                      "[1RECV_F0],1F0,1B0,[1SEND_B0]\n");
  const std::string out = temp_dir("comm-hang-out");
  const auto r = run_pipegrid("check " + file + " --out " + out);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err,
            "deadlock: rank 0 waits for rank 1 to post 1SEND_B1, which ends its step without posting it\n"
            "  rank 0 is blocked at [0RECV_B1] (" +
                file + ":1:7)\n" + kUnmatched + "; rank 1 never posts 1SEND_B1\n");
  const json deadlock = json::parse(read_file(out + "/deadlock.json"));
  EXPECT_EQ(deadlock["engine"], "comm-engine");
  EXPECT_EQ(deadlock["blocked"], json::array({wait(0, 3, "[0RECV_B1]", 6, 1, "1SEND_B1", "send")}));
  EXPECT_EQ(read_file(out + "/trace.csv"), kHeader +
                                               "0,rank 0,0,0,0,0,compute,F,0,0,,0,0,1,0,\n"
                                               "0,rank 0,0,0,0,0,compute,F,0,1,,0,1,2,0,\n"
                                               "0,rank 0,0,0,0,0,compute,B,0,0,,0,4,6,0,\n"
                                               "0,rank 0,0,0,0,0,comm,p2p,0,0,rank 1,0,1,1,,\n"
                                               "0,rank 0,0,0,0,0,comm,p2p,0,1,rank 1,0,2,2,,\n"
                                               "1,rank 1,1,0,0,1,compute,F,1,0,,0,1,2,0,\n"
                                               "1,rank 1,1,0,0,1,compute,B,1,0,,0,2,4,0,\n"
                                               "1,rank 1,1,0,0,1,comm,p2p,1,0,rank 0,0,4,4,,\n");
}

TEST(ScheduleOutputs, TheTraceOfA1F1BRunWithItsMessages) {
  // 1F1B, p = 2, m = 2, F = 1, B = 2, every message 1 (Megatron's plan, async). 0F0 [0, 1] sends at 1
  // (arrives 2), 0F1 [1, 2] at 2 (arrives 3); 1F0 [2, 3], 1B0 [3, 5] sends at 5 (arrives 6), 1F1
  // [5, 6], 1B1 [6, 8] sends at 8 (arrives 9); 0B0 [6, 8], 0B1 [9, 11].
  const std::string out = temp_dir("1f1b");
  const auto r = run_pipegrid("schedule --schedule 1f1b --pp 2 --microbatches 2 --p2p-latency 1 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(out + "/trace.csv"), kHeader +
                                               "0,rank 0,0,0,0,0,compute,F,0,0,,0,0,1,0,\n"
                                               "0,rank 0,0,0,0,0,compute,F,0,1,,0,1,2,0,\n"
                                               "0,rank 0,0,0,0,0,compute,B,0,0,,0,6,8,0,\n"
                                               "0,rank 0,0,0,0,0,compute,B,0,1,,0,9,11,0,\n"
                                               "0,rank 0,0,0,0,0,comm,p2p,0,0,rank 1,0,1,2,,\n"
                                               "0,rank 0,0,0,0,0,comm,p2p,0,1,rank 1,0,2,3,,\n"
                                               "1,rank 1,1,0,0,1,compute,F,1,0,,0,2,3,0,\n"
                                               "1,rank 1,1,0,0,1,compute,B,1,0,,0,3,5,0,\n"
                                               "1,rank 1,1,0,0,1,compute,F,1,1,,0,5,6,0,\n"
                                               "1,rank 1,1,0,0,1,compute,B,1,1,,0,6,8,0,\n"
                                               "1,rank 1,1,0,0,1,comm,p2p,1,0,rank 0,0,5,6,,\n"
                                               "1,rank 1,1,0,0,1,comm,p2p,1,1,rank 0,0,8,9,,\n");
  EXPECT_EQ(json::parse(read_file(out + "/summary.json"))["makespan"], 11.0);
  EXPECT_FALSE(std::filesystem::exists(out + "/deadlock.json"));
}

// The compute rows of a trace as (rank, stage, chunk, direction), one per row.
std::vector<std::tuple<int, int, int, std::string>> compute_rows(const std::string& trace) {
  std::vector<std::tuple<int, int, int, std::string>> rows;
  std::istringstream in(trace);
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream cells_in(line);
    for (std::string cell; std::getline(cells_in, cell, ',');) cells.push_back(cell);
    if (line.back() == ',') cells.emplace_back();
    if (cells.at(6) != "compute") continue;
    rows.emplace_back(std::stoi(cells[0]), std::stoi(cells[8]), std::stoi(cells[14]), cells[15]);
  }
  return rows;
}

TEST(ScheduleOutputs, ChunksAndDirectionsFollowTheLayout) {
  // Interleaved, p = 2, v = 2: stage s on rank s mod 2 is chunk s / 2; no direction.
  const std::string interleaved = temp_dir("interleaved");
  ASSERT_EQ(run_pipegrid("schedule --schedule interleaved --pp 2 --microbatches 4 --out " + interleaved).exit_code, 0);
  const auto loop = compute_rows(read_file(interleaved + "/trace.csv"));
  EXPECT_EQ(loop.size(), 2u * 4 * 4);  // F and B of 4 stages × 4 micro-batches
  for (const auto& [rank, stage, chunk, direction] : loop) {
    EXPECT_EQ(rank, stage % 2);
    EXPECT_EQ(chunk, stage / 2);
    EXPECT_EQ(direction, "");
  }
  // DualPipe, p = 4: rank r holds virtual stage r (model stage r, entering at rank 0: down, chunk 0)
  // and 7 − r (model stage 3 − r of the reverse direction: up, chunk 1); both halves of a pair rows.
  const std::string dualpipe = temp_dir("dualpipe");
  ASSERT_EQ(run_pipegrid("schedule --schedule dualpipe --pp 4 --microbatches 8 --out " + dualpipe).exit_code, 0);
  const auto two = compute_rows(read_file(dualpipe + "/trace.csv"));
  EXPECT_GE(two.size(), 2u * 8 * 4);  // at least an F and a backward for 8 stages × 4 micro-batches each
  for (const auto& [rank, stage, chunk, direction] : two) {
    EXPECT_EQ(stage == rank ? 0 : 1, chunk) << stage;
    EXPECT_EQ(stage < 4 ? "down" : "up", direction) << stage;
    EXPECT_TRUE(stage == rank || stage == 7 - rank) << stage;
  }
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(ScheduleOutputs, EveryTimelineFitsItsWidth) {
  const auto all = run_pipegrid("schedule --schedule all --pp 4 --microbatches 8 --format timeline --width 100");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const auto lines = lines_of(all.out);
  EXPECT_GT(lines.size(), 8u * 6);  // eight schedules, a heading, an axis and four ranks each
  for (const std::string& line : lines) EXPECT_LE(line.size(), 100u) << line;
  // Without --width: $COLUMNS when it is a number, else 100.
  const std::string one = "schedule --schedule interleaved --pp 4 --microbatches 8 --format timeline";
  const auto sixty = run_pipegrid(one + " --width 60");
  ASSERT_EQ(sixty.exit_code, 0) << sixty.err;
  for (const std::string& line : lines_of(sixty.out)) EXPECT_LE(line.size(), 60u) << line;
  EXPECT_EQ(run_pipegrid("--help >/dev/null; COLUMNS=60 " PIPEGRID_BINARY " " + one).out, sixty.out);
  EXPECT_EQ(run_pipegrid("--help >/dev/null; COLUMNS=wide " PIPEGRID_BINARY " " + one).out,
            run_pipegrid(one + " --width 100").out);
}

// Whether this checkout's gantt.py reads the trace's chunk and direction columns yet, and the
// system's Python has what it imports.
bool gantt_reads_chunks() {
  return read_file(PIPEGRID_SOURCE_DIR "/experiments/plot/trace_data.py").find("\"direction\"") != std::string::npos;
}
bool python_plots() { return std::system("/usr/bin/python3 -c 'import matplotlib, pandas' 2>/dev/null") == 0; }

bool is_png(const std::string& path) { return read_file(path).starts_with("\x89PNG\r\n\x1a\n"); }

TEST(ScheduleOutputs, PlotDrawsTheTracesGanttChart) {
  if (!gantt_reads_chunks()) GTEST_SKIP() << "experiments/plot/gantt.py does not read chunk and direction yet";
  if (!python_plots()) GTEST_SKIP() << "/usr/bin/python3 lacks matplotlib or pandas (scripts/install-deps.sh)";
  const std::string out = temp_dir("plot");
  std::filesystem::create_directories(out);
  // With --out, beside its files; without, from a temporary directory.
  const auto with_out =
      run_pipegrid("schedule --schedule zbv --pp 4 --microbatches 8 --out " + out + "/run --plot " + out + "/zbv.png");
  ASSERT_EQ(with_out.exit_code, 0) << with_out.err;
  EXPECT_EQ(with_out.err, "");
  EXPECT_TRUE(is_png(out + "/zbv.png"));
  const auto deadlock = run_pipegrid("check " + kData + "/crossed_deadlock.csv --plot " + out + "/crossed.png");
  EXPECT_EQ(deadlock.exit_code, 3);
  EXPECT_TRUE(deadlock.err.ends_with("the forwards and backwards line up\n")) << deadlock.err;
  EXPECT_TRUE(is_png(out + "/crossed.png"));
  // A chart into a folder that does not exist yet: the folder is made, as --out's is.
  const auto nested = run_pipegrid("schedule --schedule 1f1b --pp 2 --microbatches 4 --plot " + out + "/new/1f1b.png");
  ASSERT_EQ(nested.exit_code, 0) << nested.err;
  EXPECT_EQ(nested.err, "");
  EXPECT_TRUE(is_png(out + "/new/1f1b.png"));
}

}  // namespace
}  // namespace pipegrid
