// A plan killed (SIGKILL: no handler, no last words) while its contended simulations run: the runs end
// with it, the simulations it finished are kept, and the same plan run again simulates only the rest
// and writes the plan.csv of a plan never interrupted, byte for byte.
#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "command_runner.h"
#include "processes.h"
#include "temp_files.h"

extern char** environ;

namespace pipegrid {
namespace {

using test_support::eventually;
using test_support::read_file;
using test_support::run_pipegrid;

// Four simulations of a few tenths of a second each (1024 micro-batches on 8 GPUs), one at a time: a
// kill once the first has finished finds the others not done.
constexpr int kSimulated = 4;
const std::string kPlan =
    "plan --model gpt-1.7b --preset dgx-a100 --nodes 1 --global-batch 8192 --top 4 --jobs 1 "
    "--space schedule=1f1b --space recompute=none --space micro-batch=1 --space tp=1,2";

pid_t start_plan(const std::string& out) {
  const std::string command = "cd " PIPEGRID_SOURCE_DIR " && exec " PIPEGRID_BINARY " " + kPlan + " --out " + out +
                              " >/dev/null 2>" + out + ".err";
  const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
  pid_t pid = 0;
  EXPECT_EQ(posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ), 0);
  return pid;
}

TEST(PlanResume, AKilledPlanKeepsItsFinishedSimulationsAndARerunFinishesTheSame) {
  const std::string dir = test_support::fresh_dir("plan-resume");
  const std::string reference = dir + "/reference", out = dir + "/killed";
  const auto whole = run_pipegrid(kPlan + " --out " + reference);
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  ASSERT_EQ(test_support::csv_data_rows(reference + "/simulate/results.csv"), static_cast<std::size_t>(kSimulated));

  // This process adopts the plan's runs once it is gone, so that it sees each of them end.
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  const pid_t plan = start_plan(out);
  const bool one_done = eventually([&] { return test_support::csv_data_rows(out + "/simulate/results.csv") >= 1; });
  ASSERT_TRUE(one_done) << read_file(out + ".err");
  kill(plan, SIGKILL);
  int status = 0;
  waitpid(plan, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "the plan had ended on its own";
  std::vector<int> codes;
  const bool none_left = test_support::reap_every_child(codes);
  EXPECT_TRUE(none_left) << "a run of the killed plan is still running";
  const std::size_t finished = test_support::csv_data_rows(out + "/simulate/results.csv");
  ASSERT_GE(finished, 1u);
  EXPECT_LT(finished, static_cast<std::size_t>(kSimulated)) << "the plan had simulated everything";
  EXPECT_FALSE(std::filesystem::exists(out + "/plan.csv")) << "a killed plan wrote its result";

  const auto resumed = run_pipegrid(kPlan + " --out " + out);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("plan: simulated 4 layouts (" + std::to_string(finished) + " already done"),
            std::string::npos)
      << resumed.err;
  EXPECT_EQ(read_file(out + "/plan.csv"), read_file(reference + "/plan.csv"));
  EXPECT_EQ(read_file(out + "/best.toml"), read_file(reference + "/best.toml"));
}

}  // namespace
}  // namespace pipegrid
