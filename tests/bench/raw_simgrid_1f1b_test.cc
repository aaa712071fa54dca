// The executor's baseline (bench/raw_simgrid_1f1b.cc) runs the job it is given: on an ideal network its
// plain SimGrid 1F1B loop takes 1F1B's closed form and counts one exec per computation and one comm per
// stage boundary crossed; where the executor has nothing more to simulate (no TP, DP or optimizer
// communication) the two take the same step, latency and shared ports included.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>

#include "command_runner.h"

namespace pipegrid {
namespace {

double makespan(const std::string& out) {
  std::smatch m;
  if (!std::regex_search(out, m, std::regex(R"(makespan ([0-9.e+-]+) s)"))) return -1;
  return std::stod(m[1]);
}

test_support::CommandResult run_raw_bench(const std::string& args) {
  char dir_template[] = "/tmp/pipegrid-raw-XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  const std::string command = std::string(PIPEGRID_RAW_BENCH) + " " + args + " >" + dir + "/out 2>" + dir + "/err";
  const int status = std::system(command.c_str());
  test_support::CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = test_support::read_file(dir + "/out");
  result.err = test_support::read_file(dir + "/err");
  std::filesystem::remove_all(dir);
  return result;
}

TEST(RawSimgrid1f1b, TakesTheClosedFormOnAnIdealNetwork) {
  // TP 2 × PP 4 × DP 2 on 16 GPUs of 1 Tflop/s behind a 1 PB/s non-blocking switch without latency:
  // 1F1B's step is (m + p − 1)(f + b) = 11 × 3 ms (Narayanan et al. 2021, §2.2); a kilobyte per
  // boundary adds 1e-12 s per hop. Execs: every GPU computes m forwards and m backwards; comms: each of
  // the 4 pipelines sends m activations and m gradients over each of its p − 1 boundaries.
  const auto r = run_raw_bench("--platform " PIPEGRID_TEST_DATA "/platforms/ideal-16gpu.xml --schedule 1f1b "
                               "--tp 2 --pp 4 --dp 2 --microbatches 8 --time-f 0.001 --time-b 0.002 --time-w 0 "
                               "--p2p-bytes 1000 --tp-comm off --dp-comm off");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(makespan(r.out), 11 * 0.003, 1e-10) << r.out;
  EXPECT_NE(r.out.find("16 actors, 256 execs, 192 comms"), std::string::npos) << r.out;
}

TEST(RawSimgrid1f1b, AgreesWithTheExecutorWithoutCollectives) {
  // Four GPUs behind one switch, 1 GB/s ports of 1 ms: a 5 MB transfer takes 2 ms + 5 ms alone, longer
  // when a GPU sends an activation and a gradient at once over its one port. The executor (eager
  // sends, its default) and the plain loop see the same flows at the same instants.
  const std::string job = "--platform " PIPEGRID_TEST_DATA "/platforms/star-4gpu.xml --schedule 1f1b --pp 4 "
                          "--microbatches 8 --time-f 0.01 --time-b 0.02 --time-w 0 --p2p-bytes 5e6 --tp-comm off "
                          "--dp-comm off --time-optimizer 0";
  const auto raw = run_raw_bench(job);
  ASSERT_EQ(raw.exit_code, 0) << raw.err;
  const auto executor = test_support::run_pipegrid("simulate " + job + " --optimizer-sync none");
  ASSERT_EQ(executor.exit_code, 0) << executor.err;
  EXPECT_NEAR(makespan(raw.out), makespan(executor.out), 1e-9) << raw.out << executor.out;
}

TEST(RawSimgrid1f1b, RefusesAnotherSchedule) {
  const auto r = run_raw_bench("--platform " PIPEGRID_TEST_DATA "/platforms/ideal-16gpu.xml --schedule gpipe "
                               "--pp 4 --microbatches 8");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--schedule: this bench runs 1f1b only"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace pipegrid
