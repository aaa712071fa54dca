// Mixture-of-experts routing and costs: expert shares under each routing by hand, the cap a top-k
// routing puts on one expert, errors, and DeepSeek-V3's per-stage phases adding up to its layers.
#include <gtest/gtest.h>

#include <numeric>

#include "sim/model/layer_costs.h"
#include "sim/model/moe.h"
#include "sim/model/presets.h"
#include "sim/model/stage_cost.h"
#include "error_of.h"

namespace pipegrid::model {
namespace {

MoeSpec spec(int experts, int top_k, int ep, const std::string& routing) {
  MoeSpec moe;
  moe.experts = experts;
  moe.top_k = top_k;
  moe.expert_hidden = 8;
  moe.ep = ep;
  moe.routing = parse_routing(routing);
  return moe;
}

std::string routing_error(const std::string& routing) {
  return test_support::error_of([&] { parse_routing(routing); });
}

TEST(MoeRouting, UniformSharesAreOneOverE) {
  for (double share : expert_shares(spec(8, 2, 4, "uniform"))) EXPECT_DOUBLE_EQ(share, 1.0 / 8);
  for (double share : member_shares(spec(8, 2, 4, "uniform"))) EXPECT_DOUBLE_EQ(share, 2.0 / 8);
}

TEST(MoeRouting, ZipfWeightsOneOverRankToTheS) {
  // s = 1 over 4 experts, top-1: weights 1, 1/2, 1/3, 1/4, total 25/12.
  const auto shares = expert_shares(spec(4, 1, 1, "zipf:1"));
  EXPECT_NEAR(shares[0], 12.0 / 25, 1e-12);
  EXPECT_NEAR(shares[3], 3.0 / 25, 1e-12);
}

TEST(MoeRouting, NoExpertTakesMoreThanOneKth) {
  // A token picks k distinct experts: with k = 2 of 4 experts, a very hot expert 0 saturates at 1/2
  // and the others share the rest in proportion to their weights (1/2^5, 1/3^5, 1/4^5).
  const auto shares = expert_shares(spec(4, 2, 1, "zipf:5"));
  EXPECT_NEAR(shares[0], 0.5, 1e-12);
  EXPECT_NEAR(std::accumulate(shares.begin(), shares.end(), 0.0), 1, 1e-12);
  const double rest = 1 / 32.0 + 1 / 243.0 + 1 / 1024.0;
  EXPECT_NEAR(shares[1], 0.5 * (1 / 32.0) / rest, 1e-12);
}

TEST(MoeRouting, BadRoutingGetsOneLine) {
  EXPECT_EQ(routing_error("zipf:-1"), "--routing zipf:-1: the Zipf skew must be a number >= 0");
  EXPECT_EQ(routing_error("zipf:x"), "--routing zipf:x: the Zipf skew must be a number >= 0");
  EXPECT_EQ(routing_error("hot"), "--routing hot: expected uniform, zipf:S or file:PATH");
  EXPECT_EQ(routing_error("file:/nonexistent"), "--routing file:/nonexistent: cannot open /nonexistent");
  // A device would be read for ever.
  EXPECT_EQ(routing_error("file:/dev/zero"), "--routing file:/dev/zero: /dev/zero is not a regular file or a pipe");
}

TEST(MoeCosts, DeepSeekV3PhasesAddUpToItsLayers) {
  // PP 16 with 61 layers: stage 0 gets 3 (all dense), stages 1-13 get 4, 14 and 15 get 3 (MoE).
  Transformer m = transformer_preset("deepseek-v3");
  m.moe.ep = 64;
  const Parallelism par{1, 16, 128, 1, false, Recompute::None, true};
  const auto stages = stage_costs(m, par);
  EXPECT_EQ(stages[0].moe.moe_layers, 0);
  EXPECT_EQ(stages[1].moe.moe_layers, 4);
  EXPECT_EQ(stages[15].moe.moe_layers, 3);
  int layers = 0;
  for (const auto& s : stages) layers += s.layers;
  EXPECT_EQ(layers, 61);
  // A routed expert: 3 matmuls of 7168 × 2048, 2 FLOPs each per token: 88 MFLOP forward per layer.
  EXPECT_DOUBLE_EQ(stages[1].moe.routed_per_assignment.forward, 4 * 2.0 * 3 * 7168 * 2048);
  // Dispatch in FP8 (1 byte per element), combine in bf16: h elements per MoE layer.
  EXPECT_EQ(stages[1].moe.dispatch_bytes_per_assignment, 4 * 7168);
  EXPECT_EQ(stages[1].moe.combine_bytes_per_assignment, 4 * 7168 * 2);
  // The average GPU computes its own tokens' k assignments' worth of routed experts.
  const double tokens = 4096;
  EXPECT_DOUBLE_EQ(stages[1].flops.forward, stages[1].moe.non_expert.forward + stages[1].moe.shared_experts.forward +
                                                tokens * 8 * stages[1].moe.routed_per_assignment.forward);
}

}  // namespace
}  // namespace pipegrid::model
