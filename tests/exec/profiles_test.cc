// Host speed profiles (speed_file): compute runs as execs that SimGrid slows with the host. A
// constant profile must change nothing (the same numbers the wait-based tests compute by hand, to
// 1e-9); a step down mid-op stretches what is left of the op.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <unistd.h>

#include "exec_support.h"
#include "sim/exec/executor.h"
#include "schedules/schedule_csv.h"

namespace pipegrid::sim {
namespace {

using test_support::explicit_job;
using test_support::set_gradients;
using test_support::star_gpus;

// A copy of the test platform in a folder of its own where every host in `profiles` gets a
// speed_file of the given text (SimGrid wants one file per host). Marks those hosts in `input`.
void give_speed_profiles(SimulationInput& input, const std::map<std::string, std::string>& profiles) {
  std::ifstream in(input.platform_file);
  std::stringstream xml;
  xml << in.rdbuf();
  std::string text = xml.str();
  const std::string dir = ::testing::TempDir() + "speed-" + std::to_string(getpid()) + "/";
  std::filesystem::create_directories(dir);
  for (const auto& [host, profile] : profiles) {
    std::ofstream(dir + host + "-speed.txt") << profile;
    text = std::regex_replace(text, std::regex("<host id=\"" + host + "\" "),
                              "<host id=\"" + host + "\" speed_file=\"" + host + "-speed.txt\" ");
    input.speed_profiled_hosts.push_back(host);
  }
  input.platform_file = dir + "platform.xml";
  std::ofstream(input.platform_file) << text;
}

std::map<std::string, std::string> constant(int gpus) {
  std::map<std::string, std::string> profiles;
  for (int g = 0; g < gpus; ++g) profiles["gpu" + std::to_string(g)] = "0 1\n";
  return profiles;
}

TEST(SpeedProfile, AGpuAtHalfSpeedFromMidStepStretchesWhatIsLeft) {
  // 1F1B, p = 2, m = 2, F = 1 s, B = 2 s, free transfers (ideal-16gpu.xml). Unperturbed: rank 1 runs
  // F0 [1, 2], B0 [2, 4], F1 [4, 5], B1 [5, 7]; rank 0 ends with B1 [7, 9].
  // gpu1 at 0.5 from t = 3: B0 has 1 s of its 2 done at 3, the other second of work takes 2 s: B0
  // ends at 5; F1 takes 2 s [5, 7], B1 4 s [7, 11]; rank 0's B0 runs [5, 7] and its B1 [11, 13].
  // Makespan 13 s; rank 1 busy F0 1 + B0 3 + F1 2 + B1 4 = 10 s.
  SimulationInput input = explicit_job("ideal-16gpu.xml", star_gpus(16, 8), "1f1b", {2, 2, 0}, {1, 2, 1},
                                       ActionTimes{1, 2, 1, std::nullopt}, 0);
  give_speed_profiles(input, {{"gpu1", "0 1\n3 0.5\n"}});
  const SimulationResult result = simulate(input);
  ASSERT_FALSE(result.deadlock) << result.deadlock->line;
  EXPECT_NEAR(result.makespan, 13, 1e-9);
  EXPECT_NEAR(result.gpus[1].account.busy, 10, 1e-9);
  EXPECT_NEAR(result.gpus[0].account.busy, 6, 1e-9);  // gpu0 keeps its speed: 2 F + 2 B
}

TEST(SpeedProfile, AConstantProfileKeepsTheGradientOverlapHandComputation) {
  // grad_overlap_test.cc's BucketsStartAsTheBackwardProducesThem (9.508 s by hand, buckets launched
  // part-way through a backward), with every host's compute as execs at a constant speed.
  SimulationInput input = explicit_job("star-4gpu.xml", star_gpus(4, 4), "1f1b", {2, 2, 0}, {1, 2, 2},
                                       ActionTimes{1, 2, 1, std::nullopt}, 0);
  set_gradients(input, 1e9, 0.5e9);
  input.options.grad_overlap = true;
  input.options.grad_bucket_bytes = 0.5e9;
  give_speed_profiles(input, constant(4));
  const SimulationResult r = simulate(input);
  ASSERT_FALSE(r.deadlock) << r.deadlock->line;
  EXPECT_NEAR(r.makespan, 9.508, 1e-9);
  for (int gpu : {0, 1}) EXPECT_NEAR(r.gpus[gpu].account.dp_exposed, 0.504, 1e-9) << gpu;
  for (int gpu : {2, 3}) EXPECT_NEAR(r.gpus[gpu].account.finish, 8.006, 1e-9) << gpu;
}

TEST(SpeedProfile, AConstantProfileKeepsTheInterleavedBalancedStep) {
  // Interleaved, p = 4, v = 2, m = 8, F = 0.5 s and B = 1 s per virtual stage (1 s and 2 s per rank's
  // whole model part), free transfers. Each rank computes m·v·(F + B) = 24 s; the bubble is
  // (p − 1)(t_f + t_b) / v = 3 · 3 / 2 = 4.5 s (Narayanan et al., SC'21, §2.2.2): 28.5 s.
  SimulationInput input = explicit_job("ideal-16gpu.xml", star_gpus(16, 8), "interleaved", {4, 8, 2}, {1, 4, 1},
                                       ActionTimes{0.5, 1, 0.5, std::nullopt}, 0);
  give_speed_profiles(input, constant(4));
  const SimulationResult r = simulate(input);
  ASSERT_FALSE(r.deadlock) << r.deadlock->line;
  EXPECT_NEAR(r.makespan, 8 * 2 * 1.5 + 3 * 3.0 / 2, 1e-9);
  for (int gpu = 0; gpu < 4; ++gpu) EXPECT_NEAR(r.gpus[gpu].account.busy, 8 * 2 * 1.5, 1e-9);
}

TEST(SpeedProfile, AConstantProfileKeepsTheOverlappedPairSlowedBySmShare) {
  // moe_test.cc's AShortAllToAllHidesUnderThePairsCompute: an overlapped F&B pair whose compute runs
  // 1 / (1 − 0.2) slower (--comm-sm-fraction 0.2) under its all-to-alls, now as execs on hosts with a
  // constant speed profile: the same makespan to 1e-9.
  constexpr double kLatency = 2e-3, kBandwidth = 1e9, kAttention = 0.4, kExperts = 0.2;
  MoeWork work;
  work.moe_layers = 1;
  work.tokens = 1000;
  work.dispatch_bytes = work.combine_bytes = 1e3;
  for (int k = 0; k < 3; ++k) {
    work.non_expert[k] = kAttention * 1e12;
    work.routed[k] = kExperts * 1e12 / 1000;  // per assignment received: 1000 (T = 1000, top-1, uniform)
  }
  StageWork stage;
  stage.moe = work;
  ExecOptions options;
  options.comm_sm_fraction = 0.2;
  std::istringstream csv("0F0,(0F1;0B0),0B1\n");
  SimulationInput input = test_support::job_on(
      test_support::kPlatforms + "/star-4gpu.xml", star_gpus(4, 4),
      read_schedule_csv(csv, "test.csv", CsvPlacement::Inferred).schedule, {1, 1, 4},
      JobCosts({stage}, 0, ExpertRouting{4, 1, 0, {0.25, 0.25, 0.25, 0.25}}), options);
  give_speed_profiles(input, constant(4));
  const SimulationResult result = simulate(input);
  ASSERT_FALSE(result.deadlock) << result.deadlock->line;
  const double a2a = 3 * 250 * 1e3 / kBandwidth + kLatency;
  const double alone_f = kAttention + kExperts + 2 * a2a, alone_b = 2 * (kExperts + kAttention) + 2 * a2a;
  const double pair = (kAttention + kExperts + 2 * kExperts + 2 * kAttention) / 0.8;
  EXPECT_NEAR(result.makespan, alone_f + pair + alone_b, 1e-9);
  for (const GpuReport& gpu : result.gpus) EXPECT_NEAR(gpu.account.a2a_hidden, 4 * a2a, 1e-9);
}

}  // namespace
}  // namespace pipegrid::sim
