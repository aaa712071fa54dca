// Today's layers against hand computations: a Llama-3.1-8B layer (grouped-query attention, SwiGLU,
// RMSNorm, rotary positions, no biases, no dropout) and a DeepSeek-V3 layer (multi-head latent
// attention) — GEMM shapes, FLOPs against Megatron-LM's closed form, activation bytes under none,
// selective and full recomputation against Korthikanti et al. 2022's Table 2, and the checks.
#include <gtest/gtest.h>

#include <string>

#include "common/input_error.h"
#include "sim/model/iteration_flops.h"
#include "sim/model/kernels.h"
#include "sim/model/layer_costs.h"
#include "sim/model/memory_model.h"
#include "sim/model/stage_cost.h"

namespace pipegrid::model {
namespace {

// Llama 3.1 8B's layer (its config.json): h 4096, 32 query heads, 8 key-value heads of 128, SwiGLU of
// 14336, RMSNorm, RoPE, no biases, no dropout; one sequence of 8192 tokens per micro-batch.
Transformer llama_layer(int layers = 1) {
  Transformer m;
  m.layers = layers;
  m.hidden = 4096;
  m.heads = 32;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.ffn_hidden = 14336;
  m.seq = 8192;
  m.vocab = 128256;
  m.mlp = Mlp::Swiglu;
  m.norm = Norm::RmsNorm;
  m.positions = Positions::Rope;
  m.linear_bias = m.qkv_bias = m.dropout = false;
  m.tied_embeddings = false;
  return m;
}

// DeepSeek-V3's attention (arXiv 2412.19437 §2.1 and its config.json): h 7168, 128 heads, queries
// through a rank of 1536, keys and values through a latent of 512, heads of 128 + 64 rotary, values 128.
Transformer deepseek_layer() {
  Transformer m;
  m.layers = 1;
  m.hidden = 7168;
  m.heads = 128;
  m.seq = 4096;
  m.vocab = 129280;
  m.ffn_hidden = 18432;
  m.mlp = Mlp::Swiglu;
  m.norm = Norm::RmsNorm;
  m.positions = Positions::Rope;
  m.linear_bias = m.qkv_bias = m.dropout = false;
  m.mla = {.q_lora_rank = 1536, .kv_lora_rank = 512, .qk_rope_head_dim = 64, .qk_nope_head_dim = 128, .v_head_dim = 128};
  return m;
}

const Kernel& named(const std::vector<Kernel>& kernels, std::string_view name, Pass pass = Pass::F) {
  for (const Kernel& k : kernels)
    if (k.name == name && k.pass == pass) return k;
  throw std::runtime_error("no kernel " + std::string(name));
}

void expect_shape(const Kernel& k, double m, double n, double kk) {
  EXPECT_EQ(k.gemm.m, m) << k.name;
  EXPECT_EQ(k.gemm.n, n) << k.name;
  EXPECT_EQ(k.gemm.k, kk) << k.name;
  EXPECT_EQ(k.flops, 2 * m * n * kk) << k.name;
}

TEST(ModelVariants, GroupedQueryAttentionAndSwiGluGemmShapes) {
  // At t = 2 each GPU holds 16 query and 4 key-value heads: QKV has (16 + 2·4)·128 = 3072 columns, the
  // projection reads 16·128 = 2048, gate and up 2·14336/2 = 14336 columns, down reads 7168.
  const std::vector<Kernel> k = layer_kernels(llama_layer(), 2, true);
  expect_shape(named(k, "qkv"), 8192, 3072, 4096);
  expect_shape(named(k, "projection"), 8192, 4096, 2048);
  expect_shape(named(k, "mlp_gate_up"), 8192, 14336, 4096);
  expect_shape(named(k, "mlp_down"), 8192, 4096, 7168);
  expect_shape(named(k, "mlp_gate_up.wgrad", Pass::W), 14336, 4096, 8192);
  // Three weight matrices (gate and up as one GEMM), no biases, no dropout, rotary embeddings.
  for (const Kernel& kernel : k) {
    EXPECT_NE(kernel.kind, OpKind::BiasGrad) << kernel.name;
    EXPECT_NE(kernel.kind, OpKind::Dropout) << kernel.name;
  }
  EXPECT_EQ(named(k, "rmsnorm1").bytes, 4.0 * 4096 * 8192);
  // RoPE rotates the GPU's 16 query heads and 4 key heads of 128: (16 + 4)·128 elements a token, read
  // and written in bf16.
  EXPECT_EQ(named(k, "rope").bytes, 2 * 2 * 2560.0 * 8192);
  // FlashAttention, causal: half of 2·s²·(d + d) per head, 16 heads: 16·8192²·256 FLOPs.
  EXPECT_EQ(named(k, "flash_attention").flops, 16 * 8192.0 * 8192 * 256);
}

TEST(ModelVariants, LlamaLayerFlopsAreMegatronsFormula) {
  // By hand, per token: Q and O 2·4096·4096, K and V 2·4096·1024, SwiGLU 3·4096·14336: 218 103 808
  // multiply-adds; scores and context 8192·(4096 + 4096) = 67 108 864. T = 8192 tokens:
  // F = 2T·(218103808 + 67108864) = 4 672 924 418 048, I = F + 2T·67108864, W = 2T·218103808.
  const Flops f = layer_flops(llama_layer());
  EXPECT_EQ(f.forward, 4672924418048.0);
  EXPECT_EQ(f.backward_input, 5772436045824.0);
  EXPECT_EQ(f.backward_weight, 3573412790272.0);
  // Megatron-LM's num_floating_point_operations for one layer and one sequence:
  // 12·s·h²·((1 + g/a + s/h)·(a·d/h) + ffn/h·3/2) = 14 018 773 254 144.
  const double s = 8192, h = 4096;
  EXPECT_DOUBLE_EQ(f.total(), 12 * s * h * h * ((1 + 8.0 / 32 + s / h) * 1 + 14336 / h * 1.5));
  // The same per iteration: plus the LM head's 6·s·h·V per sequence.
  const Transformer two = llama_layer(2);
  EXPECT_DOUBLE_EQ(model_flops_per_iteration(two, 3, AttentionCount::Square), 3 * (2 * f.total() + 6 * s * h * 128256));
}

TEST(ModelVariants, LatentAttentionProjectionsByHand) {
  // Per token: h·r_q 11 010 048 + r_q·128·192 37 748 736 + h·(512 + 64) 4 128 768 +
  // 512·128·(128 + 128) 16 777 216 + 128·128·h 117 440 512 = 187 105 280 multiply-adds, the
  // parameters of DeepSeek-V3's attention without its norms.
  const Transformer m = deepseek_layer();
  EXPECT_EQ(attention_weight_macs(m), 187105280.0);
  // The latents' RMSNorms (1536 + 512) and the layer's two (2·7168) come on top.
  EXPECT_EQ(attention_parameters(m), 187105280 + 1536 + 512 + 2 * 7168);
  // At t = 4, 32 heads a GPU: the down-projections whole, the up-projections split.
  const std::vector<Kernel> k = layer_kernels(m, 4, false);
  expect_shape(named(k, "q_down"), 4096, 1536, 7168);
  expect_shape(named(k, "q_up"), 4096, 32 * 192, 1536);
  expect_shape(named(k, "kv_down"), 4096, 576, 7168);
  expect_shape(named(k, "kv_up"), 4096, 32 * 256, 512);
  expect_shape(named(k, "projection"), 4096, 7168, 32 * 128);
  // Scores over the 192-wide query-key heads, context over the 128-wide values, 32 heads.
  const Kernel& scores = named(k, "scores");
  EXPECT_EQ(scores.gemm.k, 192);
  EXPECT_EQ(scores.gemm.batch, 32);
  EXPECT_EQ(named(k, "context").gemm.n, 128);
  // Forward FLOPs: 2T·(187105280 + 4096·128·(192 + 128)).
  EXPECT_EQ(layer_flops(m).forward - 2 * 4096.0 * 3 * 7168 * 18432,
            2 * 4096.0 * (187105280 + 4096.0 * 128 * 320));
}

TEST(ModelVariants, ActivationsUnderEachRecomputationAreKorthikantisTable2) {
  // GPT (tiny: s 4, b 2, h 8, a 2, dropout): Table 2 without sequence parallelism — none
  // sbh(10 + 24/t + 5as/(ht)), selective sbh(10 + 24/t), full 2sbh. sbh = 64, 5as/h = 5: per layer
  // 64·39 = 2496, 64·34 = 2176 and 128 at t = 1; 64·(22 + 2.5) = 1568, 64·22 = 1408 at t = 2.
  Transformer m;
  m.layers = 2;
  m.hidden = 8;
  m.heads = 2;
  m.seq = 4;
  m.vocab = 16;
  m.micro_batch = 2;
  const auto per_layer = [&](int t, Recompute r) {
    const Parallelism par{t, 1, 1, 1, false, r};
    StageCost middle;
    middle.layers = 1;
    return activation_bytes(m, par, middle).per_microbatch;
  };
  EXPECT_EQ(per_layer(1, Recompute::None), 2496);
  EXPECT_EQ(per_layer(1, Recompute::Selective), 2176);
  EXPECT_EQ(per_layer(1, Recompute::Full), 128);
  EXPECT_EQ(per_layer(2, Recompute::None), 1568);
  EXPECT_EQ(per_layer(2, Recompute::Selective), 1408);
}

TEST(ModelVariants, LlamaActivationsTermByTerm) {
  // Per token, bytes: held whole on each GPU the two norms' inputs and the attention's and MLP's inputs,
  // 8h = 32 768 (no dropout masks); split over t: Q 2·4096, K and V 2·1024 each, the context 2·4096,
  // SwiGLU's gate, up and product 6·14336 — 106 496; scores 2·a·s = 524 288 (softmax output, no mask).
  // T = 8192: none 8192·(32768 + (106496 + 524288)/t), selective without the scores, full 2·T·h.
  const Transformer m = llama_layer();
  StageCost middle;
  middle.layers = 1;
  const auto bytes = [&](int t, Recompute r) {
    return activation_bytes(m, Parallelism{t, 1, 1, 1, false, r}, middle).per_microbatch;
  };
  EXPECT_EQ(bytes(1, Recompute::None), 5435817984.0);
  EXPECT_EQ(bytes(2, Recompute::None), 2852126720.0);
  EXPECT_EQ(bytes(1, Recompute::Selective), 1140850688.0);
  EXPECT_EQ(bytes(8, Recompute::Selective), 377487360.0);
  EXPECT_EQ(bytes(8, Recompute::Full), 67108864.0);
}

TEST(ModelVariants, SelectiveRecomputationRunsTheAttentionCoreAgain) {
  // The extra hardware FLOPs are the attention core's forward, 2·s²·(a·d + a·d) per layer and
  // sequence: 2·8192²·8192 each of the 2 layers, for 3 sequences.
  const Transformer m = llama_layer(2);
  const double extra = hardware_flops_per_iteration(m, 3, Recompute::Selective, AttentionCount::Square) - model_flops_per_iteration(m, 3, AttentionCount::Square);
  EXPECT_DOUBLE_EQ(extra, 3 * 2 * (2 * 8192.0 * 8192 * 8192));
  // The kernel list: the unfused core's forward kernels again in I, marked recomputed, and no others.
  Parallelism par{1, 1, 1, 1, false, Recompute::Selective};
  const std::vector<StageCost> stages = stage_costs(m, par);
  int recomputed = 0;
  for (const Kernel& k : stage_kernels(m, par, stages[0], {})) {
    if (!k.recomputed) continue;
    ++recomputed;
    EXPECT_EQ(k.pass, Pass::I);
    EXPECT_TRUE(k.kind == OpKind::Attention || k.kind == OpKind::Softmax || k.kind == OpKind::Permute) << k.name;
    EXPECT_EQ(k.count, 2);
  }
  EXPECT_EQ(recomputed, 5);  // kv_repeat, scores, softmax, context, context_permute
}

TEST(ModelVariants, StageCostsAddUpToTheIterationsHardwareFlops) {
  // Two code paths, one count: the stages' F + B (per GPU, × t GPUs) over 4 stages and 3 sequences
  // equal hardware_flops_per_iteration, for each recomputation, on a GQA + SwiGLU model.
  const Transformer m = llama_layer(8);
  for (Recompute r : {Recompute::None, Recompute::Selective, Recompute::Full}) {
    const Parallelism par{2, 4, 1, 1, false, r};
    double sum = 0;
    for (const StageCost& c : stage_costs(m, par)) sum += 2 * c.flops.total();
    EXPECT_NEAR(3 * sum / hardware_flops_per_iteration(m, 3, r, AttentionCount::Square), 1, 1e-12) << to_string(r);
  }
}

std::string error_of(const Transformer& m, const Parallelism& par = {}) {
  try {
    m.validate();
    par.validate(m);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ModelVariants, BrokenRulesNameTheirFlag) {
  Transformer m = llama_layer();
  m.kv_heads = 5;
  EXPECT_EQ(error_of(m), "--kv-heads 5: must divide --heads 32");
  m = llama_layer(8);
  EXPECT_EQ(error_of(m, {16, 1, 1, 1}),
            "--tp 16: must divide --kv-heads 8 (Megatron-Core splits the key-value heads over the tensor-parallel "
            "GPUs)");
  EXPECT_EQ(error_of(m, {4, 3, 1, 1}), "--layers 8: must split evenly over 3 stages (--pp 3 × --chunks 1)");
  Transformer mla = deepseek_layer();
  mla.mla.v_head_dim = 0;
  EXPECT_EQ(error_of(mla), "--v-head-dim 0: must be positive");
  mla = deepseek_layer();
  mla.mla.q_lora_rank = -1;
  EXPECT_EQ(error_of(mla), "--q-lora-rank -1: must not be negative (0: queries not compressed)");
  mla = deepseek_layer();
  mla.head_dim = 128;
  EXPECT_NE(error_of(mla).find("--head-dim 128: multi-head latent attention"), std::string::npos);
  // A head width of its own lets the heads not divide h (Qwen3: 64 heads of 128 over h 4096 would; 40
  // heads of 128 over h 5120 too) — but without it they must.
  Transformer odd = llama_layer();
  odd.heads = 24;
  odd.kv_heads = 8;
  EXPECT_EQ(error_of(odd), "");
  odd.head_dim.reset();
  EXPECT_EQ(error_of(odd), "--heads 24: must divide --hidden 4096 (or give --head-dim)");
}

}  // namespace
}  // namespace pipegrid::model
