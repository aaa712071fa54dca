// Comm-lowered schedule files (tests/data/schedules/, README.md there) through `pipegrid check` and
// `pipegrid simulate --schedule-file`, as a user runs them: PyTorch's own zb1p artifacts and
// pipegrid's torch-plan lowering of GPipe, interleaved 1F1B and ZB-V read as they are, run, and time
// the same as their compute-only forms; the same files with one RECV removed or two receives crossed
// are refused (exit 2, one line naming FILE:LINE:COL), and one with a head-to-head pair of sends
// waited at once is reported as a deadlock with its cycle (exit 3) — never timed.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "command_runner.h"

namespace pipegrid {
namespace {

using test_support::read_file;
using test_support::run_pipegrid;

const std::string kSchedules = PIPEGRID_TEST_DATA "/schedules/";
const std::string kIdeal = PIPEGRID_TEST_DATA "/platforms/ideal-16gpu.xml";
// The times check uses by default, given to simulate explicitly: per virtual stage and micro-batch
// F = 1, B = I + W = 2, W = 1.
const std::string kTimes = " --time-f 1 --time-b 2 --time-w 1";

// The cells of a CSV that are not comm actions, in order: the compute-only form of a lowered file,
// as tests/data/schedules/README.md's sed line writes it.
std::string compute_cells(const std::string& csv) {
  std::string out;
  std::istringstream lines(csv);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream cells(line);
    bool first = true;
    for (std::string cell; std::getline(cells, cell, ',');)
      if (cell.find("SEND") == std::string::npos && cell.find("RECV") == std::string::npos) {
        out += (first ? "" : ",") + cell;
        first = false;
      }
    out += '\n';
  }
  return out;
}

struct LoweredFile {
  std::string name;
  std::string stem;       // tests/data/schedules/STEM_comms.csv and STEM_compute.csv
  std::string placement;  // where its stages live, for check --placement and simulate --stage-placement
  int pp, microbatches, chunks;
  double makespan;       // with F = 1, B = 2, W = 1 and no latency, computed by hand
  std::string generate;  // the `pipegrid schedule` arguments that write STEM_comms.csv ("": PyTorch's)
  std::string comms() const { return kSchedules + stem + "_comms.csv"; }
  std::string compute() const { return kSchedules + stem + "_compute.csv"; }
};
void PrintTo(const LoweredFile& f, std::ostream* out) { *out << f.stem; }

const std::vector<LoweredFile> kLoweredFiles = {
    // PyTorch's test_csv pair: ZB1P on 2 ranks, stages {0, 2} on rank 0 and {1, 3} on rank 1 (s mod 2).
    // Its compute CSV is a timetable of unit steps (F = I = W = 1 here): both lines have 49 cells,
    // 48 ops and one idle cell (rank 1's first, waiting for 0F0), each op's input made in an
    // earlier cell. 49 is also a lower bound: rank 1 cannot start before 0F0 ends (F) and has
    // m·v·(F + B) = 8·2·3 = 48 of work.
    {"Zb1pPyTorch", "zb1p_2rank_2stagep", "loop", 2, 8, 2, 1 + 8 * 2 * 3.0, ""},
    // GPipe and interleaved 1F1B: (m v + p − 1)(F + B), v = 1 and 2 (F, B per virtual stage).
    {"GPipe", "gpipe_4rank_8mb", "inferred", 4, 8, 1, (8 + 4 - 1) * 3.0,
     "schedule --schedule gpipe --pp 4 --microbatches 8 --comm-plan torch --format csv"},
    {"Interleaved1F1B", "interleaved_4rank_2stagep_8mb", "loop", 4, 8, 2, (8 * 2 + 4 - 1) * 3.0,
     "schedule --schedule interleaved --pp 4 --chunks 2 --microbatches 8 --comm-plan torch --format csv"},
    // ZB-V: rank p − 1 holds stages p − 1 and p. Its first op, (p−1)F0, waits for 0F0 … (p−2)F0,
    // (p − 1)F in all, and it has 2m(F + I + W) = 48 of work: a lower bound, which ZB-V reaches
    // with F = I = W.
    {"ZbV", "zbv_4rank_8mb", "v", 4, 8, 2, (4 - 1) * 1 + 2 * 8 * 3.0,
     "schedule --schedule zbv --pp 4 --microbatches 8 --comm-plan torch --format csv"},
};

class LoweredFiles : public ::testing::TestWithParam<LoweredFile> {};

TEST_P(LoweredFiles, AreWhatTheReadmeCommandsWrite) {
  const LoweredFile& f = GetParam();
  const std::string comms = read_file(f.comms());
  ASSERT_FALSE(comms.empty()) << f.comms();
  EXPECT_NE(comms.find("RECV_F"), std::string::npos);
  if (f.generate.empty()) return;  // PyTorch's artifact, copied verbatim
  const auto generated = run_pipegrid(f.generate);
  ASSERT_EQ(generated.exit_code, 0) << generated.err;
  EXPECT_EQ(generated.out, comms) << "regenerate " << f.comms() << " with pipegrid " << f.generate;
  EXPECT_EQ(compute_cells(comms), read_file(f.compute()));
}

TEST_P(LoweredFiles, CheckReadsTheCommActionsAsTheyAre) {
  // Written back cell for cell: check keeps the file's comm actions (no plan lowers them again).
  const LoweredFile& f = GetParam();
  const auto r = run_pipegrid("check " + f.comms() + " --placement " + f.placement + " --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, read_file(f.comms()));
  if (f.generate.empty()) return;  // PyTorch's pair: ZbPyTorchsTestCsvIsTheTorchPlan
  // The compute-only form, lowered by check's default plan (PyTorch's, for a CSV), gives the file back.
  const auto lowered = run_pipegrid("check " + f.compute() + " --placement " + f.placement + " --format csv");
  ASSERT_EQ(lowered.exit_code, 0) << lowered.err;
  EXPECT_EQ(lowered.out, read_file(f.comms()));
}

// Async and rendezvous alike, with no latency: every cell of a torch-lowered file is a batch of one,
// a receive waited by the op that reads it and a send at the end of the step, so no comm action
// moves a rank's clock. A message starts when both sides have posted: its send right after the op
// that makes it, its receive before the op that reads it — no later than that op could start
// anyway. Receives keep the senders' order (validate_comms), so no message waits for an earlier one
// on its channel, and the sends waited at the end are done by the time their receivers use them. The
// ops run as in the compute-only schedule (RendezvousPaysForTorchsLatePostedReceives: not so with
// latency).
TEST_P(LoweredFiles, CheckTimesThemAsTheirComputeOnlyForms) {
  const LoweredFile& f = GetParam();
  for (const char* p2p : {"async", "rendezvous"})
    for (const std::string& file : {f.comms(), f.compute()}) {
      SCOPED_TRACE(file + " --p2p " + p2p);
      const auto r = run_pipegrid("check " + file + " --placement " + f.placement + " --p2p " + p2p + " --format json");
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(r.err, "");
      const auto json = nlohmann::json::parse(r.out);
      EXPECT_EQ(json["pp"], f.pp);
      EXPECT_EQ(json["microbatches"], f.microbatches);
      EXPECT_EQ(json["chunks"], f.chunks);
      EXPECT_EQ(json["p2p"], p2p);
      EXPECT_EQ(json["makespan"], f.makespan);
    }
}

TEST_P(LoweredFiles, SimulateOnAnIdealNetworkTimesThemAsCheck) {
  // tests/data/platforms/ideal-16gpu.xml: no latency, 1 PB/s, and --p2p-bytes 0 by default — every
  // transfer takes no time, as in check.
  const LoweredFile& f = GetParam();
  for (const char* p2p : {"async", "rendezvous"})
    for (const std::string& file : {f.comms(), f.compute()}) {
      SCOPED_TRACE(file + " --p2p " + p2p);
      const auto r = run_pipegrid("simulate --platform " + kIdeal + " --schedule-file " + file + " --stage-placement " +
                                  f.placement + kTimes + " --p2p " + p2p + " --format json");
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(r.err, "");
      const auto summary = nlohmann::json::parse(r.out);
      EXPECT_EQ(summary["inputs"]["pp"], f.pp);
      EXPECT_EQ(summary["inputs"]["microbatches"], f.microbatches);
      EXPECT_EQ(summary["inputs"]["chunks"], f.chunks);
      EXPECT_EQ(summary["inputs"]["options"]["p2p"], p2p);
      EXPECT_NEAR(summary["makespan"].get<double>(), f.makespan, 1e-9 * f.makespan);
    }
}

INSTANTIATE_TEST_SUITE_P(Files, LoweredFiles, ::testing::ValuesIn(kLoweredFiles),
                         [](const ::testing::TestParamInfo<LoweredFile>& param_info) { return param_info.param.name; });

// PyTorch's test_csv("zb1p_2rank_2stagep"): the compute CSV, each rank's adjacent I and W of one
// micro-batch merged into a B (_merge_bw, which also drops the idle cells), lowered by
// _add_send_recv with stage s on rank s mod 2, is the comms CSV. pipegrid's torch plan does the
// same. (Its own lowering of the compute CSV keeps I and W apart, as PyTorch's runtime does when it
// loads a compute-only CSV, so it differs from the comms CSV; both time 49, above.)
TEST(ScheduleFiles, ZbPyTorchsTestCsvIsTheTorchPlan) {
  const std::regex input_gradient(R"((\d+)I(\d+))");
  std::string merged;
  std::istringstream lines(read_file(kSchedules + "zb1p_2rank_2stagep_compute.csv"));
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> cells;
    std::istringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');)
      if (!cell.empty()) cells.push_back(cell);
    std::vector<std::string> out;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      std::smatch m;
      if (i + 1 < cells.size() && std::regex_match(cells[i], m, input_gradient) &&
          cells[i + 1] == m[1].str() + "W" + m[2].str()) {
        out.push_back(m[1].str() + "B" + m[2].str());
        ++i;
      } else {
        out.push_back(cells[i]);
      }
    }
    for (std::size_t i = 0; i < out.size(); ++i) merged += (i ? "," : "") + out[i];
    merged += '\n';
  }
  const std::string path = ::testing::TempDir() + "zb1p_merged_" + std::to_string(getpid()) + ".csv";
  std::ofstream(path) << merged;
  const auto r = run_pipegrid("check " + path + " --placement loop --comm-plan torch --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, read_file(kSchedules + "zb1p_2rank_2stagep_comms.csv"));
  std::remove(path.c_str());
}

// With a latency L, a message reaches its receiver L after it starts. Async: it starts when sent, as
// the compute-only engine adds L to a dependency between ranks. Rendezvous: it starts when its
// receive is posted too, and PyTorch places GPipe's RECV_Fk after F(k−1) (_add_send_recv puts it
// where the sender's round leaves the receiver's list): rank r > 0 posts it when F(k−1) ends, so
// each forward there pays L again, and so does each backward on ranks below the last.
// GPipe, p = 4, m = 8, F = 1, B = 2, L = 0.5:
//  - async: the critical path 0F0 … 3F0, 3F1 … 3B7, 2B7 … 0B7 crosses 2(p − 1) = 6 boundaries:
//    (m + p − 1)(F + B) + 2(p − 1)L = 33 + 3 = 36;
//  - rendezvous: rank r's forward k ends at (r + k + 1)(F + L) − L (rank 0: k + 1), the last at
//    (m + p − 1)(F + L) − L = 16; rank p − 1 runs its m backwards back to back (needing no receive),
//    rank r < p − 1 its first backward L + B after rank r + 1's first and each next one B + L after
//    its last: rank 0 ends at 16 + B + (p − 1)(L + B) + (m − 1)(L + B) = 43 = 33 + 2(m + p − 2)L.
// The compute-only form lowers to the same file (CheckReadsTheCommActionsAsTheyAre), so it times
// the same.
TEST(ScheduleFiles, RendezvousPaysForTorchsLatePostedReceives) {
  const double F = 1, B = 2, L = 0.5, p = 4, m = 8;
  const double async = (m + p - 1) * (F + B) + 2 * (p - 1) * L;
  const double rendezvous = (m + p - 1) * (F + L) - L + B + (p - 1) * (L + B) + (m - 1) * (L + B);
  EXPECT_EQ(rendezvous, (m + p - 1) * (F + B) + 2 * (m + p - 2) * L);
  for (const char* stem : {"gpipe_4rank_8mb_comms.csv", "gpipe_4rank_8mb_compute.csv"})
    for (const auto& [p2p, makespan] : {std::pair{"async", async}, std::pair{"rendezvous", rendezvous}}) {
      SCOPED_TRACE(std::string(stem) + " --p2p " + p2p);
      const auto r = run_pipegrid("check " + kSchedules + stem + " --p2p-latency 0.5 --p2p " + p2p + " --format json");
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(nlohmann::json::parse(r.out)["makespan"], makespan);
    }
}

// A broken file and what both commands say of it, whatever the p2p mode.
struct BrokenFile {
  std::string name;
  std::string file;
  std::string message;  // after "pipegrid: error: FILE:"
};
void PrintTo(const BrokenFile& b, std::ostream* out) { *out << b.file; }

class BrokenFiles : public ::testing::TestWithParam<BrokenFile> {};

TEST_P(BrokenFiles, AreRefusedByCellNeverTimed) {
  const std::string path = kSchedules + GetParam().file;
  const std::string err = "pipegrid: error: " + path + ":" + GetParam().message + "\n";
  for (const char* p2p : {"async", "rendezvous"}) {
    SCOPED_TRACE(p2p);
    const auto checked = run_pipegrid("check " + path + " --placement loop --p2p " + p2p + " --format json");
    EXPECT_EQ(checked.exit_code, 2);
    EXPECT_EQ(checked.out, "");
    EXPECT_EQ(checked.err, err);
    const auto simulated = run_pipegrid("simulate --platform " + kIdeal + " --schedule-file " + path +
                                        " --stage-placement loop" + kTimes + " --p2p " + p2p + " --format json");
    EXPECT_EQ(simulated.exit_code, 2);
    EXPECT_EQ(simulated.out, "");
    EXPECT_EQ(simulated.err, err);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Files, BrokenFiles,
    ::testing::Values(
        // Rank 1's 1RECV_F2 (line 2, cell 14) removed: 1F2, now cell 19, reads what no receive brings.
        BrokenFile{"MissingRecv", "zb1p_2rank_2stagep_comms_missing_recv.csv",
                   "2:19: 1F2 reads micro-batch 2's activation from rank 0, but no 1RECV_F2 comes before it"},
        // Rank 1's 1RECV_B0 (cell 12) and 1RECV_F2 (cell 14) swapped, both still before their ops.
        // Rank 0 sends it 0F0, 0F1, 2F0, 2F1, then 2SEND_B0 (line 1, cell 13) before 0SEND_F2:
        // rank 1's 5th receive from rank 0 would get the gradient into the activation's buffer.
        BrokenFile{"CrossedRecvs", "zb1p_2rank_2stagep_comms_crossed_recvs.csv",
                   "2:12: 1RECV_F2 is the 5th receive of rank 1 from rank 0, but the 5th send of rank 0 to it is "
                   "2SEND_B0 (" +
                       kSchedules +
                       "zb1p_2rank_2stagep_comms_crossed_recvs.csv:1:13): NCCL matches the messages between two "
                       "ranks in the order they are posted"}),
    [](const ::testing::TestParamInfo<BrokenFile>& param_info) { return param_info.param.name; });

// Legal cell by cell (validate_comms passes), but head to head under rendezvous: rank 0 waits at once
// for its send of 0F1 ([0SEND_F1], line 1, cell 4), whose receive rank 1 posts after its own send
// of 1F0 waited at once ([1SEND_F0], line 2, cell 3), whose receive rank 0 posts after [0SEND_F1]
// (2RECV_F0 moved from cell 3 to cell 5). Both ranks get there at 2 (0F0, 0F1 on rank 0; 1F0 after
// 0F0 on rank 1).
const std::string kHeadToHead = kSchedules + "zb1p_2rank_2stagep_comms_rendezvous_deadlock.csv";

TEST(ScheduleFiles, HeadToHeadSendsDeadlockUnderRendezvousWithTheirCycle) {
  const auto checked = run_pipegrid("check " + kHeadToHead + " --placement loop --p2p rendezvous --format json");
  EXPECT_EQ(checked.exit_code, 3);
  EXPECT_EQ(checked.out, "");
  const auto at = [](const std::string& cell) { return " (" + kHeadToHead + ":" + cell + ")\n"; };
  EXPECT_EQ(checked.err,
            "deadlock: rank 0 waits for rank 1 to post 1RECV_F1, which waits for rank 0 to post 2RECV_F0\n" +
                ("  rank 0 is blocked at [0SEND_F1]" + at("1:4")) + ("  rank 1 is blocked at [1SEND_F0]" + at("2:3")) +
                "fix: both sides send first and a rendezvous send waits for a receive posted later; make sends "
                "asynchronous (--p2p async), post each send with the receive it meets in one batch "
                "(batch_isend_irecv: --comm-plan megatron), or have odd ranks receive first\n");
  const auto simulated = run_pipegrid("simulate --platform " + kIdeal + " --schedule-file " + kHeadToHead +
                                      " --stage-placement loop" + kTimes + " --p2p rendezvous --format json");
  EXPECT_EQ(simulated.exit_code, 3);
  EXPECT_EQ(simulated.out, "");
  EXPECT_EQ(simulated.err,
            "deadlock at 2 s: gpu0 waits for gpu1 to receive 0F1, which waits for gpu0 to receive 1F0\n"
            "  gpu0 (tp 0, dp 0, pp 0) is blocked at [0SEND_F1]\n"
            "  gpu1 (tp 0, dp 0, pp 1) is blocked at [1SEND_F0]\n"
            "fix: both sides send first and a rendezvous send waits for a receive posted later; make sends asynchronous "
            "(--p2p async), post each send with the receive it meets in one batch (batch_isend_irecv: --comm-plan "
            "megatron), or have odd ranks receive first\n");
}

TEST(ScheduleFiles, HeadToHeadSendsRunUnderAsyncAsTheOriginal) {
  // Async: a send completes when posted, so a batch of sends waited at once does not wait, and
  // 2RECV_F0 is still posted before 2F0 reads it: PyTorch's 49.
  const auto checked = run_pipegrid("check " + kHeadToHead + " --placement loop --p2p async --format json");
  ASSERT_EQ(checked.exit_code, 0) << checked.err;
  EXPECT_EQ(nlohmann::json::parse(checked.out)["makespan"], 49.0);
  const auto simulated = run_pipegrid("simulate --platform " + kIdeal + " --schedule-file " + kHeadToHead +
                                      " --stage-placement loop" + kTimes + " --p2p async --format json");
  ASSERT_EQ(simulated.exit_code, 0) << simulated.err;
  EXPECT_NEAR(nlohmann::json::parse(simulated.out)["makespan"].get<double>(), 49.0, 1e-9 * 49);
}

TEST(ScheduleFiles, AStageOnTheWrongRankIsNamedByItsCell) {
  // ZB-V's V read as a loop: stage 7 is on rank 7 mod 4 = 3, but rank 0's line runs 7F0 (cell 16).
  const std::string zbv = kSchedules + "zbv_4rank_8mb_comms.csv";
  const std::string err = "pipegrid: error: " + zbv + ":1:16: 7F0 runs on rank 0, but stage 7 is on rank 3\n";
  const auto checked = run_pipegrid("check " + zbv + " --placement loop --format json");
  EXPECT_EQ(checked.exit_code, 2);
  EXPECT_EQ(checked.out, "");
  EXPECT_EQ(checked.err, err);
  const auto simulated =
      run_pipegrid("simulate --platform " + kIdeal + " --schedule-file " + zbv + " --stage-placement loop" + kTimes);
  EXPECT_EQ(simulated.exit_code, 2);
  EXPECT_EQ(simulated.out, "");
  EXPECT_EQ(simulated.err, err);
}

TEST(ScheduleFiles, SimulateRefusesFlagsTheFileContradicts) {
  const std::string zb1p = kSchedules + "zb1p_2rank_2stagep_comms.csv";
  const std::string job = "simulate --platform " + kIdeal + " --schedule-file " + zb1p + kTimes;
  const struct {
    std::string flags, message;
  } refused[] = {
      {" --schedule 1f1b", "--schedule NAME or --schedule-file FILE.csv: give exactly one"},
      {" --schedule 1f1b --pp 2 --microbatches 8", "--schedule NAME or --schedule-file FILE.csv: give exactly one"},
      {" --pp 4", "--pp 4: " + zb1p + " has 2"},
      {" --microbatches 4", "--microbatches 4: " + zb1p + " has 8"},
  };
  for (const auto& [flags, message] : refused) {
    const auto r = run_pipegrid(job + flags);
    EXPECT_EQ(r.exit_code, 2) << flags;
    EXPECT_EQ(r.out, "") << flags;
    EXPECT_EQ(r.err, "pipegrid: error: " + message + "\n") << flags;
  }
  // Flags that agree with the file are accepted.
  const auto agreed = run_pipegrid(job + " --pp 2 --microbatches 8 --format json");
  ASSERT_EQ(agreed.exit_code, 0) << agreed.err;
  EXPECT_NEAR(nlohmann::json::parse(agreed.out)["makespan"].get<double>(), 49.0, 1e-9 * 49);
}

}  // namespace
}  // namespace pipegrid
