// --precision fp8 against hand computations: one FP8 GEMM's time, which kernels run in FP8 and the
// casts that feed them (Transformer Engine's fp8_autocast), and the bytes FP8 saves and adds.
#include <gtest/gtest.h>

#include <algorithm>
#include <string_view>

#include "sim/model/kernel_time.h"
#include "sim/model/kernels.h"
#include "sim/model/memory_model.h"
#include "tiny_transformer.h"

namespace pipegrid::model {
namespace {

// An H100 with round constants: η 1 for bf16, η_fp8 0.5, no wave cost, no floor.
GpuSpec h100() {
  GpuSpec g;
  g.sms = 132;
  g.tensor_flops = 989e12;
  g.fp8_tensor_flops = 1979e12;
  g.fp8_recipe = Fp8Recipe::Delayed;
  g.hbm_bandwidth = 3.35e12;
  g.gemm_tiles = {{256, 128}};
  g.constants = {.gemm_efficiency = 1, .wave_seconds = 0, .memory_efficiency = 1, .kernel_floor_seconds = 0,
                 .fp8_gemm_efficiency = 0.5};
  return g;
}

Transformer tiny() { return test_support::tiny_transformer(); }

TEST(Fp8, OneGemmRunsAtTheFp8PeakAndItsOwnEfficiency) {
  // 4096³ in 256×128 tiles: 16 × 32 = 512 tiles, ⌈512 / 132⌉ = 4 waves. A wave is one tile per SM,
  // 2·256·128·4096 = 268 435 456 FLOPs at 1979e12 · 0.5 / 132 = 7.496212e12 FLOP/s: 35.8095 µs;
  // 4 waves 143.238 µs. In bf16 at η 1: 989e12 / 132 per SM, 4 × 35.8277 µs = 143.311 µs.
  const GpuSpec gpu = h100();
  const GemmShape g{4096, 4096, 4096, 1};
  EXPECT_NEAR(gemm_compute_seconds(g, gpu, true), 4 * 268435456.0 / (1979e12 * 0.5 / 132), 1e-15);
  EXPECT_NEAR(gemm_compute_seconds(g, gpu, true), 143.238e-6, 1e-9);
  EXPECT_NEAR(gemm_compute_seconds(g, gpu, false), 143.311e-6, 1e-9);
  // Without a fitted η_fp8 an FP8 GEMM takes η: twice as fast as bf16 at η 1.
  GpuSpec unfitted = gpu;
  unfitted.constants.fp8_gemm_efficiency = 0;
  EXPECT_NEAR(gemm_compute_seconds(g, unfitted, true), 4 * 268435456.0 / (1979e12 / 132), 1e-15);
}

std::vector<Kernel> gpt_stage(ComputePrecision precision, Fp8Recipe recipe) {
  const Transformer m = tiny();
  const Parallelism par{1, 2, 1, 1, false, Recompute::None};
  const KernelOptions options{.precision = precision, .fp8_recipe = recipe};
  return stage_kernels(m, par, stage_costs(m, par)[1], options);  // the last stage: layers and the LM head
}

double bytes_of(const std::vector<Kernel>& kernels, std::string_view name, Pass pass) {
  double sum = 0;
  for (const Kernel& k : kernels)
    if (k.name == name && k.pass == pass) sum += k.count * k.bytes;
  return sum;
}

TEST(Fp8, TheWeightGemmsRunInFp8AndTheirOperandsAreCast) {
  const std::vector<Kernel> bf16 = gpt_stage(ComputePrecision::Bf16, Fp8Recipe::Delayed);
  const std::vector<Kernel> fp8 = gpt_stage(ComputePrecision::Fp8, Fp8Recipe::Delayed);
  double expected_grad = 0;
  int amax = 0, fp8_gemms = 0;
  for (const Kernel& k : fp8) {
    if (k.fp8) {
      ++fp8_gemms;
      EXPECT_EQ(k.kind, OpKind::Gemm) << k.name;  // never the attention core or the LM head
      if (k.pass == Pass::I) expected_grad += k.count * 4 * k.gemm.m * k.gemm.k;
    }
    if (k.name == "fp8_cast_weight") {
      EXPECT_EQ(k.pass, Pass::Step);  // once a step: TE keeps them across micro-batches
    }
    if (k.name == "fp8_amax_update") ++amax;
  }
  // A GPT layer's four weight GEMMs, each in F, dgrad and wgrad.
  EXPECT_EQ(fp8_gemms, 12);
  // QKV's operands cross HBM in FP8, its output in bf16: T = 8 tokens, (8, 24, 8): 64 + 192 + 2·192.
  const auto qkv = std::find_if(fp8.begin(), fp8.end(), [](const Kernel& k) { return k.name == "qkv" && k.pass == Pass::F; });
  ASSERT_NE(qkv, fp8.end());
  EXPECT_EQ(qkv->bytes, 640);
  // By hand for h = 8, ffn 32, T = s·b = 8 tokens, 2 layers. The projection's and the MLP down's
  // inputs, T×h and T×4h, are cast and transposed at 4 bytes an element: 2·4·8·(8 + 32) = 2560.
  EXPECT_DOUBLE_EQ(bytes_of(fp8, "fp8_cast_input", Pass::F), 2560);
  // QKV's and the MLP up's, T×h each, come from their norms in FP8: a transpose each, read 1 and
  // write 1: 2·2·8·(8 + 8) = 512; each norm writes 1 byte an element less: 4·h·T − T·h = 192.
  EXPECT_DOUBLE_EQ(bytes_of(fp8, "fp8_transpose_input", Pass::F), 512);
  EXPECT_DOUBLE_EQ(bytes_of(bf16, "layernorm1", Pass::F), 2 * 256);
  EXPECT_DOUBLE_EQ(bytes_of(fp8, "layernorm1", Pass::F), 2 * 192);
  EXPECT_DOUBLE_EQ(bytes_of(fp8, "layernorm2", Pass::F), 2 * 192);
  EXPECT_DOUBLE_EQ(bytes_of(fp8, "fp8_cast_grad_output", Pass::I), expected_grad);
  // The weights: 3h² + h² + 4h² + 4h² = 12h² = 768 elements a layer.
  EXPECT_DOUBLE_EQ(bytes_of(fp8, "fp8_cast_weight", Pass::Step), 2 * 4 * 768.0);
  EXPECT_EQ(amax, 2);  // one amax-and-scale update per forward and per backward
  EXPECT_EQ(fp8.size(), bf16.size() + 4 * 2 + 4 + 2);  // per GEMM kind a cast in F, in I, of the weight
  // MXFP8 (Blackwell): a 1-byte scale per 32 elements of each copy, and no amax history; the norms
  // write both copies and their scales themselves.
  const std::vector<Kernel> mx = gpt_stage(ComputePrecision::Fp8, Fp8Recipe::Mxfp8);
  EXPECT_DOUBLE_EQ(bytes_of(mx, "fp8_cast_input", Pass::F), 2 * (4 + 2.0 / 32) * 320);
  EXPECT_DOUBLE_EQ(bytes_of(mx, "fp8_transpose_input", Pass::F), 0);
  EXPECT_DOUBLE_EQ(bytes_of(mx, "layernorm1", Pass::F), 2 * (256 + 2.0 / 32 * 64));
  EXPECT_EQ(std::count_if(mx.begin(), mx.end(), [](const Kernel& k) { return k.name == "fp8_amax_update"; }), 0);
}

TEST(Fp8, SequenceParallelismGathersTheFp8Copies) {
  // t = 2 with sequence parallelism: each norm runs on T/t = 4 tokens (4·h·4 = 128 bytes) and writes
  // its FP8 copy, a byte an element less: 128 − 32 = 96. The row-parallel GEMMs' output gradients
  // (projection, MLP down: T×h = 64 elements) are cast on 32 of them (3 bytes: read 2, write 1),
  // gathered, and transposed whole (2 bytes): 96 + 128 = 224 each. QKV's and the MLP up's are not
  // gathered: T×3h/t = 96 and T×4h/t = 128 elements at 4 bytes, 384 + 512.
  const Transformer m = tiny();
  Parallelism par{2, 2, 1, 1, false, Recompute::None};
  par.sequence_parallel = true;
  const KernelOptions options{.precision = ComputePrecision::Fp8, .fp8_recipe = Fp8Recipe::Delayed};
  const std::vector<Kernel> fp8 = stage_kernels(m, par, stage_costs(m, par)[1], options);
  EXPECT_DOUBLE_EQ(bytes_of(fp8, "layernorm1", Pass::F), 2 * 96);
  EXPECT_DOUBLE_EQ(bytes_of(fp8, "fp8_cast_grad_output", Pass::I), 2 * (224 + 224 + 384 + 512));
}

TEST(Fp8, TheRoutedTokensArePaddedForTheGroupedGemmsAndTheSharedExpertsNot) {
  // The tiny GPT's 2 layers as MoE: 4 experts of 16, top 2, one shared, ep 1. T = 8 tokens give 16
  // assignments; the grouped GEMMs take 4 experts × 4 rows of h = 8. TE's Fp8Padding copies them
  // (read 2, write 2 bytes): 4·16·8 = 512 bytes a layer, and so do Fp8Unpadding after the down GEMM
  // and both again backward. The shared expert is a plain TE MLP: no padding.
  Transformer m = tiny();
  m.moe.experts = 4;
  m.moe.top_k = 2;
  m.moe.expert_hidden = 16;
  m.moe.shared_experts = 1;
  const Parallelism par{1, 2, 1, 1, false, Recompute::None};
  const KernelOptions options{.precision = ComputePrecision::Fp8, .fp8_recipe = Fp8Recipe::Delayed};
  const std::vector<Kernel> fp8 = stage_kernels(m, par, stage_costs(m, par)[1], options);
  for (const char* name : {"fp8_padding", "fp8_unpadding"}) EXPECT_DOUBLE_EQ(bytes_of(fp8, name, Pass::F), 2 * 512) << name;
  for (const char* name : {"fp8_padding.bwd", "fp8_unpadding.bwd"}) EXPECT_DOUBLE_EQ(bytes_of(fp8, name, Pass::I), 2 * 512) << name;
  for (const Kernel& k : fp8) {
    if (k.name.starts_with("fp8_pad") || k.name.starts_with("fp8_unpad")) {
      EXPECT_EQ(k.part, Part::Routed);
    }
  }
  const std::vector<Kernel> bf16 = stage_kernels(m, par, stage_costs(m, par)[1], {});
  EXPECT_DOUBLE_EQ(bytes_of(bf16, "fp8_padding", Pass::F), 0);
  // --fp8-moe-padding off: a dispatch that writes the tokens aligned (DeepEP's) leaves no copies.
  KernelOptions aligned = options;
  aligned.fp8_moe_padding = false;
  const std::vector<Kernel> unpadded = stage_kernels(m, par, stage_costs(m, par)[1], aligned);
  EXPECT_DOUBLE_EQ(bytes_of(unpadded, "fp8_padding", Pass::F) + bytes_of(unpadded, "fp8_unpadding.bwd", Pass::I), 0);
  EXPECT_EQ(unpadded.size(), fp8.size() - 4);
}

TEST(Fp8, TheLinearLayersKeepTheirInputsInOneByte) {
  // Korthikanti's 2496 bytes per layer (s = 4, b = 2, h = 8, a = 2, t = 1: s·b·(34h + 5as)) hold the
  // four weight GEMMs' inputs, s·b·h·(4 + 10) = 896 bytes, in bf16; FP8 keeps them in half: 2048.
  const Transformer m = tiny();
  const Parallelism par{1, 2, 1, 1, false, Recompute::None};
  const auto stages = stage_costs(m, par);
  const ActivationBytes fp8 = activation_bytes(m, par, stages[0], false, ComputePrecision::Fp8);
  EXPECT_EQ(fp8.per_microbatch, 2 * 2048 + 64);
  EXPECT_EQ(fp8.kept_for_weight_gradient, 2 * 448);
  // The cached FP8 weights: a GPT layer's 12h² + 13h = 872 parameters at 2 bytes (the copy and its
  // transpose), not the embedding tables (V·h = 128, positions s·h = 32), nor the last stage's copy of
  // the tied word embeddings for its LM head.
  EXPECT_EQ(fp8_weight_copy_bytes(m, 1, stages[0]), 2 * 2 * 872.0);
  EXPECT_EQ(fp8_weight_copy_bytes(m, 1, stages[1]), 2 * 2 * 872.0);
}

}  // namespace
}  // namespace pipegrid::model
