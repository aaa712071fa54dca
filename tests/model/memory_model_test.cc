// The memory model against Korthikanti et al. 2022's per-layer formula worked by hand and Megatron's
// bytes per parameter, and the weighted activation count against a hand-walked 1F1B.
#include <gtest/gtest.h>

#include "schedules/generators.h"
#include "schedules/memory.h"
#include "sim/model/memory_model.h"
#include "tiny_transformer.h"
#include "sim/model/presets.h"

namespace pipegrid::model {
namespace {

Transformer tiny() { return test_support::tiny_transformer(); }

TEST(MemoryModel, ActivationsPerLayerAreKorthikantisFormula) {
  // s = 4, b = 2, h = 8, a = 2, t = 1: s·b·(34h + 5·a·s) = 8 · (272 + 40) = 2496 bytes per layer; a
  // middle stage of 2 layers (p = 2 gives stages of 2 layers; stage 0 adds the dropout mask s·b·h =
  // 64, stage 1 the fp32 logits 4·s·b·V = 512).
  const Transformer m = tiny();
  const Parallelism par{1, 2, 1, 1, false, Recompute::None};
  const auto stages = stage_costs(m, par);
  EXPECT_EQ(activation_bytes(m, par, stages[0]).per_microbatch, 2 * 2496 + 64);
  EXPECT_EQ(activation_bytes(m, par, stages[1]).per_microbatch, 2 * 2496 + 512);
  // What W reads after I: s·b·h·(4 + 10/t) = 64 · 14 = 896 per layer.
  EXPECT_EQ(activation_bytes(m, par, stages[0]).kept_for_weight_gradient, 2 * 896);
  // Tensor parallel t = 2: s·b·h·(10 + 24/2) + 5·a·s²·b/2 = 64 · 22 + 320 / 2 = 1568 per layer.
  const Parallelism tp2{2, 2, 1, 1, false, Recompute::None};
  EXPECT_EQ(activation_bytes(m, tp2, stage_costs(m, tp2)[0]).per_microbatch, 2 * 1568 + 64);
  // Full recomputation keeps only each layer's input: 2·s·b·h = 128.
  const Parallelism recompute{1, 2, 1, 1, false, Recompute::Full};
  EXPECT_EQ(activation_bytes(m, recompute, stage_costs(m, recompute)[0]).per_microbatch, 2 * 128 + 64);
}

TEST(MemoryModel, EighteenBytesPerParameterOrLessWithZero) {
  // Megatron's mixed precision: bf16 weight 2 + fp32 gradient 4 + Adam's fp32 copy, m and v 12; ZeRO
  // (Rajbhandari et al. 2020, §5) shards the optimizer state (1), the gradients too (2), the weights too (3).
  EXPECT_EQ(static_memory(1000, Precision{}, 8, 0).total(), 18000);
  EXPECT_EQ(static_memory(1000, Precision{}, 8, 1).total(), 2000 + 4000 + 12000 / 8);
  EXPECT_EQ(static_memory(1000, Precision{}, 8, 2).total(), 2000 + 4000 / 8 + 12000 / 8);
  EXPECT_EQ(static_memory(1000, Precision{}, 8, 3).total(), 18000 / 8);
}

// GPT with h = 64, a = 4, s = 64, V = 256 and 2 layers, both MoE: 4 routed experts of H_e = 32 (top
// 2) and one shared expert; t = 1, p = 2, d = 4, ep 2. A stage holds one layer.
Transformer small_moe() {
  Transformer m = tiny();
  m.layers = 2;
  m.hidden = 64;
  m.heads = 4;
  m.seq = 64;
  m.vocab = 256;
  m.micro_batch = 1;
  m.moe.experts = 4;
  m.moe.top_k = 2;
  m.moe.shared_experts = 1;
  m.moe.expert_hidden = 32;
  m.moe.ep = 2;
  return m;
}

TEST(MemoryModel, RoutedExpertsAreShardedOverTheirExpertDataParallelGroup) {
  // Megatron-Core's distributed optimizer shards the dense buffer (the shared expert's too) over the
  // d·cp = 4 GPUs of the data-parallel group, the routed experts' buffer over the edp = t·cp·d/(ep·etp)
  // = 4/2 = 2 GPUs that hold the same experts. A GPU's routed experts: E/ep = 2 of 3·h·H_e = 6144
  // parameters, 12 288; the dense rest N − 12 288.
  const Transformer m = small_moe();
  const Parallelism par{1, 2, 4, 1, false, Recompute::None};
  const StageCost stage = stage_costs(m, par)[1];
  ASSERT_EQ(stage.routed_parameters, 12288);
  ASSERT_EQ(stage.expert_data_parallel, 2);
  const double dense = static_cast<double>(stage.parameters - 12288), routed = 12288;
  // The shared expert is dense: one of 6144 on every GPU, beside the attention, router and norms.
  EXPECT_GE(dense, 6144 + 4 * 64 * 64);
  const ParameterShards shards = parameter_shards(stage, par.gradient_group_size());
  EXPECT_EQ(static_memory(shards, Precision{}, 0).total(), 18 * (dense + routed));
  const StaticMemory zero1 = static_memory(shards, Precision{}, 1), zero2 = static_memory(shards, Precision{}, 2);
  EXPECT_EQ(zero1.weights, 2 * (dense + routed));
  EXPECT_EQ(zero1.gradients, 4 * (dense + routed));
  EXPECT_EQ(zero1.optimizer, 12 * (dense / 4 + routed / 2));
  EXPECT_EQ(zero2.gradients, 4 * (dense / 4 + routed / 2));
  EXPECT_EQ(zero2.optimizer, 12 * (dense / 4 + routed / 2));
  // One expert-parallel group holding every expert (ep 4, edp 1): the routed experts are not sharded.
  Transformer wide = m;
  wide.moe.ep = 4;
  const StageCost alone = stage_costs(wide, par)[1];
  ASSERT_EQ(alone.expert_data_parallel, 1);
  EXPECT_EQ(static_memory(parameter_shards(alone, 4), Precision{}, 1).optimizer,
            12 * (static_cast<double>(alone.parameters - 6144) / 4 + 6144));
}

TEST(MemoryModel, WeightedPeakWalksTheProgram) {
  // 1F1B, p = 2, m = 3, rank 0: F0 F1 B0 F2 B1 B2 — two live after F1, two after F2: peak 2 units.
  // Split backward weights: ZB-H1 on the same shape keeps 0.25 of a unit from each I to its W.
  const Schedule one_f_one_b = generate_1f1b({2, 3, 1});
  EXPECT_EQ(peak_activation_memory(one_f_one_b, {{10, 10}, {10, 10}})[0], 20);
  const Schedule zb = generate_zb_h1({2, 3, 1});
  const std::vector<double> peaks = peak_activation_memory(zb, {{1, 1}, {0.25, 0.25}});
  const std::vector<int> counted_until_w = peak_activations(zb);
  for (int r = 0; r < 2; ++r) {
    EXPECT_LE(peaks[r], counted_until_w[r]);  // freeing at I can only lower the peak
    EXPECT_GE(peaks[r], 1);
  }
}

}  // namespace
}  // namespace pipegrid::model
