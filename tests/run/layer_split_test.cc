// --layer-split: the balanced split against hand computations (the linear partition of known layer
// times), and as a user runs it — the heavy LM-head and embedding stages get fewer layers and the
// step gets shorter than the even split's; a bad split is refused in one line.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "command_runner.h"
#include "sim/run/layer_split.h"

namespace pipegrid {
namespace {

using test_support::run_pipegrid;

TEST(BalancedLayers, TheHeavyLastStageGetsFewerLayers) {
  // 30 layers of 1 s, the last one carrying a head worth 2 more: 32 s over 4 stages is 8 s each,
  // which only 8, 8, 8 and 6 layers give.
  std::vector<double> seconds(30, 1.0);
  seconds.back() = 3;
  EXPECT_EQ(run::balanced_layers(seconds, 4), (std::vector<int>{8, 8, 8, 6}));
  // The same with the embedding's 2 s on the first layer.
  seconds.back() = 1;
  seconds.front() = 3;
  EXPECT_EQ(run::balanced_layers(seconds, 4), (std::vector<int>{6, 8, 8, 8}));
}

TEST(BalancedLayers, TheSlowestStageIsAsFastAsItCanBe) {
  // 1, 2, …, 10 s in 3 groups: 55 s, so no group is under 18.3 s; 1…6 (21), 7·8 (15), 9·10 (19)
  // has its slowest at 21, and no split does better: the first group must end at 6 (1…5 is 15,
  // leaving 40 for two groups, one of them ≥ 21) or later.
  std::vector<double> seconds;
  for (int i = 1; i <= 10; ++i) seconds.push_back(i);
  const std::vector<int> split = run::balanced_layers(seconds, 3);
  ASSERT_EQ(split.size(), 3u);
  double slowest = 0;
  int layer = 0;
  for (int count : split) {
    double sum = 0;
    for (int i = 0; i < count; ++i) sum += seconds[layer++];
    slowest = std::max(slowest, sum);
  }
  EXPECT_EQ(layer, 10);
  EXPECT_EQ(slowest, 21);
  // One group a layer, and every layer in one group.
  EXPECT_EQ(run::balanced_layers(seconds, 10), std::vector<int>(10, 1));
  EXPECT_EQ(run::balanced_layers(seconds, 1), std::vector<int>{10});
}

const std::string kJob =
    "simulate --model gpt-1.7b --preset dgx-a100 --nodes 1 --tp 2 --pp 4 --dp 1 --microbatches 16 "
    "--schedule 1f1b --trace off --format json";

nlohmann::json summary_of(const std::string& args) {
  const auto r = run_pipegrid(kJob + " " + args);
  EXPECT_EQ(r.exit_code, 0) << args << ": " << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

TEST(LayerSplitCli, BalancedTakesTheHeadsWorthOfLayersOffTheLastStage) {
  // 30 layers on 4 stages with a vocabulary of 120 000, whose LM head and loss cost k ≈ 2.3 layers
  // (the uneven split's own stage times say how many: its last stage less its 7 layers, over one
  // layer, a middle stage's eighth). 30 + k over 4 stages is 8.1 to 8.2 layers' worth each: 8, 8, 8
  // and 6 give the slowest stage 6 + k, and any other split puts 9 layers on some stage.
  const std::string job = "--layers 30 --vocab 120000";
  const nlohmann::json uneven = summary_of(job + " --uneven-layers");
  const nlohmann::json balanced = summary_of(job + " --layer-split balanced");
  ASSERT_FALSE(uneven.is_null());
  ASSERT_FALSE(balanced.is_null());
  const nlohmann::json& u = uneven["inputs"]["model"]["layer_split"];
  EXPECT_EQ(u["rule"], "even");
  EXPECT_EQ(u["layers"], (std::vector<int>{7, 8, 8, 7}));
  EXPECT_EQ(u["slowest_stage"], 3);
  const std::vector<double> t = u["stage_seconds"];
  const double layer = t[1] / 8, k = t[3] / layer - 7;
  ASSERT_GT(k, 1.5);
  ASSERT_LT(k, 2.9);
  const nlohmann::json& b = balanced["inputs"]["model"]["layer_split"];
  EXPECT_EQ(b["rule"], "balanced");
  EXPECT_EQ(b["layers"], (std::vector<int>{8, 8, 8, 6}));
  EXPECT_LT(balanced["makespan"].get<double>(), uneven["makespan"].get<double>());
}

TEST(LayerSplitCli, AGivenSplitIsRunAndABadOneRefused) {
  const nlohmann::json given = summary_of("--layers 32 --layer-split 7,9,9,7");
  ASSERT_FALSE(given.is_null());
  EXPECT_EQ(given["inputs"]["model"]["layer_split"]["layers"], (std::vector<int>{7, 9, 9, 7}));
  EXPECT_EQ(given["inputs"]["model"]["layer_split"]["slowest_stage"], 1);
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {"--layer-split 8,8,8", "--layer-split: 3 stages given, the job has 4 (--pp 4 × --chunks 1)"},
           {"--layer-split 8,8,8,9", "--layer-split: the stages' layers add up to 33, the model has 32 (--layers)"},
           {"--layer-split 8,0,8,16", "stage 1: 0 layers; each stage needs 1 to 100000"},
           {"--layer-split uneven", "expected even, balanced or N1,N2,…, got 'uneven'"},
           {"--layer-split balanced --uneven-layers", "--uneven-layers with --layer-split balanced"}}) {
    const auto r = run_pipegrid(kJob + " --layers 32 " + args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
  }
}

}  // namespace
}  // namespace pipegrid
