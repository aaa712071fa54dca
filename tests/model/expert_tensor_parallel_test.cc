// Mixture of experts with tensor parallelism (Megatron-Core: sequence parallelism required, the
// MoEAlltoAllTokenDispatcher on each TP GPU's s/t tokens) and expert tensor parallelism (--etp): a
// stage's per-GPU phases, parameters, TP collectives and kernels counted by hand.
#include <gtest/gtest.h>

#include <algorithm>

#include "error_of.h"
#include "sim/model/kernels.h"
#include "sim/model/layer_costs.h"
#include "sim/model/stage_cost.h"

namespace pipegrid::model {
namespace {

// Two MoE layers, h = 64, a = 4, s = 64, b = 1; 8 experts of 32, top 2.
Transformer tiny_moe(int ep, int etp, int shared = 0) {
  Transformer m;
  m.name = "tiny-moe";
  m.layers = 2;
  m.hidden = 64;
  m.heads = 4;
  m.seq = 64;
  m.vocab = 256;
  m.micro_batch = 1;
  m.moe.experts = 8;
  m.moe.top_k = 2;
  m.moe.expert_hidden = 32;
  m.moe.shared_experts = shared;
  m.moe.ep = ep;
  m.moe.etp = etp;
  return m;
}

Parallelism layout(int tp, int dp, bool sp, int cp = 1) {
  Parallelism par{tp, 1, dp, 1, false, Recompute::None};
  par.sequence_parallel = sp;
  par.cp = cp;
  return par;
}

TEST(ExpertTensorParallel, MoeWithTensorParallelismNeedsSequenceParallelism) {
  EXPECT_EQ(test_support::error_of([] { stage_costs(tiny_moe(2, 4), layout(4, 2, false)); }),
            "--tp 4: mixture-of-experts layers with --tp > 1 need --sequence-parallel (Megatron-Core refuses MoE "
            "with tensor parallelism without it)");
  EXPECT_NO_THROW(stage_costs(tiny_moe(2, 4), layout(4, 2, true)));
}

TEST(ExpertTensorParallel, AGpuRoutesItsSequenceShardAndItsExpertsSeeTheEtpGroupsReceipts) {
  // t = 4, d = 2, ep 2, etp 4: each GPU owns s/t = 16 tokens, 32 assignments; after the ETP
  // all-gather its 1/4 column slice of every local expert processes 4 × 32 = 128 on average.
  const StageCost c = stage_costs(tiny_moe(2, 4), layout(4, 2, true))[0];
  EXPECT_EQ(c.moe.tokens, 16);
  EXPECT_EQ(c.moe.etp, 4);
  EXPECT_DOUBLE_EQ(c.moe.assignments, 16 * 2 * 4);
  // One assignment through both layers' experts, a quarter of each: 2 × 2·3·64·32 / 4 FLOPs forward.
  EXPECT_DOUBLE_EQ(c.moe.routed_per_assignment.forward, 2 * 2.0 * 3 * 64 * 32 / 4);
  // The GPU's FLOPs are the micro-batch's ÷ t: its phases add up to them.
  EXPECT_DOUBLE_EQ(c.flops.forward,
                   c.moe.non_expert.forward + c.moe.assignments * c.moe.routed_per_assignment.forward);
  // Per GPU: the micro-batch's 64 tokens × 2 experts × 2 layers × 2·3·64·32 ÷ 4 GPUs of routed work.
  EXPECT_DOUBLE_EQ(c.flops.forward - c.moe.non_expert.forward, 64.0 * 2 * 2 * 2 * 3 * 64 * 32 / 4);
}

TEST(ExpertTensorParallel, WithContextParallelismAGpuRoutesItsCpAndTpShard) {
  // cp 2, t 4: 64 / (2·4) = 8 tokens, 16 assignments, 64 after the ETP all-gather; t·cp·d / (ep·etp) =
  // 4·2·1 / (2·4) = 1: no expert-data-parallel ring; with etp 1, 4.
  const StageCost c = stage_costs(tiny_moe(2, 4), layout(4, 1, true, 2))[0];
  EXPECT_EQ(c.moe.tokens, 8);
  EXPECT_DOUBLE_EQ(c.moe.assignments, 8 * 2 * 4);
  EXPECT_DOUBLE_EQ(c.flops.forward - c.moe.non_expert.forward, 64.0 * 2 * 2 * 2 * 3 * 64 * 32 / (4 * 2));
  EXPECT_EQ(c.expert_dp_gradient_bytes, 0);
  EXPECT_GT(stage_costs(tiny_moe(2, 1), layout(4, 1, true, 2))[0].expert_dp_gradient_bytes, 0);
}

TEST(ExpertTensorParallel, ExpertParametersAreSplitOverEtpTheRestOverTp) {
  // A routed expert: 3·64·32 = 6144 parameters; a GPU holds E/ep = 4 of them per layer, 2 layers.
  const Transformer m4 = tiny_moe(2, 4), m1 = tiny_moe(2, 1);
  const StageCost etp4 = stage_costs(m4, layout(4, 2, true))[0];
  const StageCost etp1 = stage_costs(m1, layout(4, 2, true))[0];
  const std::int64_t routed = 2 * 4 * 6144;
  // The rest (attention with the router, norms, the embeddings, which the one stage's LM head shares)
  // ÷ t, rounded up.
  const std::int64_t rest = 2 * attention_parameters(m4) + word_embedding_parameters(m4) +
                            position_embedding_parameters(m4);
  EXPECT_EQ(etp4.parameters, (rest + 3) / 4 + routed / 4);
  EXPECT_EQ(etp1.parameters, (rest + 3) / 4 + routed);
  // The dense gradients go round the data-parallel ring, the routed ones round the expert-data-
  // parallel ring: t·d / (ep·etp) = 8 / 8 = 1 GPU with etp 4 (nothing to reduce), 4 with etp 1.
  EXPECT_EQ(etp4.dp_gradient_bytes, (rest + 3) / 4 * 4);
  EXPECT_EQ(etp4.expert_dp_gradient_bytes, 0);
  EXPECT_EQ(etp1.expert_dp_gradient_bytes, routed * 4);
}

TEST(ExpertTensorParallel, AnMoeLayerHasTheAttentionsSequenceParallelPairAndTheSharedExperts) {
  // One stage (embedding and LM head). Without shared experts a layer has one column-row pair (QKV,
  // projection); with one, the SharedExpertMLP's too. Forward: an all-gather per pair + the LM
  // head's, a reduce-scatter per pair + the embedding's; backward: 2 all-gathers and 1 reduce-scatter
  // per pair, the embedding's gradient all-gathered, the LM head's input gathered again and its
  // gradient reduce-scattered.
  const StageCost routed_only = stage_costs(tiny_moe(2, 4), layout(4, 2, true))[0];
  EXPECT_EQ(routed_only.tp_all_gathers_per_forward, 2 + 1);
  EXPECT_EQ(routed_only.tp_reduce_scatters_per_forward, 2 + 1);
  EXPECT_EQ(routed_only.tp_all_gathers_per_backward, 4 + 2);
  EXPECT_EQ(routed_only.tp_reduce_scatters_per_backward, 2 + 1);
  EXPECT_EQ(routed_only.tp_native_pairs_backward, 2 + 1);  // the QKV GEMMs' and the LM head's
  const StageCost with_shared = stage_costs(tiny_moe(2, 4, 1), layout(4, 2, true))[0];
  EXPECT_EQ(with_shared.tp_all_gathers_per_forward, 4 + 1);
  EXPECT_EQ(with_shared.tp_reduce_scatters_per_backward, 4 + 1);
  // A dense first layer keeps its two pairs.
  Transformer dense_first = tiny_moe(2, 4);
  dense_first.moe.first_dense_layers = 1;
  EXPECT_EQ(stage_costs(dense_first, layout(4, 2, true))[0].tp_all_gathers_per_forward, 2 + 1 + 1);
}

TEST(ExpertTensorParallel, TheExpertsGemmsAreAColumnSliceOverTheGatheredTokens) {
  const Transformer m = tiny_moe(2, 4, 1);
  const Parallelism par = layout(4, 2, true);
  const StageCost c = stage_costs(m, par)[0];
  const std::vector<Kernel> kernels = stage_kernels(m, par, c, {});
  const auto find = [&](std::string_view name, Part part) {
    return std::find_if(kernels.begin(), kernels.end(),
                        [&](const Kernel& k) { return k.name == name && k.part == part; });
  };
  // Routed: 4 local experts, 128 assignments a GPU → 32 rows each; gate and up 2·32/4 columns.
  const auto routed = find("expert_gate_up", Part::Routed);
  ASSERT_NE(routed, kernels.end());
  EXPECT_EQ(routed->gemm.m, 32);
  EXPECT_EQ(routed->gemm.n, 2 * 32 / 4);
  EXPECT_EQ(routed->gemm.batch, 4);
  // Shared: the gathered 64 tokens, its width ÷ t.
  const auto shared = find("expert_gate_up", Part::Shared);
  ASSERT_NE(shared, kernels.end());
  EXPECT_EQ(shared->gemm.m, 64);
  EXPECT_EQ(shared->gemm.n, 2 * 32 / 4);
  // The router on the GPU's own 16 tokens.
  const auto router = find("router", Part::Dense);
  ASSERT_NE(router, kernels.end());
  EXPECT_EQ(router->gemm.m, 16);
  // The ETP group's collectives are launched once per MoE layer and pass.
  for (const std::string_view name : {"etp_all_gather", "etp_reduce_scatter"}) {
    const auto n = std::count_if(kernels.begin(), kernels.end(), [&](const Kernel& k) { return k.name == name; });
    EXPECT_EQ(n, 2) << name;
    EXPECT_EQ(find(name, Part::Dense)->count, 2) << name;
  }
}

TEST(ExpertTensorParallel, EtpMustDivideTheExpertWidth) {
  EXPECT_EQ(test_support::error_of([] { stage_costs(tiny_moe(2, 3), layout(1, 6, false)); }),
            "--etp 3: must divide --expert-hidden 32 (each GPU holds a column slice of every expert it has; --etp is "
            "--tp unless given)");
}

}  // namespace
}  // namespace pipegrid::model
