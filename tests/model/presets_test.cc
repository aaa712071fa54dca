// The presets against the parameter counts their sources print, and the cost model's count against
// the paper's closed form.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/model/layer_costs.h"
#include "sim/model/presets.h"

namespace pipegrid::model {
namespace {

// Narayanan et al. (SC 2021), §5.1: P = 12·l·h²·(1 + 13/(12h) + (V + s)/(12·l·h)), tied embeddings.
double paper_parameter_count(const Transformer& m) {
  const double l = m.layers, h = m.hidden, V = m.vocab, s = m.seq;
  return 12 * l * h * h * (1 + 13 / (12 * h) + (V + s) / (12 * l * h));
}

TEST(Presets, ParameterCountsMatchTheTablesToTheirPrintedDigit) {
  // Table 1 prints billions to one decimal (1008.0 for the 1T model): ours must round to the same.
  for (const TransformerPreset& preset : transformer_presets()) {
    if (preset.model.moe.enabled()) continue;  // DeepSeek-V3: its own test below
    const double count = static_cast<double>(parameter_count(preset.model));
    EXPECT_LE(std::abs(count - preset.published_parameters), 0.05e9)
        << preset.model.name << ": " << count << " vs " << preset.published_parameters << " ("
        << preset.source << ")";
  }
}

TEST(Presets, TheirNamesAreWhatTheyHold) {
  EXPECT_NEAR(static_cast<double>(parameter_count(transformer_preset("gpt-175b"))) / 175e9, 1, 0.02);
  EXPECT_NEAR(static_cast<double>(parameter_count(transformer_preset("gpt-1t"))) / 1.0e12, 1, 0.02);
  EXPECT_NEAR(static_cast<double>(parameter_count(transformer_preset("gpt-530b"))) / 530e9, 1, 0.02);
}

TEST(Presets, DeepSeekV3HoldsItsPublishedParametersWithinThreePercent) {
  // 671 B in the report; ours counts its multi-head latent attention as multi-head attention.
  const double count = static_cast<double>(parameter_count(transformer_preset("deepseek-v3")));
  EXPECT_NEAR(count / 671e9, 1, 0.03) << count;
}

TEST(Presets, ParameterCountIsThePapersClosedForm) {
  for (const TransformerPreset& preset : transformer_presets()) {
    const Transformer& m = preset.model;
    if (m.moe.enabled()) continue;
    const double count = static_cast<double>(parameter_count(m));
    EXPECT_NEAR(count / paper_parameter_count(m), 1, 1e-12) << m.name;
    // The same expanded in integers: 12lh² + 13lh + (V + s)h, exactly.
    const std::int64_t l = m.layers, h = m.hidden, V = m.vocab, s = m.seq;
    EXPECT_EQ(parameter_count(m), 12 * l * h * h + 13 * l * h + (V + s) * h) << m.name;
  }
}

TEST(Presets, TheOneTrillionRunIsTheReferenceShape) {
  // docs/reference.md, "Megatron-LM at scale": 128 layers, hidden 25600, 160 heads, sequence 2048, vocabulary 51200.
  const Transformer m = transformer_preset("gpt-1t");
  EXPECT_EQ(m.name, "gpt-1t");
  EXPECT_EQ(m.layers, 128);
  EXPECT_EQ(m.hidden, 25600);
  EXPECT_EQ(m.heads, 160);
  EXPECT_EQ(m.seq, 2048);
  EXPECT_EQ(m.vocab, 51200);
  EXPECT_EQ(m.micro_batch, 1);
  EXPECT_EQ(m.ffn(), 4 * 25600);
  EXPECT_TRUE(m.tied_embeddings);
}

TEST(Presets, EveryPresetIsAValidModel) {
  for (const TransformerPreset& preset : transformer_presets())
    EXPECT_NO_THROW(preset.model.validate()) << preset.model.name;
}

TEST(Presets, AnUntiedHeadAddsItsOwnMatrix) {
  Transformer m = transformer_preset("gpt-175b");
  const std::int64_t tied = parameter_count(m);
  m.tied_embeddings = false;
  EXPECT_EQ(parameter_count(m) - tied, std::int64_t{51200} * 12288);
}

}  // namespace
}  // namespace pipegrid::model
