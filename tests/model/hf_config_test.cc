// The Hugging Face config reader against hand-written configs, one per architecture: every field it
// maps lands where the transformers class puts it, the class's default where a field is absent, and
// every refusal is the one line that names the field.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/input_error.h"
#include "sim/model/hf_config.h"
#include "sim/model/layer_costs.h"
#include "tests/support/temp_files.h"

namespace pipegrid::model {
namespace {

Transformer read(const std::string& json) { return parse_hf_config(json, "c.json", "m"); }

std::string refusal(const std::string& json) {
  try {
    read(json);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(HfConfig, LlamaIsGroupedQueryAttentionWithSwiGluRmsNormRopeAndNoBiases) {
  const Transformer m = read(R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 4096,
      "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336,
      "vocab_size": 128256, "hidden_act": "silu", "attention_bias": false, "mlp_bias": false,
      "tie_word_embeddings": false, "attention_dropout": 0.0, "max_position_embeddings": 131072})");
  EXPECT_EQ(m.name, "m");
  EXPECT_EQ(m.layers, 32);
  EXPECT_EQ(m.hidden, 4096);
  EXPECT_EQ(m.heads, 32);
  EXPECT_EQ(m.kv_heads, 8);
  EXPECT_EQ(m.head_dim, std::nullopt);  // 4096 / 32
  EXPECT_EQ(m.head_width(), 128);
  EXPECT_EQ(m.ffn(), 14336);
  EXPECT_EQ(m.vocab, 128256);
  EXPECT_EQ(m.seq, 0);  // max_position_embeddings is not the training sequence
  EXPECT_EQ(m.mlp, Mlp::Swiglu);
  EXPECT_EQ(m.norm, Norm::RmsNorm);
  EXPECT_EQ(m.positions, Positions::Rope);
  EXPECT_FALSE(m.linear_bias);
  EXPECT_FALSE(m.qkv_bias);
  EXPECT_FALSE(m.dropout);
  EXPECT_FALSE(m.tied_embeddings);
  EXPECT_FALSE(m.moe.enabled());
  EXPECT_FALSE(m.mla.enabled());
}

TEST(HfConfig, LlamaDefaultsAreLlamaConfigs) {
  // LlamaConfig: num_key_value_heads = num_attention_heads, head_dim = hidden / heads, no biases,
  // tie_word_embeddings false, attention_dropout 0.
  const Transformer m = read(R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 64,
      "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100})");
  EXPECT_EQ(m.query_groups(), 4);
  EXPECT_EQ(m.head_width(), 16);
  EXPECT_FALSE(m.tied_embeddings);
  EXPECT_FALSE(m.qkv_bias);
  EXPECT_FALSE(m.dropout);
  // Biases, a head width of its own, tied embeddings and dropout as the config gives them.
  const Transformer b = read(R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 64,
      "num_hidden_layers": 2, "num_attention_heads": 4, "head_dim": 32, "intermediate_size": 128,
      "vocab_size": 100, "attention_bias": true, "mlp_bias": true, "tie_word_embeddings": true,
      "attention_dropout": 0.1})");
  EXPECT_EQ(b.head_dim, 32);
  EXPECT_TRUE(b.qkv_bias);
  EXPECT_TRUE(b.linear_bias);
  EXPECT_TRUE(b.tied_embeddings);
  EXPECT_TRUE(b.dropout);
}

TEST(HfConfig, MistralHasAHeadWidthOfItsOwn) {
  // Mistral-Nemo's shape: hidden 5120, 32 heads of 128 (not 160).
  const Transformer m = read(R"({"architectures": ["MistralForCausalLM"], "hidden_size": 5120,
      "num_hidden_layers": 40, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
      "intermediate_size": 14336, "vocab_size": 131072, "sliding_window": null})");
  EXPECT_EQ(m.head_dim, 128);
  EXPECT_EQ(m.kv_heads, 8);
  EXPECT_EQ(m.mlp, Mlp::Swiglu);
  EXPECT_FALSE(m.qkv_bias);
  // Q 5120 → 4096, K and V 5120 → 1024 each, O 4096 → 5120.
  EXPECT_DOUBLE_EQ(attention_weight_macs(m), 5120.0 * (4096 + 2 * 1024) + 4096.0 * 5120);
}

TEST(HfConfig, MixtralsExpertsAreItsMlps) {
  const Transformer m = read(R"({"architectures": ["MixtralForCausalLM"], "hidden_size": 4096,
      "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336,
      "vocab_size": 32000, "num_local_experts": 8, "num_experts_per_tok": 2})");
  EXPECT_EQ(m.moe.experts, 8);
  EXPECT_EQ(m.moe.top_k, 2);
  EXPECT_EQ(m.moe.expert_hidden, 14336);
  EXPECT_EQ(m.moe.shared_experts, 0);
  EXPECT_EQ(m.moe.first_dense_layers, 0);
  // MixtralConfig's defaults: 8 experts, 2 per token.
  const Transformer d = read(R"({"architectures": ["MixtralForCausalLM"], "hidden_size": 64,
      "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100})");
  EXPECT_EQ(d.moe.experts, 8);
  EXPECT_EQ(d.moe.top_k, 2);
}

TEST(HfConfig, Qwen2KeepsItsQkvBiasWhateverTheConfigSays) {
  const Transformer m = read(R"({"architectures": ["Qwen2ForCausalLM"], "hidden_size": 3584,
      "num_hidden_layers": 28, "num_attention_heads": 28, "num_key_value_heads": 4, "intermediate_size": 18944,
      "vocab_size": 152064, "tie_word_embeddings": false, "use_sliding_window": false})");
  EXPECT_TRUE(m.qkv_bias);
  EXPECT_FALSE(m.linear_bias);
  EXPECT_EQ(m.kv_heads, 4);
  // The biases of q (3584) and of k and v (4 × 128 each): 4608 parameters a layer.
  Transformer unbiased = m;
  unbiased.qkv_bias = false;
  EXPECT_EQ(attention_parameters(m) - attention_parameters(unbiased), 3584 + 2 * 4 * 128);
}

TEST(HfConfig, Qwen2MoeCountsItsSharedExpertInExpertWidths) {
  // Qwen1.5-MoE-A2.7B's shape: a shared expert of 5632 = 4 × 1408.
  const Transformer m = read(R"({"architectures": ["Qwen2MoeForCausalLM"], "hidden_size": 2048,
      "num_hidden_layers": 24, "num_attention_heads": 16, "intermediate_size": 5632, "moe_intermediate_size": 1408,
      "shared_expert_intermediate_size": 5632, "num_experts": 60, "num_experts_per_tok": 4,
      "decoder_sparse_step": 1, "mlp_only_layers": [], "vocab_size": 151936})");
  EXPECT_EQ(m.moe.experts, 60);
  EXPECT_EQ(m.moe.top_k, 4);
  EXPECT_EQ(m.moe.expert_hidden, 1408);
  EXPECT_EQ(m.moe.shared_experts, 4);
  EXPECT_TRUE(m.qkv_bias);
}

TEST(HfConfig, Qwen3HasHeadDim128ByDefault) {
  // Qwen3Config's head_dim defaults to 128, not hidden / heads.
  const Transformer m = read(R"({"architectures": ["Qwen3ForCausalLM"], "hidden_size": 2560,
      "num_hidden_layers": 36, "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 9728,
      "vocab_size": 151936, "tie_word_embeddings": true})");
  EXPECT_EQ(m.head_dim, 128);
  EXPECT_TRUE(m.tied_embeddings);
  EXPECT_FALSE(m.qkv_bias);
}

TEST(HfConfig, Qwen3MoeLeadingDenseLayersAreFirstDenseLayers) {
  const Transformer m = read(R"({"architectures": ["Qwen3MoeForCausalLM"], "hidden_size": 2048,
      "num_hidden_layers": 48, "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128,
      "intermediate_size": 6144, "moe_intermediate_size": 768, "num_experts": 128, "num_experts_per_tok": 8,
      "mlp_only_layers": [0, 1], "vocab_size": 151936})");
  EXPECT_EQ(m.moe.first_dense_layers, 2);
  EXPECT_EQ(m.ffn(), 6144);
  EXPECT_EQ(m.moe.expert_hidden, 768);
  EXPECT_EQ(m.moe.shared_experts, 0);
  EXPECT_EQ(m.head_dim, 128);  // 32 × 128 = 4096, not the hidden 2048
}

TEST(HfConfig, DeepSeekV3MapsLatentAttentionAndGroupLimitedRouting) {
  const Transformer m = read(R"({"architectures": ["DeepseekV3ForCausalLM"], "hidden_size": 7168,
      "num_hidden_layers": 61, "num_attention_heads": 128, "num_key_value_heads": 128, "intermediate_size": 18432,
      "moe_intermediate_size": 2048, "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 8,
      "first_k_dense_replace": 3, "n_group": 8, "topk_group": 4, "q_lora_rank": 1536, "kv_lora_rank": 512,
      "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128, "vocab_size": 129280})");
  EXPECT_EQ(m.mla.q_lora_rank, 1536);
  EXPECT_EQ(m.mla.kv_lora_rank, 512);
  EXPECT_EQ(m.mla.qk_rope_head_dim, 64);
  EXPECT_EQ(m.mla.qk_nope_head_dim, 128);
  EXPECT_EQ(m.mla.v_head_dim, 128);
  EXPECT_EQ(m.kv_heads, std::nullopt);
  EXPECT_EQ(m.moe.first_dense_layers, 3);
  EXPECT_EQ(m.moe.max_nodes_per_token, 4);
  EXPECT_EQ(m.moe.shared_experts, 1);
  EXPECT_EQ(m.ffn(), 18432);
  // DeepSeek-V2-Lite: q_lora_rank null projects the queries directly.
  const Transformer lite = read(R"({"architectures": ["DeepseekV3ForCausalLM"], "hidden_size": 2048,
      "num_hidden_layers": 27, "num_attention_heads": 16, "intermediate_size": 10944, "moe_intermediate_size": 1408,
      "n_routed_experts": 64, "n_shared_experts": 2, "num_experts_per_tok": 6, "first_k_dense_replace": 1,
      "n_group": 1, "topk_group": 1, "q_lora_rank": null, "kv_lora_rank": 512, "qk_rope_head_dim": 64,
      "qk_nope_head_dim": 128, "v_head_dim": 128, "vocab_size": 102400})");
  EXPECT_EQ(lite.mla.q_lora_rank, 0);
  EXPECT_EQ(lite.moe.max_nodes_per_token, 0);  // one group: no limit
  Transformer trained = lite;
  trained.seq = 4096;
  EXPECT_NO_THROW(trained.validate());
}

TEST(HfConfig, NemotronIsSquaredReluWithLayerNorm) {
  const Transformer m = read(R"({"architectures": ["NemotronForCausalLM"], "hidden_size": 6144,
      "num_hidden_layers": 32, "num_attention_heads": 48, "num_key_value_heads": 8, "intermediate_size": 24576,
      "vocab_size": 256000, "hidden_act": "relu2", "partial_rotary_factor": 0.5})");
  EXPECT_EQ(m.mlp, Mlp::SquaredRelu);
  EXPECT_EQ(m.norm, Norm::LayerNorm);
  EXPECT_EQ(m.positions, Positions::Rope);
  EXPECT_FALSE(m.linear_bias);
  EXPECT_FALSE(m.tied_embeddings);
  // Two matrices, not three: 2 · 6144 · 24576 multiply-adds per token.
  EXPECT_DOUBLE_EQ(mlp_weight_macs(m, m.ffn()), 2.0 * 6144 * 24576);
}

TEST(HfConfig, Gpt2IsTheOriginalLayerWithItsOwnSequence) {
  const Transformer m = read(R"({"architectures": ["GPT2LMHeadModel"], "n_embd": 768, "n_layer": 12,
      "n_head": 12, "n_positions": 1024, "vocab_size": 50257, "activation_function": "gelu_new"})");
  EXPECT_EQ(m.hidden, 768);
  EXPECT_EQ(m.layers, 12);
  EXPECT_EQ(m.heads, 12);
  EXPECT_EQ(m.seq, 1024);
  EXPECT_EQ(m.ffn(), 4 * 768);
  EXPECT_EQ(m.mlp, Mlp::Gelu);
  EXPECT_EQ(m.norm, Norm::LayerNorm);
  EXPECT_EQ(m.positions, Positions::Learned);
  EXPECT_TRUE(m.linear_bias);
  EXPECT_TRUE(m.qkv_bias);
  EXPECT_TRUE(m.dropout);  // GPT2Config's 0.1
  EXPECT_TRUE(m.tied_embeddings);
  // GPT-2 small: 124,439,808 parameters (12 layers of 12h² + 13h, (V + s)·h tied), less its final
  // LayerNorm's 1536, which the count leaves out as the paper's formula does.
  EXPECT_EQ(parameter_count(m), 124'439'808 - 2 * 768);
}

TEST(HfConfig, RefusesWhatItCannotReadInOneLineNamingTheField) {
  const std::string llama = R"("architectures": ["LlamaForCausalLM"], "num_hidden_layers": 2,
      "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100)";
  EXPECT_EQ(refusal("{" + llama + "}"), "c.json: hidden_size: missing");
  EXPECT_EQ(refusal("{" + llama + R"(, "hidden_size": "64"})"),
            "c.json: hidden_size: a string, must be a whole number from 1 to 1048576");
  EXPECT_EQ(refusal("{" + llama + R"(, "hidden_size": 64.5})"),
            "c.json: hidden_size: 64.5 must be a whole number from 1 to 1048576");
  EXPECT_EQ(refusal("{" + llama + R"(, "hidden_size": 0})"),
            "c.json: hidden_size: 0 must be a whole number from 1 to 1048576");
  EXPECT_EQ(refusal("{" + llama + R"(, "hidden_size": 18446744073709551615})"),
            "c.json: hidden_size: 18446744073709551615 must be a whole number from 1 to 1048576");
  EXPECT_EQ(refusal("{" + llama + R"(, "hidden_size": 64, "num_key_value_heads": 3})"),
            "c.json: num_key_value_heads: 3 must divide num_attention_heads 4");
  EXPECT_EQ(refusal("{" + llama + R"(, "hidden_size": 64, "tie_word_embeddings": 1})"),
            "c.json: tie_word_embeddings: a number, must be true or false");
  EXPECT_EQ(refusal("{" + llama + R"(, "hidden_size": 64, "attention_dropout": 2})"),
            "c.json: attention_dropout: 2 must be from 0 to 1");
  EXPECT_EQ(refusal("{" + llama + R"(, "hidden_size": 64, "hidden_act": "gelu"})"),
            "c.json: hidden_act: gelu: LlamaForCausalLM's gated MLP is modelled as SwiGLU, whose gate is silu");
  EXPECT_EQ(refusal("{" + llama + R"(, "hidden_size": 64, "mlp_bias": true})"),
            "c.json: mlp_bias: true without attention_bias: the model describes MLP biases only with every linear "
            "layer's");
  EXPECT_EQ(refusal("{" + llama + R"(, "hidden_size": 66})"),
            "c.json: num_attention_heads: 4 must divide hidden_size 66 when head_dim is not given");
  EXPECT_EQ(refusal(R"({"architectures": ["Foo"]})"),
            "c.json: architectures: Foo is not one of LlamaForCausalLM, MistralForCausalLM, MixtralForCausalLM, "
            "Qwen2ForCausalLM, Qwen2MoeForCausalLM, Qwen3ForCausalLM, Qwen3MoeForCausalLM, DeepseekV3ForCausalLM, "
            "NemotronForCausalLM, GPT2LMHeadModel");
  EXPECT_EQ(refusal(R"({"hidden_size": 64})"), "c.json: architectures: missing");
  EXPECT_EQ(refusal(R"({"architectures": []})"),
            "c.json: architectures: must be an array of class names, e.g. [\"LlamaForCausalLM\"]");
  EXPECT_EQ(refusal(R"({"architectures": "LlamaForCausalLM"})"),
            "c.json: architectures: must be an array of class names, e.g. [\"LlamaForCausalLM\"]");
  EXPECT_EQ(refusal("{\"architectures\": [\"A\\nB\"]}").find('\n'), std::string::npos);  // one line
  EXPECT_EQ(refusal(R"({"architectures": ["LlamaForCausalLM"],)"), "c.json: not valid JSON");
  EXPECT_EQ(refusal(""), "c.json: not valid JSON");
  EXPECT_EQ(refusal("[1, 2]"), "c.json: must be a JSON object of fields");
  EXPECT_EQ(refusal(std::string(100'000, '[') + std::string(100'000, ']')), "c.json: must be a JSON object of fields");
}

TEST(HfConfig, RefusesShapesTheModelCannotExpress) {
  const std::string qwen3_moe = R"("architectures": ["Qwen3MoeForCausalLM"], "hidden_size": 64,
      "num_hidden_layers": 4, "num_attention_heads": 4, "intermediate_size": 128, "moe_intermediate_size": 32,
      "num_experts": 8, "vocab_size": 100)";
  EXPECT_EQ(refusal("{" + qwen3_moe + R"(, "decoder_sparse_step": 2})"),
            "c.json: decoder_sparse_step: 2: only every layer sparse (1) is modelled");
  EXPECT_EQ(refusal("{" + qwen3_moe + R"(, "mlp_only_layers": [1]})"),
            "c.json: mlp_only_layers: only the first layers dense, [0, 1, …, k − 1], is modelled");
  EXPECT_EQ(refusal("{" + qwen3_moe + R"(, "mlp_only_layers": [0, 1, 2, 3]})"),
            "c.json: mlp_only_layers: 4 dense layers of 4: use the dense architecture");
  EXPECT_EQ(refusal("{" + qwen3_moe + R"(, "mlp_only_layers": "0"})"),
            "c.json: mlp_only_layers: a string, must be an array of whole numbers");
  EXPECT_EQ(refusal("{" + qwen3_moe + R"(, "num_experts_per_tok": 9})"),
            "c.json: num_experts_per_tok: 9 must be from 1 to 8 (num_experts)");
  EXPECT_EQ(refusal("{" + qwen3_moe + R"(, "use_sliding_window": true})"),
            "c.json: use_sliding_window: sliding-window attention is not modelled: every layer attends to the whole "
            "sequence");
  EXPECT_EQ(refusal(R"({"architectures": ["MistralForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2,
      "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100, "sliding_window": 4096})"),
            "c.json: sliding_window: sliding-window attention is not modelled: every layer attends to the whole "
            "sequence");
  EXPECT_EQ(refusal(R"({"architectures": ["Qwen2MoeForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2,
      "num_attention_heads": 4, "moe_intermediate_size": 32, "shared_expert_intermediate_size": 48,
      "num_experts": 8, "vocab_size": 100})"),
            "c.json: shared_expert_intermediate_size: 48 must be a multiple of moe_intermediate_size 32 (shared "
            "experts of its width)");
  const std::string deepseek = R"("architectures": ["DeepseekV3ForCausalLM"], "hidden_size": 64,
      "num_hidden_layers": 4, "num_attention_heads": 4, "intermediate_size": 128, "moe_intermediate_size": 32,
      "n_routed_experts": 8, "q_lora_rank": 16, "qk_rope_head_dim": 8, "qk_nope_head_dim": 16,
      "v_head_dim": 16, "vocab_size": 100)";
  EXPECT_EQ(refusal("{" + deepseek + "}"), "c.json: kv_lora_rank: missing");
  EXPECT_EQ(refusal("{" + deepseek + R"(, "kv_lora_rank": 32, "moe_layer_freq": 2})"),
            "c.json: moe_layer_freq: 2: only every layer after the dense ones sparse (1) is modelled");
  EXPECT_EQ(refusal("{" + deepseek + R"(, "kv_lora_rank": 32, "first_k_dense_replace": 4})"),
            "c.json: first_k_dense_replace: 4 dense layers of 4");
  EXPECT_EQ(refusal("{" + deepseek + R"(, "kv_lora_rank": 32, "attention_bias": true})"),
            "c.json: attention_bias: true: multi-head latent attention is modelled without biases");
  EXPECT_EQ(refusal("{" + deepseek + R"(, "kv_lora_rank": 32, "num_key_value_heads": 2})"),
            "c.json: num_key_value_heads: multi-head latent attention has one key and value per query head");
  EXPECT_EQ(refusal(R"({"architectures": ["NemotronForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2,
      "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100, "hidden_act": "silu"})"),
            "c.json: hidden_act: silu: NemotronForCausalLM's MLP is modelled as relu2 or gelu");
  EXPECT_EQ(refusal(R"({"architectures": ["GPT2LMHeadModel"], "n_embd": 64, "n_layer": 2, "n_head": 4,
      "vocab_size": 100, "activation_function": "relu"})"),
            "c.json: activation_function: relu: GPT-2's MLP is modelled with a GeLU");
}

TEST(HfConfig, AFileIsARegularFileOfAtMostOneMebibyteNamedAfterItsFolder) {
  const std::string dir = test_support::fresh_dir("hf_config_file");
  std::filesystem::create_directories(dir + "/tiny-llama");
  const std::string config = dir + "/tiny-llama/config.json";
  std::ofstream(config) << R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2,
      "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100})";
  EXPECT_EQ(read_hf_config(config).name, "tiny-llama");
  std::filesystem::copy_file(config, dir + "/other.json");
  EXPECT_EQ(read_hf_config(dir + "/other.json").name, "other");
  const auto error_of = [](const std::string& path) {
    try {
      read_hf_config(path);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(error_of(dir), "--hf-config " + dir + ": not a regular file (or missing)");
  EXPECT_EQ(error_of(dir + "/none.json"), "--hf-config " + dir + "/none.json: not a regular file (or missing)");
  std::ofstream(dir + "/big.json") << std::string((1 << 20) + 1, ' ');
  EXPECT_EQ(error_of(dir + "/big.json"),
            "--hf-config " + dir + "/big.json: larger than 1 MiB; a config.json is a few dozen lines");
}

}  // namespace
}  // namespace pipegrid::model
