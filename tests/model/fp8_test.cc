// --precision fp8 against hand computations: one FP8 GEMM's time, which kernels run in FP8 and the
// casts that feed them (Transformer Engine's fp8_autocast), and the bytes FP8 saves and adds.
#include <gtest/gtest.h>

#include <algorithm>

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

TEST(Fp8, TheWeightGemmsRunInFp8AndTheirOperandsAreCast) {
  const std::vector<Kernel> bf16 = gpt_stage(ComputePrecision::Bf16, Fp8Recipe::Delayed);
  const std::vector<Kernel> fp8 = gpt_stage(ComputePrecision::Fp8, Fp8Recipe::Delayed);
  double forward_cast = 0, grad_cast = 0, weight_cast = 0, expected_forward = 0, expected_grad = 0, expected_weight = 0;
  int amax = 0, fp8_gemms = 0;
  for (const Kernel& k : fp8) {
    if (k.fp8) {
      ++fp8_gemms;
      EXPECT_EQ(k.kind, OpKind::Gemm) << k.name;  // never the attention core or the LM head
      // Each cast-transpose reads the bf16 operand and writes it twice in FP8: 4 bytes an element.
      if (k.pass == Pass::F) expected_forward += k.count * 4 * k.gemm.m * k.gemm.k;
      if (k.pass == Pass::F) expected_weight += k.count * 4 * k.gemm.k * k.gemm.n;
      if (k.pass == Pass::I) expected_grad += k.count * 4 * k.gemm.m * k.gemm.k;
    }
    if (k.name == "fp8_cast_input") forward_cast += k.count * k.bytes;
    if (k.name == "fp8_cast_grad_output") grad_cast += k.count * k.bytes;
    if (k.name == "fp8_cast_weight") {
      EXPECT_EQ(k.pass, Pass::Step);  // cast once a step: TE keeps them across micro-batches
      weight_cast += k.count * k.bytes;
    }
    if (k.name == "fp8_amax_update") ++amax;
  }
  // A GPT layer's four weight GEMMs, each in F, dgrad and wgrad.
  EXPECT_EQ(fp8_gemms, 12);
  // QKV's operands cross HBM in FP8, its output in bf16: T = 8 tokens, (8, 24, 8): 64 + 192 + 2·192.
  const auto qkv = std::find_if(fp8.begin(), fp8.end(), [](const Kernel& k) { return k.name == "qkv" && k.pass == Pass::F; });
  ASSERT_NE(qkv, fp8.end());
  EXPECT_EQ(qkv->bytes, 640);
  // By hand for h = 8, ffn 32, T = s·b = 8 tokens, 2 layers: the F GEMMs' inputs are T×h (QKV), T×h
  // (projection), T×h (MLP up), T×4h (MLP down): 8·(8 + 8 + 8 + 32) = 448 elements a layer.
  EXPECT_DOUBLE_EQ(expected_forward, 2 * 4 * 448.0);
  EXPECT_DOUBLE_EQ(forward_cast, expected_forward);
  EXPECT_DOUBLE_EQ(grad_cast, expected_grad);
  // The weights: 3h² + h² + 4h² + 4h² = 12h² = 768 elements a layer.
  EXPECT_DOUBLE_EQ(weight_cast, 2 * 4 * 768.0);
  EXPECT_EQ(amax, 2);  // one amax-and-scale update per forward and per backward
  EXPECT_EQ(fp8.size(), bf16.size() + 4 * 2 + 4 + 2);  // per GEMM kind a cast in F, in I, of the weight
  // MXFP8 (Blackwell): a 1-byte scale per 32 elements of each copy, and no amax history.
  double mx_forward = 0;
  int mx_amax = 0;
  for (const Kernel& k : gpt_stage(ComputePrecision::Fp8, Fp8Recipe::Mxfp8)) {
    if (k.name == "fp8_cast_input") mx_forward += k.count * k.bytes;
    if (k.name == "fp8_amax_update") ++mx_amax;
  }
  EXPECT_DOUBLE_EQ(mx_forward, 2 * (4 + 2.0 / 32) * 448);
  EXPECT_EQ(mx_amax, 0);
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
