// FLOPs of a whole iteration, summed from the per-stage costs, against the published closed forms.
#include <gtest/gtest.h>

#include "sim/model/iteration_flops.h"
#include "sim/model/presets.h"
#include "sim/model/stage_cost.h"

namespace pipegrid::model {
namespace {

// Narayanan et al. (SC 2021), §5.1: hardware FLOPs per iteration with full recomputation.
double megatron_flops(const Transformer& m, double B) {
  const double s = m.seq, l = m.layers, h = m.hidden, V = m.vocab;
  return 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
}

// Korthikanti et al. (2022), Appendix A: model FLOPs per iteration, no recomputation.
double model_flops(const Transformer& m, double B) {
  const double s = m.seq, l = m.layers, h = m.hidden, V = m.vocab;
  return 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
}

// F + B of every stage, for every micro-batch, replica and tensor-parallel GPU.
double summed_stage_flops(const Transformer& m, const Parallelism& par, int microbatches) {
  double per_microbatch = 0;
  for (const StageCost& c : stage_costs(m, par)) per_microbatch += c.flops.total();
  return per_microbatch * microbatches * par.dp * par.tp;
}

struct TrainingRun {
  const char* model;
  int micro_batch, tp, pp, chunks, dp, microbatches;
};

// The 1T run of docs/reference.md (B = 1·512·6 = 3072), 530B on TP 8 × PP 35 (3 layers a stage), and 175B
// interleaved with micro-batches of 2. The identity holds for any layout: these just exercise it.
const TrainingRun kRuns[] = {
    {"gpt-1t", 1, 8, 64, 1, 6, 512},
    {"gpt-530b", 1, 8, 35, 1, 9, 280},
    {"gpt-175b", 2, 8, 8, 4, 4, 96},
};

TEST(IterationFlops, StageSumsWithFullRecomputeAreMegatronsFormula) {
  // The paper's 96Bslh²(1 + s/6h + V/16lh) is 4 forwards per layer (F, recomputed F, B = 2F) and 3 of
  // the LM head (6BshV): the head is not recomputed, and neither is it in our split.
  for (const TrainingRun& r : kRuns) {
    Transformer m = transformer_preset(r.model);
    m.micro_batch = r.micro_batch;
    Parallelism par{r.tp, r.pp, r.dp, r.chunks, true, Recompute::Full};
    const std::int64_t global_batch = std::int64_t{r.micro_batch} * r.microbatches * r.dp;
    const double expected = megatron_flops(m, static_cast<double>(global_batch));
    EXPECT_NEAR(summed_stage_flops(m, par, r.microbatches) / expected, 1, 1e-12) << r.model;
    EXPECT_NEAR(hardware_flops_per_iteration(m, global_batch, Recompute::Full, AttentionCount::Square) / expected, 1, 1e-12) << r.model;
  }
}

TEST(IterationFlops, TheOneTrillionRunDoesAbout51ExaFlopsPerIteration) {
  // By hand: 96 · 3072 · 2048 · 128 · 25600² = 5.0665e19, times (1 + 2048/153600 + 51200/52428800)
  // = 1.014310: 5.139e19 per iteration of 3072 sequences.
  const double flops = hardware_flops_per_iteration(transformer_preset("gpt-1t"), 3072, Recompute::Full, AttentionCount::Square);
  EXPECT_NEAR(flops / 5.139e19, 1, 0.001);
}

TEST(IterationFlops, WithoutRecomputationStageSumsAreTheModelFlops) {
  for (const TrainingRun& r : kRuns) {
    Transformer m = transformer_preset(r.model);
    m.micro_batch = r.micro_batch;
    Parallelism par{r.tp, r.pp, r.dp, r.chunks, false, Recompute::None};
    const std::int64_t global_batch = std::int64_t{r.micro_batch} * r.microbatches * r.dp;
    const double expected = model_flops(m, static_cast<double>(global_batch));
    EXPECT_NEAR(summed_stage_flops(m, par, r.microbatches) / expected, 1, 1e-12) << r.model;
    EXPECT_NEAR(model_flops_per_iteration(m, global_batch, AttentionCount::Square) / expected, 1, 1e-12) << r.model;
  }
}

TEST(IterationFlops, RecomputationAddsOneForwardPerLayerAndNoneForTheHead) {
  const Transformer m = transformer_preset("gpt-175b");
  const double B = 1536, s = 2048, l = 96, h = 12288;
  const double extra = hardware_flops_per_iteration(m, 1536, Recompute::Full, AttentionCount::Square) -
                       model_flops_per_iteration(m, 1536, AttentionCount::Square);
  EXPECT_NEAR(extra / (B * l * (24 * s * h * h + 4 * s * s * h)), 1, 1e-12);
}

// The causal count halves the s/(6h) term: NeMo's gpt3_flops (nemo/utils/flops_formulas.py,
// causal_self_attn 0.5), (24·B·s·h² + 4·B·s²·h·½)·3·l + 6·B·s·h·V = 72·B·s·l·h²·(1 + s/(12h) + V/(12lh)),
// and with full recomputation 96·B·s·l·h²·(1 + s/(12h) + V/(16lh)). At 128K tokens the square is most
// of the work: Llama-3.1-8B's causal count is 0.59 of the whole square's.
TEST(IterationFlops, CausalAttentionCountsHalfTheSquareAsNeMoDoes) {
  for (const char* name : {"gpt-1.7b", "gpt-175b", "gpt-1t"}) {
    const Transformer m = transformer_preset(name);
    const double B = 64, s = m.seq, l = m.layers, h = m.hidden, V = m.vocab;
    EXPECT_NEAR(model_flops_per_iteration(m, 64, AttentionCount::Causal) /
                    (72 * B * s * l * h * h * (1 + s / (12 * h) + V / (12 * l * h))),
                1, 1e-12)
        << name;
    EXPECT_NEAR(hardware_flops_per_iteration(m, 64, Recompute::Full, AttentionCount::Causal) /
                    (96 * B * s * l * h * h * (1 + s / (12 * h) + V / (16 * l * h))),
                1, 1e-12)
        << name;
  }
  Transformer llama = transformer_preset("llama3.1-8b");
  llama.seq = 131072;
  const double ratio = model_flops_per_iteration(llama, 1, AttentionCount::Causal) /
                       model_flops_per_iteration(llama, 1, AttentionCount::Square);
  EXPECT_GT(ratio, 0.5);
  EXPECT_LT(ratio, 0.6);
}

}  // namespace
}  // namespace pipegrid::model
