// The kernel model against hand computations: one GEMM's tiles and waves, one LayerNorm's bytes, the
// host floor, FlashAttention's FLOPs, a grouped expert GEMM; the kernel inventory against the paper's
// FLOP count (the GPU files: gpu_files_test.cc).
#include <gtest/gtest.h>

#include <numeric>

#include "sim/model/compute_model.h"
#include "sim/model/gpu_spec.h"
#include "sim/model/kernel_time.h"
#include "sim/model/kernels.h"
#include "sim/model/layer_costs.h"
#include "sim/model/stage_cost.h"

namespace pipegrid::model {
namespace {

// An A100 with round constants, so that every time below is a hand computation.
GpuSpec a100(std::vector<GemmTile> tiles = {{256, 128}}, ComputeConstants constants = {1, 0, 1, 0}) {
  GpuSpec g;
  g.sms = 108;
  g.tensor_flops = 312e12;
  g.hbm_bandwidth = 2.039e12;
  g.gemm_tiles = std::move(tiles);
  g.constants = constants;
  return g;
}

Transformer gpt(int hidden, int heads, int seq, int micro_batch) {
  Transformer m;
  m.layers = 4;
  m.hidden = hidden;
  m.heads = heads;
  m.seq = seq;
  m.vocab = 51200;
  m.micro_batch = micro_batch;
  return m;
}

const Kernel& named(const std::vector<Kernel>& kernels, std::string_view name, Pass pass = Pass::F) {
  for (const Kernel& k : kernels)
    if (k.name == name && k.pass == pass) return k;
  throw std::runtime_error("no kernel " + std::string(name));
}

double gemm_flops(const std::vector<Kernel>& kernels, Pass pass) {
  double sum = 0;
  for (const Kernel& k : kernels)
    if (k.pass == pass && k.gemm.batch > 0) sum += k.count * k.flops;
  return sum;
}

TEST(KernelTime, OneGemmIsItsWavesOfTiles) {
  // NVIDIA's wave-quantisation example: a 1792×1792 output in 256×128 tiles is 7 × 14 = 98 tiles, one
  // wave on 108 SMs. A wave runs one tile per SM: 2·256·128·K FLOPs at 312e12 / 108 FLOP/s per SM.
  // K = 1024: 67 108 864 × 108 / 312e12 = 23.229991 µs (the ideal, 2·1792²·1024 / 312e12, is 21.08 µs).
  const GpuSpec gpu = a100();
  EXPECT_NEAR(gemm_compute_seconds({1792, 1792, 1024, 1}, gpu), 23.229991e-6, 1e-11);
  // One more row and column: 8 × 15 = 120 tiles, two waves, twice the time for 0.1 % more work.
  EXPECT_NEAR(gemm_compute_seconds({1793, 1793, 1024, 1}, gpu), 2 * 23.229991e-6, 1e-11);
  // A batch of 2 of the first: 196 tiles, two waves.
  EXPECT_NEAR(gemm_compute_seconds({1792, 1792, 1024, 2}, gpu), 2 * 23.229991e-6, 1e-11);
}

TEST(KernelTime, TheCheapestTileIsTakenAndEachWaveCostsItsOverhead) {
  // 512×512 output, K = 4096: 256×128 tiles make 2 × 4 = 8 tiles, one wave of 2·256·128·4096 FLOPs
  // per SM = 92.92 µs; 64×64 tiles make 64 tiles, one wave of 2·64·64·4096 = 5.81 µs. With τ = 1 µs
  // per wave the small tile costs 6.81 µs.
  const GpuSpec gpu = a100({{256, 128}, {64, 64}}, {1, 1e-6, 1, 0});
  EXPECT_NEAR(gemm_compute_seconds({512, 512, 4096, 1}, gpu), 2.0 * 64 * 64 * 4096 * 108 / 312e12 + 1e-6, 1e-12);
  // At half the efficiency the tile's FLOPs take twice as long; τ does not.
  const GpuSpec slow = a100({{64, 64}}, {0.5, 1e-6, 1, 0});
  EXPECT_NEAR(gemm_compute_seconds({512, 512, 4096, 1}, slow), 2 * 2.0 * 64 * 64 * 4096 * 108 / 312e12 + 1e-6,
              1e-12);
}

TEST(KernelTime, ALayerNormIsItsBytesAtTheHbmBandwidth) {
  // h = 4096, b = 1, s = 2048: LayerNorm reads and writes b·s·h bf16 elements, 4·4096·2048 =
  // 33 554 432 bytes; at 2.039 TB/s × 0.6 that is 27.427 µs.
  const Transformer m = gpt(4096, 32, 2048, 1);
  const std::vector<Kernel> kernels = layer_kernels(m, 1, false);
  const Kernel& norm = named(kernels, "layernorm1");
  EXPECT_EQ(norm.bytes, 33'554'432);
  EXPECT_EQ(norm.kind, OpKind::LayerNorm);
  EXPECT_NEAR(kernel_seconds(norm, a100({{256, 128}}, {1, 0, 0.6, 0})), 33'554'432 / (2.039e12 * 0.6), 1e-12);
  // A host that issues one kernel per 60 µs makes it a 60 µs kernel.
  EXPECT_DOUBLE_EQ(kernel_seconds(norm, a100({{256, 128}}, {1, 0, 0.6, 60e-6})), 60e-6);
}

TEST(KernelTime, AGemmIsNeverFasterThanItsOperandsCrossHbm) {
  // A thin GEMM, 16 × 16384 × 16384: 2·16·16384² = 8.6 GFLOP, 27.5 µs of compute at 312 TF/s on
  // 64×64 tiles (256 tiles: 3 waves, 3 × 2·64·64·16384·108/312e12 = 139.4 µs); its 16384² bf16 weight
  // alone is 537 MB, 263.3 µs at 2.039 TB/s — the GEMM is memory-bound.
  const Transformer m = gpt(16384, 128, 16, 1);
  const std::vector<Kernel> kernels = layer_kernels(m, 3, false);
  const Kernel& qkv = named(kernels, "qkv");  // 16 tokens × 3h/3 = h × h
  EXPECT_EQ(qkv.gemm.m, 16);
  EXPECT_EQ(qkv.gemm.n, 16384);
  EXPECT_EQ(qkv.gemm.k, 16384);
  EXPECT_EQ(qkv.bytes, 2.0 * (16 * 16384 + 16384.0 * 16384 + 16 * 16384));
  EXPECT_NEAR(kernel_seconds(qkv, a100({{64, 64}})), qkv.bytes / 2.039e12, 1e-12);
}

TEST(KernelInventory, TheLayerGemmsAreThePapersFlops) {
  // Narayanan et al. §5.1: a layer's forward is 24bsh² + 4bs²h FLOPs, the backward twice that, split
  // by pipegrid as I = 24bsh² + 8bs²h and W = 24bsh² (layer_costs.h); per GPU, 1/t of each.
  for (const int t : {1, 2, 8}) {
    const Transformer m = gpt(2048, 16, 1024, 4);
    const std::vector<Kernel> kernels = layer_kernels(m, t, false);
    const double b = 4, s = 1024, h = 2048;
    EXPECT_DOUBLE_EQ(gemm_flops(kernels, Pass::F), (24 * b * s * h * h + 4 * b * s * s * h) / t) << t;
    EXPECT_DOUBLE_EQ(gemm_flops(kernels, Pass::I), (24 * b * s * h * h + 8 * b * s * s * h) / t) << t;
    EXPECT_DOUBLE_EQ(gemm_flops(kernels, Pass::W), 24 * b * s * h * h / t) << t;
  }
}

TEST(KernelInventory, FullRecomputationRunsTheLayersForwardAgainInI) {
  // A 4-layer middle stage (no embedding, no head), t = 2: I's GEMM FLOPs are the layers' I plus their
  // F again; W is unchanged. 14 forward kernels per layer (the unfused attention path).
  Transformer m = gpt(1024, 16, 1024, 1);
  m.layers = 12;
  Parallelism par;
  par.tp = 2;
  par.pp = 3;
  par.recompute = Recompute::Full;
  const std::vector<StageCost> stages = stage_costs(m, par);
  const std::vector<Kernel> kernels = stage_kernels(m, par, stages[1], {});
  const double b = 1, s = 1024, h = 1024, layers = 4;
  const double f = (24 * b * s * h * h + 4 * b * s * s * h) / 2;
  EXPECT_DOUBLE_EQ(gemm_flops(kernels, Pass::F), layers * f);
  EXPECT_DOUBLE_EQ(gemm_flops(kernels, Pass::I), layers * ((24 * b * s * h * h + 8 * b * s * s * h) / 2 + f));
  int recomputed = 0;
  for (const Kernel& k : kernels) recomputed += k.recomputed ? 1 : 0;
  EXPECT_EQ(recomputed, 14);
  // The TP all-reduces are launches: 2 per layer forward, 4 per layer backward with recomputation.
  EXPECT_EQ(named(kernels, "tp_allreduce", Pass::F).count, 8);
  EXPECT_EQ(named(kernels, "tp_allreduce", Pass::I).count, 16);
}

TEST(KernelInventory, FlashAttentionIsOneCausalKernel) {
  // FlashAttention on a causal mask does half of the 4·b·s²·h/t forward FLOPs and 2.5 times that
  // backward, and moves no s×s matrix: no softmax or attention-dropout kernel is left.
  const Transformer m = gpt(2048, 16, 2048, 2);
  const std::vector<Kernel> kernels = layer_kernels(m, 2, true);
  const double b = 2, s = 2048, h = 2048;
  EXPECT_DOUBLE_EQ(named(kernels, "flash_attention").flops, 4 * b * s * s * h / 2 / 2);
  EXPECT_DOUBLE_EQ(named(kernels, "flash_attention.bwd", Pass::I).flops, 2.5 * 4 * b * s * s * h / 2 / 2);
  for (const Kernel& k : kernels) {
    EXPECT_NE(k.kind, OpKind::Softmax) << k.name;
    EXPECT_NE(k.name, "attention_dropout");
  }
  // At 312 TF/s and η = 1: 1.72e10 FLOPs in 55.1 µs, above the 33.6 MB of Q, K, V, O's 16.5 µs.
  EXPECT_NEAR(kernel_seconds(named(kernels, "flash_attention"), a100()), 4 * b * s * s * h / 4 / 312e12, 1e-12);
}

TEST(KernelInventory, RoutedExpertsAreAGroupedGemmOfTheirMeanTokens) {
  // 8 experts over ep = 2 GPUs, top-2, b·s = 1024 tokens per GPU: the 2 GPUs' 2·1024·2 assignments
  // spread over 8 experts, 512 tokens each; a GPU's 4 experts are one grouped GEMM of 4 × (512 × 2H_e
  // × h) for gate and up.
  Transformer m = gpt(1024, 16, 1024, 1);
  m.moe.experts = 8;
  m.moe.top_k = 2;
  m.moe.expert_hidden = 512;
  m.moe.ep = 2;
  Parallelism par;
  par.dp = 2;
  const std::vector<StageCost> stages = stage_costs(m, par);
  const std::vector<Kernel> kernels = stage_kernels(m, par, stages[0], {});
  const Kernel* gate_up = nullptr;
  for (const Kernel& k : kernels)
    if (k.name == "expert_gate_up" && k.pass == Pass::F && k.part == Part::Routed) gate_up = &k;
  ASSERT_NE(gate_up, nullptr);
  EXPECT_EQ(gate_up->gemm.m, 512);
  EXPECT_EQ(gate_up->gemm.n, 1024);
  EXPECT_EQ(gate_up->gemm.k, 1024);
  EXPECT_EQ(gate_up->gemm.batch, 4);
  EXPECT_EQ(gate_up->count, 4);  // the stage's 4 MoE layers
  // Per assignment, the routed GEMMs are one token through one expert of every layer: 2·3·h·H_e per
  // layer forward (layer_costs.h), with η = 1 and tiles dividing the shapes exactly.
  const StageCompute c = stage_compute(kernels, a100({{128, 128}}), 1024.0 * 2);
  double routed_gemm_seconds = 0;
  for (std::size_t k = 0; k < c.kernels.size(); ++k)
    if (c.kernels[k].part == Part::Routed && c.kernels[k].pass == Pass::F && c.kernels[k].gemm.batch > 0)
      routed_gemm_seconds += c.seconds[k];
  // Gate and up, 512×1024 in 128×128 tiles: 4 × 4·8 = 128 tiles, 2 waves on 108 SMs of K = 1024; down,
  // 512×1024 with K = 512, 2 waves of half the work. Both above their bytes (8.2 and 5.1 µs).
  const double wave = 2.0 * 128 * 128 * 1024 * 108 / 312e12;
  EXPECT_NEAR(routed_gemm_seconds, 4 * (2 * wave + wave), 1e-12);
}

TEST(KernelInventory, TheDistributedOptimizerUpdatesEachShardOverItsOwnGroup) {
  // 8 experts over ep = 2, d = 4: a GPU's 4 routed experts (3·h·H_e = 3·1024·512 each) are held by
  // edp = 4/2 = 2 GPUs, the rest of the stage by the d = 4 of the data-parallel group. Adam streams
  // 42 bytes per parameter of the GPU's shard.
  Transformer m = gpt(1024, 16, 1024, 1);
  m.moe.experts = 8;
  m.moe.top_k = 2;
  m.moe.expert_hidden = 512;
  m.moe.ep = 2;
  Parallelism par;
  par.dp = 4;
  const StageCost stage = stage_costs(m, par)[0];
  const double routed = 4.0 * 4 * 3 * 1024 * 512, dense = static_cast<double>(stage.parameters) - routed;
  ASSERT_EQ(static_cast<double>(stage.routed_parameters), routed);  // 4 layers × 4 experts
  const KernelOptions distributed{.optimizer_bytes_per_parameter = 42, .distributed_optimizer = true, .dp = 4};
  EXPECT_EQ(named(stage_kernels(m, par, stage, distributed), "adam", Pass::Step).bytes, (dense / 4 + routed / 2) * 42);
  const KernelOptions replicated{.optimizer_bytes_per_parameter = 42, .dp = 4};
  EXPECT_EQ(named(stage_kernels(m, par, stage, replicated), "adam", Pass::Step).bytes, (dense + routed) * 42);
}

TEST(KernelWork, SecondsBecomeWorkAtTheReferenceSpeed) {
  const Transformer m = gpt(1024, 16, 1024, 1);
  Parallelism par;
  const std::vector<StageCost> stages = stage_costs(m, par);
  const StageCompute c = stage_compute(stage_kernels(m, par, stages[0], {}), a100(), 0);
  const ComputeWork w = kernel_work(c, 312e12);
  EXPECT_DOUBLE_EQ(w.total.forward, c.dense.forward * 312e12);
  double forward = 0;
  for (std::size_t k = 0; k < c.kernels.size(); ++k)
    if (c.kernels[k].pass == Pass::F) forward += c.seconds[k];
  EXPECT_DOUBLE_EQ(c.dense.forward, forward);
  // The step's update: 42 bytes per parameter at 2.039 TB/s.
  EXPECT_NEAR(c.optimizer_seconds, static_cast<double>(stages[0].parameters) * 42 / 2.039e12, 1e-12);
}

}  // namespace
}  // namespace pipegrid::model
