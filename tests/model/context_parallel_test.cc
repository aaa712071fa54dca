// Context parallelism (Megatron-Core / Transformer Engine, DeepSpeed-Ulysses) in the cost model: a
// stage's FLOPs, boundary, TP and KV bytes on the GPU's s/cp tokens, the kernels' attention on its
// share, the activations ÷ cp and the distributed optimizer over dp·cp, each worked by hand; and the
// rules (seq % 2cp for the ring's split, heads and kv-heads % t·cp for Ulysses).
#include <gtest/gtest.h>

#include "common/input_error.h"
#include "sim/model/kernels.h"
#include "sim/model/memory_model.h"
#include "sim/model/stage_cost.h"

namespace pipegrid::model {
namespace {

// GPT: s = 64, b = 1, h = 64, a = 4 (d = 16), 4 layers.
Transformer gpt() {
  Transformer m;
  m.name = "small";
  m.layers = 4;
  m.hidden = 64;
  m.heads = 4;
  m.seq = 64;
  m.vocab = 256;
  m.micro_batch = 1;
  return m;
}

Parallelism layout(int tp, int cp, CpAlgo algo = CpAlgo::Ring, Recompute recompute = Recompute::None) {
  Parallelism par{tp, 4, 1, 1, false, recompute};
  par.cp = cp;
  par.cp_algo = algo;
  return par;
}

TEST(ContextParallel, AStageCostsItsShareOfTheTokens) {
  const Transformer m = gpt();
  const auto plain = stage_costs(m, layout(2, 1)), cp = stage_costs(m, layout(2, 2));
  for (int s = 0; s < 4; ++s) {
    EXPECT_DOUBLE_EQ(cp[s].flops.forward, plain[s].flops.forward / 2) << s;
    EXPECT_DOUBLE_EQ(cp[s].flops.backward_input, plain[s].flops.backward_input / 2) << s;
    EXPECT_EQ(cp[s].parameters, plain[s].parameters);          // weights are not split by tokens
    EXPECT_EQ(cp[s].dp_gradient_bytes, plain[s].dp_gradient_bytes);
  }
  // b·(s/cp)·h·2 = 32·64·2 = 4096 bytes across a boundary and in every TP all-reduce.
  EXPECT_EQ(cp[1].send_forward_bytes, 4096);
  EXPECT_EQ(cp[1].tp_allreduce_bytes, 4096);
  // K and V of 32 tokens, 4 heads of 16 split over t = 2: 2·32·64/2·2 = 4096 bytes; Q the same.
  EXPECT_EQ(cp[1].cp_kv_bytes, 4096);
  EXPECT_EQ(cp[1].cp_q_bytes, 2048);
  EXPECT_EQ(cp[1].cp_forward_layers, 1);
  EXPECT_EQ(cp[1].cp_backward_layers, 1);
  EXPECT_EQ(cp[1].cp_recomputed_layers, 0);
  EXPECT_EQ(plain[1].cp_kv_bytes, 0);
}

TEST(ContextParallel, KeyValueBytesFollowGroupedQueryAttention) {
  // 8 heads, 2 key-value heads of 8: K and V of s/cp = 16 tokens, 2·16·2·8·2 = 1024 bytes (t = 1).
  Transformer m = gpt();
  m.heads = 8;
  m.kv_heads = 2;
  EXPECT_EQ(stage_costs(m, layout(1, 4))[1].cp_kv_bytes, 1024);
  EXPECT_EQ(stage_costs(m, layout(1, 4, CpAlgo::Ring, Recompute::Selective))[1].cp_recomputed_layers, 1);
}

TEST(ContextParallel, FlashAttentionRunsTheRanksShareOfTheCausalSquare) {
  // FlashAttention's FLOPs: b·(a/t)·s_q·s_kv·(d + d) = 1·4·64·64·32 = 524288 on one GPU; the ring's
  // s/cp queries against all s keys, or Ulysses' a/cp heads on the whole sequence: ÷ cp either way.
  const Transformer m = gpt();
  const KernelOptions flash{.flash_attention = true};
  const auto attention = [&](const Parallelism& par) {
    const StageCost stage = stage_costs(m, par)[1];
    for (const Kernel& k : stage_kernels(m, par, stage, flash))
      if (k.name == "flash_attention") return k.flops;
    return 0.0;
  };
  EXPECT_DOUBLE_EQ(attention(layout(1, 1)), 524288);
  EXPECT_DOUBLE_EQ(attention(layout(1, 2)), 524288 / 2.0);
  EXPECT_DOUBLE_EQ(attention(layout(1, 4, CpAlgo::AllToAll)), 524288 / 4.0);
}

TEST(ContextParallel, ActivationsAndTheDistributedOptimizerDivideByCp) {
  // One layer: sbh·34 + 5as²b = 4096·34 + 81920 = 221184 bytes at t = 1; ÷ cp, the scores too (the
  // ring's s/cp queries against s keys, 5as²b/cp).
  const Transformer m = gpt();
  for (int cp : {1, 2, 4}) {
    const Parallelism par = layout(1, cp);
    EXPECT_EQ(activation_bytes(m, par, stage_costs(m, par)[1]).per_microbatch, 221184.0 / cp) << cp;
  }
  // Adam's 12 bytes a parameter over dp·cp = 2·4 with the distributed optimizer.
  Parallelism par = layout(1, 4);
  par.dp = 2;
  EXPECT_EQ(par.gradient_group_size(), 8);
  EXPECT_EQ(static_memory(800, {}, par.gradient_group_size(), 1).optimizer, 12 * 800 / 8.0);
}

TEST(ContextParallel, TheRulesAreRefusedNamingThem) {
  Transformer m = gpt();
  m.seq = 60;
  EXPECT_THROW(layout(1, 4).validate(m), InputError);  // 8 ∤ 60
  m.seq = 64;
  EXPECT_NO_THROW(layout(1, 4).validate(m));
  EXPECT_THROW(layout(2, 4, CpAlgo::AllToAll).validate(m), InputError);  // t·cp = 8 ∤ 4 heads
  EXPECT_NO_THROW(layout(2, 2, CpAlgo::AllToAll).validate(m));
  m.heads = 8;
  m.kv_heads = 2;
  EXPECT_THROW(layout(1, 4, CpAlgo::AllToAll).validate(m), InputError);  // 4 ∤ 2 kv-heads
}

}  // namespace
}  // namespace pipegrid::model
