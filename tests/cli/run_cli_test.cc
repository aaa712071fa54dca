// `pipegrid run FILE.toml` as a user runs it: the file's keys as flags, flags after it overriding them,
// and --plot drawing the run's Gantt chart.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "command_runner.h"

namespace pipegrid {
namespace {

namespace fs = std::filesystem;
using test_support::read_file;
using test_support::run_pipegrid;

// Experiments name their platform relative to the repository root, where these commands run.
const std::string kFromSource = std::string("--help >/dev/null; cd ") + PIPEGRID_SOURCE_DIR + " && " + PIPEGRID_BINARY;
const std::string kQuickstart = "experiments/quickstart/experiment.toml";

std::string fresh_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "pipegrid-run-" + name + "-" + std::to_string(getpid());
  fs::remove_all(dir);
  return dir;
}

TEST(RunCli, AnExperimentIsTheSimulateCommandItSpellsOut) {
  // experiments/quickstart/experiment.toml, written out as flags, with one of them overridden after it.
  const std::string flags =
      " --platform platforms/dgx-a100-2node.xml --tp 2 --pp 4 --dp 2 --microbatches 16 --layers 16 --hidden 8192"
      " --heads 64 --seq 2048 --vocab 51200 --schedule 1f1b --p2p async --steps 3 --trace off"
      " --format json";
  const auto simulated = run_pipegrid(kFromSource + " simulate" + flags + " --microbatches 8");
  const auto ran = run_pipegrid(kFromSource + " run " + kQuickstart + " --trace off --format json --microbatches 8");
  ASSERT_EQ(simulated.exit_code, 0) << simulated.err;
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_EQ(ran.out, simulated.out);
  EXPECT_EQ(nlohmann::json::parse(ran.out)["inputs"]["microbatches"], 8);
}

TEST(RunCli, PlotDrawsTheGanttChartOfTheTrace) {
  const std::string out = fresh_dir("plot");
  const auto r = run_pipegrid(kFromSource + " run " + kQuickstart + " --microbatches 8 --out " + out + " --plot");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(fs::exists(out + "/trace.csv"));
  EXPECT_EQ(read_file(out + "/gantt.png").substr(0, 8), "\x89PNG\r\n\x1a\n");
}

TEST(RunCli, PlotWithoutAnOutputDirectoryIsRefusedBeforeRunning) {
  const auto r = run_pipegrid(kFromSource + " run " + kQuickstart + " --plot");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "pipegrid: error: --plot: needs an output directory ([output] out or --out)\n");
  EXPECT_EQ(r.out, "");
}

}  // namespace
}  // namespace pipegrid
