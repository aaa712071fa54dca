// Bad model specs and layouts: one line naming the flag and the rule, asserted word for word.
#include <gtest/gtest.h>

#include <stdexcept>

#include "sim/model/iteration_flops.h"
#include "sim/model/presets.h"
#include "sim/model/stage_cost.h"
#include "error_of.h"

namespace pipegrid::model {
namespace {

using test_support::error_of;

Transformer small() {
  Transformer m;
  m.name = "small";
  m.layers = 8;
  m.hidden = 256;
  m.heads = 4;
  m.seq = 128;
  m.vocab = 1000;
  return m;
}

std::string spec_error(void (*edit)(Transformer&)) {
  Transformer m = small();
  edit(m);
  return error_of([&] { stage_costs(m, {}); });
}

std::string layout_error(const Transformer& m, Parallelism par) {
  return error_of([&] { stage_costs(m, par); });
}

TEST(ModelErrors, UnknownPresetListsTheKnownOnes) {
  EXPECT_EQ(error_of([] { transformer_preset("gpt-9t"); }),
            "--model gpt-9t: unknown model; known: gpt-1.7b, gpt-3.6b, gpt-7.5b, gpt-18b, gpt-39b, gpt-76b, "
            "gpt-145b, gpt-175b, gpt-310b, gpt-530b, gpt-1t, llama3.1-8b, llama3.1-70b, "
            "llama3.1-405b, nemotron4-15b, nemotron4-340b, mixtral-8x7b, mixtral-8x22b, qwen3-235b-a22b, deepseek-v3");
}

TEST(ModelErrors, SpecFieldsMustBePositive) {
  EXPECT_EQ(spec_error([](Transformer& m) { m.layers = 0; }), "--layers 0: must be positive");
  EXPECT_EQ(spec_error([](Transformer& m) { m.hidden = -256; }), "--hidden -256: must be positive");
  EXPECT_EQ(spec_error([](Transformer& m) { m.heads = 0; }), "--heads 0: must be positive");
  EXPECT_EQ(spec_error([](Transformer& m) { m.seq = 0; }), "--seq 0: must be positive");
  EXPECT_EQ(spec_error([](Transformer& m) { m.vocab = -1; }), "--vocab -1: must be positive");
  EXPECT_EQ(spec_error([](Transformer& m) { m.micro_batch = 0; }), "--micro-batch 0: must be positive");
  EXPECT_EQ(spec_error([](Transformer& m) { m.ffn_hidden = 0; }), "--ffn-hidden 0: must be positive");
}

TEST(ModelErrors, HeadsMustDivideHidden) {
  EXPECT_EQ(spec_error([](Transformer& m) { m.heads = 7; }), "--heads 7: must divide --hidden 256 (or give --head-dim)");
}

TEST(ModelErrors, LayoutSizesBelowOneAreTheCallersBug) {
  // The option schema refuses them with the user's one line; past it they are a bug (exit 70).
  EXPECT_THROW(stage_costs(small(), {.tp = 0}), std::invalid_argument);
  EXPECT_THROW(stage_costs(small(), {.pp = 0}), std::invalid_argument);
  EXPECT_THROW(stage_costs(small(), {.dp = -2}), std::invalid_argument);
  EXPECT_THROW(stage_costs(small(), {.chunks = 0}), std::invalid_argument);
}

TEST(ModelErrors, TensorParallelMustSplitHeadsAndMlp) {
  EXPECT_EQ(layout_error(small(), {.tp = 3}), "--tp 3: must divide --heads 4");
  EXPECT_EQ(layout_error(transformer_preset("gpt-1t"), {.tp = 3, .pp = 64}), "--tp 3: must divide --heads 160");
  Transformer odd_mlp = small();
  odd_mlp.ffn_hidden = 1002;
  EXPECT_EQ(layout_error(odd_mlp, {.tp = 4}), "--tp 4: must divide --ffn-hidden 1002");
}

TEST(ModelErrors, LayersMustSplitEvenlyOverStages) {
  Transformer m = transformer_preset("gpt-1t");
  m.layers = 127;
  EXPECT_EQ(layout_error(m, {.tp = 8, .pp = 64, .dp = 6}),
            "--layers 127: must split evenly over 64 stages (--pp 64 × --chunks 1)");
  EXPECT_EQ(layout_error(small(), {.pp = 4, .chunks = 3}),
            "--layers 8: must split evenly over 12 stages (--pp 4 × --chunks 3)");
}

TEST(ModelErrors, GlobalBatchAndPrecision) {
  EXPECT_EQ(error_of([] { model_flops_per_iteration(small(), 0, AttentionCount::Square); }), "--global-batch 0: must be positive");
  EXPECT_EQ(error_of([] { stage_costs(small(), {}, {.activation_bytes = 0}); }),
            "--activation-bytes 0: must be positive");
  EXPECT_EQ(error_of([] { stage_costs(small(), {}, {.gradient_bytes = -4}); }),
            "--gradient-bytes -4: must be positive");
}

}  // namespace
}  // namespace pipegrid::model
