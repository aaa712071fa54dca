// A slow GPU is a slower host in the platform file: edit one host's speed and rerun. The rank on that
// GPU computes longer, sets the pace, and the step grows.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "exec_support.h"
#include "sim/exec/executor.h"
#include "sim/output/summary.h"

namespace pipegrid::sim {
namespace {

using namespace pipegrid::output;

using test_support::explicit_job;
using test_support::star_gpus;

TEST(SlowGpu, HalfSpeedHostSetsThePace) {
  // ideal-16gpu.xml with gpu2 (pipeline rank 2 of a 4-rank 1F1B) at 0.5 Tf instead of 1 Tf.
  std::ifstream in(test_support::kPlatforms + "/ideal-16gpu.xml");
  std::stringstream xml;
  xml << in.rdbuf();
  const std::string path = ::testing::TempDir() + "slow-gpu-" + std::to_string(getpid()) + ".xml";
  std::ofstream(path) << std::regex_replace(xml.str(), std::regex("<host id=\"gpu2\" speed=\"1Tf\">"),
                                            "<host id=\"gpu2\" speed=\"0.5Tf\">");
  SimulationInput input = explicit_job("ideal-16gpu.xml", star_gpus(16, 8), "1f1b", {4, 8, 0}, {1, 4, 1},
                                       ActionTimes{1, 2, 1, std::nullopt}, 0);
  input.platform_file = path;
  const SimulationResult result = simulate(input);
  const auto ranks = summarize_ranks(result, input.schedule);
  EXPECT_NEAR(ranks[2].busy, 2 * 8 * 3, 1e-9);  // twice the 24 s of the others
  EXPECT_NEAR(ranks[1].busy, 8 * 3, 1e-9);
  EXPECT_EQ(find_pace(ranks, result).rank, 2);
  EXPECT_GT(result.makespan, 33 + 1e-9);  // the balanced (m + p − 1)(F + B)
}

TEST(SlowGpu, ASlowGpuInsideATensorParallelGroupIsNamed) {
  // tp 2: pipeline rank 2 is gpu4 and gpu5 (tp fastest); gpu5 at half speed computes 48 s where its
  // partner computes 24, so rank 2's busy averages 36 and the pace names gpu5 as well as rank 2.
  std::ifstream in(test_support::kPlatforms + "/ideal-16gpu.xml");
  std::stringstream xml;
  xml << in.rdbuf();
  const std::string path = ::testing::TempDir() + "slow-tp-gpu-" + std::to_string(getpid()) + ".xml";
  std::ofstream(path) << std::regex_replace(xml.str(), std::regex("<host id=\"gpu5\" speed=\"1Tf\">"),
                                            "<host id=\"gpu5\" speed=\"0.5Tf\">");
  SimulationInput input = explicit_job("ideal-16gpu.xml", star_gpus(16, 8), "1f1b", {4, 8, 0}, {2, 4, 1},
                                       ActionTimes{1, 2, 1, std::nullopt}, 0);
  input.platform_file = path;
  const SimulationResult result = simulate(input);
  const Pace pace = find_pace(summarize_ranks(result, input.schedule), result);
  EXPECT_EQ(pace.rank, 2);
  EXPECT_NEAR(pace.busy, 36, 1e-9);
  EXPECT_EQ(pace.gpu, "gpu5");
  EXPECT_NEAR(pace.gpu_busy, 48, 1e-9);
  EXPECT_EQ(pace.explanation,
            "pipeline rank 2 (stages 2) computes longest, 36 s against a mean of 27 s (33.3 % more): the other ranks "
            "wait for it; gpu5 computes longest of all GPUs, 48 s: the GPUs it works with wait for it");
}

}  // namespace
}  // namespace pipegrid::sim
