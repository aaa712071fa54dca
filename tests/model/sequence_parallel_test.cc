// Sequence parallelism (Megatron-Core, Korthikanti et al. 2022 §4.2.2) in the cost model: the TP
// collectives a stage runs, counted by hand from Megatron-Core's layers; the activations of
// Korthikanti's Table 2 for TP, TP + SP, TP + selective and TP + SP + selective worked by hand; the
// kernels that run on s/t tokens; the rule that t divides s.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/input_error.h"
#include "sim/model/kernels.h"
#include "sim/model/memory_model.h"
#include "sim/model/stage_cost.h"

namespace pipegrid::model {
namespace {

// GPT as Korthikanti's Table 2 has it (bias, dropout, GeLU MLP of 4h): s = 64, b = 1, h = 64, a = 4.
Transformer gpt() {
  Transformer m;
  m.name = "table2";
  m.layers = 4;
  m.hidden = 64;
  m.heads = 4;
  m.seq = 64;
  m.vocab = 256;
  m.micro_batch = 1;
  return m;
}

Parallelism layout(int tp, int pp, bool sp, Recompute recompute = Recompute::None) {
  Parallelism par{tp, pp, 1, 1, false, recompute};
  par.sequence_parallel = sp;
  return par;
}

TEST(SequenceParallel, ActivationsPerLayerAreKorthikantisTable2) {
  // t = 2, one layer per stage (p = 4), stage 1 holds neither the embedding nor the LM head.
  // sbh = 64·1·64 = 4096 elements; 5as²b/t = 5·4·64²·1/2 = 40960 bytes.
  const Transformer m = gpt();
  const auto per_layer = [&](bool sp, Recompute r) {
    const Parallelism par = layout(2, 4, sp, r);
    return activation_bytes(m, par, stage_costs(m, par)[1]).per_microbatch;
  };
  // TP: sbh·(10 + 24/t) + 5as²b/t = 4096·22 + 40960.
  EXPECT_EQ(per_layer(false, Recompute::None), 4096 * 22 + 40960);
  // TP + SP: sbh·34/t + 5as²b/t = 4096·17 + 40960.
  EXPECT_EQ(per_layer(true, Recompute::None), 4096 * 17 + 40960);
  // TP + selective: sbh·(10 + 24/t).
  EXPECT_EQ(per_layer(false, Recompute::Selective), 4096 * 22);
  // TP + SP + selective: sbh·34/t.
  EXPECT_EQ(per_layer(true, Recompute::Selective), 4096 * 17);
  // Full recomputation keeps the layer's input, 2sbh, sharded too with SP (Korthikanti §4.4).
  EXPECT_EQ(per_layer(false, Recompute::Full), 2 * 4096);
  EXPECT_EQ(per_layer(true, Recompute::Full), 4096);
}

TEST(SequenceParallel, TheEmbeddingsDropoutMaskIsShardedTheLogitsAreAsBefore) {
  const Transformer m = gpt();
  const Parallelism tp = layout(2, 4, false), sp = layout(2, 4, true);
  const auto tp_stages = stage_costs(m, tp), sp_stages = stage_costs(m, sp);
  // Stage 0 adds the embedding's dropout mask, sbh bytes (sbh/t with SP); stage 3 the fp32 logits,
  // 4·s·b·V/t = 4·64·256/2 = 32768 either way.
  EXPECT_EQ(activation_bytes(m, tp, tp_stages[0]).per_microbatch, 4096 * 22 + 40960 + 4096);
  EXPECT_EQ(activation_bytes(m, sp, sp_stages[0]).per_microbatch, 4096 * 17 + 40960 + 2048);
  EXPECT_EQ(activation_bytes(m, sp, sp_stages[3]).per_microbatch, 4096 * 17 + 40960 + 32768);
}

TEST(SequenceParallel, EachAllReduceBecomesAReduceScatterAndAnAllGather) {
  // t = 2, p = 2: two layers a stage. Bytes of every collective: S = b·s·h·2 = 8192.
  const Transformer m = gpt();
  const auto tp = stage_costs(m, layout(2, 2, false));
  const auto sp = stage_costs(m, layout(2, 2, true));
  for (const StageCost& c : sp) {
    EXPECT_EQ(c.tp_allreduce_bytes, 8192);
    EXPECT_EQ(c.tp_allreduces_per_forward, 0);
    EXPECT_EQ(c.tp_allreduces_per_backward, 0);
  }
  // Without SP: 2 all-reduces a layer each way, the embedding's in F, the LM head's in B.
  EXPECT_EQ(tp[0].tp_allreduces_per_forward, 5);
  EXPECT_EQ(tp[1].tp_allreduces_per_backward, 5);
  // Stage 0, forward: per layer an all-gather before QKV and FC1, a reduce-scatter after the
  // projection and FC2; the embedding's output reduce-scattered: 4 all-gathers, 5 reduce-scatters.
  EXPECT_EQ(sp[0].tp_all_gathers_per_forward, 4);
  EXPECT_EQ(sp[0].tp_reduce_scatters_per_forward, 5);
  // Backward: per layer the row GEMMs' output gradients all-gathered (2), the column GEMMs' inputs
  // gathered again for their weight gradients (2) and their input gradients reduce-scattered (2);
  // the embedding's gradient all-gathered: 9 all-gathers, 4 reduce-scatters.
  EXPECT_EQ(sp[0].tp_all_gathers_per_backward, 9);
  EXPECT_EQ(sp[0].tp_reduce_scatters_per_backward, 4);
  // Stage 1 with the LM head: its input all-gathered in F; in B gathered again and its input's
  // gradient reduce-scattered.
  EXPECT_EQ(sp[1].tp_all_gathers_per_forward, 5);
  EXPECT_EQ(sp[1].tp_reduce_scatters_per_forward, 4);
  EXPECT_EQ(sp[1].tp_all_gathers_per_backward, 9);
  EXPECT_EQ(sp[1].tp_reduce_scatters_per_backward, 5);
  // Of the backward's, each column GEMM's re-gather and input-gradient reduce-scatter run async under
  // its dgrad and wgrad (Megatron-Core's native pairs): QKV and FC1 of each layer, and the LM head.
  EXPECT_EQ(sp[0].tp_native_pairs_backward, 4);
  EXPECT_EQ(sp[1].tp_native_pairs_backward, 5);
  EXPECT_EQ(tp[0].tp_native_pairs_backward, 0);
  // Megatron sends the sequence-sharded tensor between stages: b·s·h·2 / t.
  EXPECT_EQ(tp[0].send_forward_bytes, 8192);
  EXPECT_EQ(sp[0].send_forward_bytes, 4096);
  EXPECT_EQ(sp[1].send_backward_bytes, 4096);
  // Full recomputation runs each layer's forward collectives again in the backward.
  const auto full = stage_costs(m, layout(2, 2, true, Recompute::Full));
  EXPECT_EQ(full[0].tp_all_gathers_per_backward, 9 + 4);
  EXPECT_EQ(full[0].tp_reduce_scatters_per_backward, 4 + 4);
}

TEST(SequenceParallel, OneTensorParallelGpuShardsNothing) {
  const Transformer m = gpt();
  const auto one = stage_costs(m, layout(1, 2, true));
  const auto plain = stage_costs(m, layout(1, 2, false));
  EXPECT_EQ(one[0].tp_all_gathers_per_forward + one[0].tp_reduce_scatters_per_backward, 0);
  EXPECT_EQ(one[0].send_forward_bytes, plain[0].send_forward_bytes);
  const Parallelism par = layout(1, 2, true);
  EXPECT_EQ(activation_bytes(m, par, one[1]).per_microbatch,
            activation_bytes(m, layout(1, 2, false), plain[1]).per_microbatch);
}

TEST(SequenceParallel, TheNormsResidualsAndEmbeddingDropoutRunOnSOverTTokens) {
  const Transformer m = gpt();
  const Parallelism tp = layout(2, 1, false), sp = layout(2, 1, true);
  const std::vector<Kernel> without = stage_kernels(m, tp, stage_costs(m, tp)[0], {});
  const std::vector<Kernel> with = stage_kernels(m, sp, stage_costs(m, sp)[0], {});
  const auto find = [](const std::vector<Kernel>& ks, std::string_view name, Pass pass) {
    const auto it = std::find_if(ks.begin(), ks.end(), [&](const Kernel& k) { return k.name == name && k.pass == pass; });
    EXPECT_NE(it, ks.end()) << name;
    return it == ks.end() ? Kernel{} : *it;
  };
  // The first norm reads h and writes h per token, 4h bytes: T = 64 tokens, 16384 bytes; 8192 on s/t.
  EXPECT_EQ(find(without, "layernorm1", Pass::F).bytes, 4.0 * 64 * 64);
  EXPECT_EQ(find(with, "layernorm1", Pass::F).bytes, 4.0 * 64 * 64 / 2);
  for (std::string_view name : {"bias_dropout_residual1", "bias_dropout_residual2", "embedding_dropout", "final_layernorm"})
    EXPECT_EQ(find(with, name, Pass::F).bytes, find(without, name, Pass::F).bytes / 2) << name;
  // The attention core's dropout is split by heads already; the GEMMs are untouched.
  for (std::string_view name : {"attention_dropout", "qkv", "lm_head"})
    EXPECT_EQ(find(with, name, Pass::F).bytes, find(without, name, Pass::F).bytes) << name;
  // A launch per collective, the one stage holding the 4 layers, the embedding and the LM head. F: 2 all-
  // gathers a layer + the LM head's, 2 reduce-scatters a layer + the embedding's; I: 4 all-gathers a layer
  // + the embedding's + the LM head's, 2 reduce-scatters a layer + the LM head's.
  EXPECT_EQ(find(with, "tp_all_gather", Pass::F).count, 2 * 4 + 1);
  EXPECT_EQ(find(with, "tp_reduce_scatter", Pass::F).count, 2 * 4 + 1);
  EXPECT_EQ(find(with, "tp_all_gather", Pass::I).count, 4 * 4 + 2);
  EXPECT_EQ(find(with, "tp_reduce_scatter", Pass::I).count, 2 * 4 + 1);
  EXPECT_EQ(std::count_if(with.begin(), with.end(), [](const Kernel& k) { return k.name == "tp_allreduce"; }), 0);
}

TEST(SequenceParallel, TheTensorParallelSizeMustDivideTheSequence) {
  Transformer m = gpt();
  m.seq = 66;
  try {
    stage_costs(m, layout(4, 1, true));
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "--sequence-parallel: --tp 4 must divide --seq 66 (each TP GPU holds s/t tokens)");
  }
  EXPECT_NO_THROW(stage_costs(m, layout(4, 1, false)));
}

}  // namespace
}  // namespace pipegrid::model
