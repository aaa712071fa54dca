// Per-stage costs of the Megatron 1T layout (docs/reference.md) and of small layouts, against the
// paper's message sizes and all-reduce counts and against the whole-model counts.
#include <gtest/gtest.h>

#include "sim/model/presets.h"
#include "sim/model/stage_cost.h"

namespace pipegrid::model {
namespace {

// The 3072-GPU run of docs/reference.md: TP 8 × PP 64 × DP 6, scatter/gather, full recomputation, and
// `chunks` virtual stages per rank (its 128 layers allow v = 1 or 2: 2 or 1 layers a stage).
Parallelism megatron_1t(int chunks = 1) {
  Parallelism par;
  par.tp = 8;
  par.pp = 64;
  par.dp = 6;
  par.chunks = chunks;
  par.scatter_gather = true;
  par.recompute = Recompute::Full;
  return par;
}

TEST(StageCost, P2pMessageIsBshBf16ElementsAndATthWithScatterGather) {
  // docs/reference.md: b·s·h elements of 2 bytes per micro-batch per boundary; 1/t of it per TP rank with
  // scatter/gather. gpt-1t, b = 1: 2048 · 25600 · 2 = 104 857 600 bytes.
  const Transformer m = transformer_preset("gpt-1t");
  Parallelism par = megatron_1t();
  par.scatter_gather = false;
  const auto plain = stage_costs(m, par);
  ASSERT_EQ(plain.size(), 64u);
  EXPECT_EQ(plain[0].send_forward_bytes, 104'857'600);
  EXPECT_EQ(plain[0].send_backward_bytes, 0);  // nothing before stage 0
  EXPECT_EQ(plain[30].send_forward_bytes, 104'857'600);
  EXPECT_EQ(plain[30].send_backward_bytes, 104'857'600);
  EXPECT_EQ(plain[63].send_forward_bytes, 0);  // nothing after the last stage
  EXPECT_EQ(plain[63].send_backward_bytes, 104'857'600);

  par.scatter_gather = true;
  const auto scattered = stage_costs(m, par);
  EXPECT_EQ(scattered[30].send_forward_bytes, 104'857'600 / 8);
  EXPECT_EQ(scattered[30].send_backward_bytes, 13'107'200);
  // Scatter/gather splits the message, not the all-reduces: each still sums all b·s·h elements.
  EXPECT_EQ(scattered[30].tp_allreduce_bytes, 104'857'600);

  Transformer batched = m;
  batched.micro_batch = 4;
  EXPECT_EQ(stage_costs(batched, par)[1].send_forward_bytes, 4 * 13'107'200);
}

TEST(StageCost, LayersEmbeddingAndHeadLandOnTheirStages) {
  const auto costs = stage_costs(transformer_preset("gpt-1t"), megatron_1t(2));
  ASSERT_EQ(costs.size(), 128u);  // S = p·v
  for (const StageCost& c : costs) {
    EXPECT_EQ(c.layers, 1);
    EXPECT_EQ(c.has_embedding, c.stage == 0);
    EXPECT_EQ(c.has_lm_head, c.stage == 127);
  }
  // A middle stage's forward is one layer's on 1/8 of the GPUs' work: (24bsh² + 4bs²h)/t.
  const double b = 1, s = 2048, h = 25600;
  EXPECT_EQ(costs[5].flops.forward, (24 * b * s * h * h + 4 * b * s * s * h) / 8);
  // The last stage adds the LM head's 2bshV forward; the first stage's embedding lookup adds nothing.
  EXPECT_EQ(costs[127].flops.forward - costs[5].flops.forward, 2 * b * s * h * 51200 / 8);
  EXPECT_EQ(costs[0].flops.forward, costs[5].flops.forward);
}

TEST(StageCost, TensorParallelAllReducesPerAction) {
  // Two per layer in F and two in B (docs/reference.md), two more in B when the recomputed forward runs,
  // one more where the vocabulary-parallel embedding and LM head sit. gpt-1t, p = 64: 2 layers a stage.
  const Transformer m = transformer_preset("gpt-1t");
  Parallelism par = megatron_1t();
  par.recompute = Recompute::None;
  auto costs = stage_costs(m, par);
  EXPECT_EQ(costs[0].tp_allreduces_per_forward, 4 + 1);
  EXPECT_EQ(costs[0].tp_allreduces_per_backward, 4);
  EXPECT_EQ(costs[1].tp_allreduces_per_forward, 4);
  EXPECT_EQ(costs[1].tp_allreduces_per_backward, 4);
  EXPECT_EQ(costs[63].tp_allreduces_per_forward, 4);
  EXPECT_EQ(costs[63].tp_allreduces_per_backward, 4 + 1);

  par.recompute = Recompute::Full;
  costs = stage_costs(m, par);
  EXPECT_EQ(costs[1].tp_allreduces_per_forward, 4);
  EXPECT_EQ(costs[1].tp_allreduces_per_backward, 8);
  EXPECT_EQ(costs[63].tp_allreduces_per_backward, 8 + 1);

  par.tp = 1;  // no tensor parallelism: no all-reduce at all
  for (const StageCost& c : stage_costs(m, par)) {
    EXPECT_EQ(c.tp_allreduces_per_forward + c.tp_allreduces_per_backward, 0);
    EXPECT_EQ(c.tp_allreduce_bytes, 0);
  }
}

TEST(StageCost, ParametersOverAllStagesAndGpusAreTheModelsPlusTheHeadsCopy) {
  for (const char* name : {"gpt-1.7b", "gpt-175b", "gpt-1t"})
    for (int tp : {1, 8})
      for (int pp : {1, 4})
        for (bool tied : {true, false}) {
          Transformer m = transformer_preset(name);
          m.tied_embeddings = tied;
          Parallelism par;
          par.tp = tp;
          par.pp = pp;
          std::int64_t sum = 0;
          for (const StageCost& c : stage_costs(m, par)) sum += c.parameters * tp;
          // Tied and split over several stages, the last stage keeps a copy of the V·h word embeddings.
          const std::int64_t copy = tied && pp > 1 ? word_embedding_parameters(m) : 0;
          EXPECT_EQ(sum, parameter_count(m) + copy) << name << " tp " << tp << " pp " << pp << " tied " << tied;
        }
}

TEST(StageCost, GradientCollectivesPerIteration) {
  const Transformer m = transformer_preset("gpt-1t");
  const auto costs = stage_costs(m, megatron_1t());
  // DP: every GPU all-reduces its fp32 gradients, parameters × 4 bytes. A middle stage holds 2 layers:
  // 2·(12h² + 13h)/8 parameters per GPU.
  const std::int64_t h = 25600;
  EXPECT_EQ(costs[1].parameters, 2 * (12 * h * h + 13 * h) / 8);
  EXPECT_EQ(costs[1].dp_gradient_bytes, costs[1].parameters * 4);
  EXPECT_EQ(costs[0].dp_gradient_bytes, costs[0].parameters * 4);
  // Tied embeddings: stages 0 and 63 all-reduce the word embeddings' gradient, V·h/t fp32 values.
  EXPECT_EQ(costs[0].embedding_allreduce_bytes, 51200 * h / 8 * 4);
  EXPECT_EQ(costs[63].embedding_allreduce_bytes, 51200 * h / 8 * 4);
  for (int s = 1; s < 63; ++s) EXPECT_EQ(costs[static_cast<std::size_t>(s)].embedding_allreduce_bytes, 0);

  Parallelism alone = megatron_1t();
  alone.dp = 1;
  // One replica: the same gradients, which a ring of one GPU does not send (DualPipe's copies would).
  EXPECT_EQ(stage_costs(m, alone)[1].dp_gradient_bytes, costs[1].parameters * 4);
  alone.pp = 1;
  alone.chunks = 2;  // both ends on the one pipeline rank: a local copy, no collective
  EXPECT_EQ(stage_costs(m, alone)[0].embedding_allreduce_bytes, 0);

  Precision bf16_grads;
  bf16_grads.gradient_bytes = 2;
  EXPECT_EQ(stage_costs(m, megatron_1t(), bf16_grads)[1].dp_gradient_bytes, costs[1].parameters * 2);
}

}  // namespace
}  // namespace pipegrid::model
