// One layer's F, I and W and its parameters, counted by hand matmul by matmul on tiny shapes.
#include <gtest/gtest.h>

#include "sim/model/layer_costs.h"

namespace pipegrid::model {
namespace {

// b = 2 sequences of s = 4 tokens, h = 8, a = 2 heads, V = 16: b·s = 8 token rows.
Transformer tiny(std::optional<int> ffn = std::nullopt) {
  Transformer m;
  m.name = "tiny";
  m.layers = 2;
  m.hidden = 8;
  m.heads = 2;
  m.seq = 4;
  m.vocab = 16;
  m.micro_batch = 2;
  m.ffn_hidden = ffn;
  return m;
}

TEST(LayerCosts, OneLayerByHand) {
  // A (rows × k)·(k × n) matmul costs 2·rows·k·n. Rows = b·s = 8.
  const double qkv = 2 * 8 * 8 * 24;                // h → 3h
  const double scores = 2 * (2 * 2) * 4 * 4 * 4;   // b·a = 4 products (s × h/a)·(h/a × s)
  const double context = 2 * (2 * 2) * 4 * 4 * 4;  // b·a = 4 products (s × s)·(s × h/a)
  const double projection = 2 * 8 * 8 * 8;         // h → h
  const double mlp_up = 2 * 8 * 8 * 32;            // h → 4h
  const double mlp_down = 2 * 8 * 32 * 8;          // 4h → h
  const double weights = qkv + projection + mlp_up + mlp_down;
  const Flops f = layer_flops(tiny());
  EXPECT_EQ(f.forward, weights + scores + context);
  EXPECT_EQ(f.forward, 13312);  // 24·b·s·h² + 4·b·s²·h = 12288 + 1024
  // dX of each weight matmul costs its forward again (I), dW too (W); the scores and context matmuls
  // multiply two activations, so both their gradients are input gradients.
  EXPECT_EQ(f.backward_input, weights + 2 * (scores + context));
  EXPECT_EQ(f.backward_weight, weights);
  EXPECT_EQ(f.backward(), 2 * f.forward);
}

TEST(LayerCosts, NarrowerMlp) {
  const Flops f = layer_flops(tiny(16));
  const double weights = 2 * 8 * 8 * 24 + 2 * 8 * 8 * 8 + 2 * (2 * 8 * 8 * 16);
  EXPECT_EQ(f.forward, weights + 1024);
  EXPECT_EQ(f.backward_input, weights + 2048);
  EXPECT_EQ(f.backward_weight, weights);
}

TEST(LayerCosts, RecomputationRunsTheForwardAgainBeforeTheInputGradient) {
  const Flops f = recomputed(layer_flops(tiny()));
  EXPECT_EQ(f.forward, 13312);
  EXPECT_EQ(f.backward_input, 14336 + 13312);
  EXPECT_EQ(f.backward_weight, 12288);
}

TEST(LayerCosts, LmHeadIsOneMatmulAgainstTheVocabulary) {
  const Flops f = lm_head_flops(tiny());
  EXPECT_EQ(f.forward, 2 * 8 * 8 * 16);
  EXPECT_EQ(f.backward_input, f.forward);
  EXPECT_EQ(f.backward_weight, f.forward);
}

TEST(LayerCosts, ParametersByHand) {
  const std::int64_t qkv = 8 * 24 + 24, projection = 8 * 8 + 8, up = 8 * 32 + 32, down = 32 * 8 + 8,
                     layer_norms = 2 * (8 + 8);
  EXPECT_EQ(layer_parameters(tiny()), qkv + projection + up + down + layer_norms);
  EXPECT_EQ(layer_parameters(tiny()), 12 * 64 + 13 * 8);  // Megatron's 12h² + 13h
  EXPECT_EQ(word_embedding_parameters(tiny()), 16 * 8);
  EXPECT_EQ(position_embedding_parameters(tiny()), 4 * 8);
  EXPECT_EQ(parameter_count(tiny()), 2 * 872 + 128 + 32);
}

}  // namespace
}  // namespace pipegrid::model
