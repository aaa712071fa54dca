#include "sim/model/hf_config.h"

#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <sstream>

#include "common/input_error.h"
#include "common/message_text.h"
#include "sim/model/hf_fields.h"

namespace pipegrid::model {

namespace {

// The ranges of the matching flags (sim/input/option_schema.cc).
constexpr SizeRange kLayers{1, 100'000};
constexpr SizeRange kHidden{1, 1 << 20};
constexpr SizeRange kHeads{1, 1 << 16};
constexpr SizeRange kVocab{1, 1 << 24};
constexpr SizeRange kWidth{1, 1 << 24};  // an MLP's or expert's inner width, a sequence
constexpr SizeRange kRank{0, 1 << 20};   // MLA's ranks and head widths; 0 where allowed
constexpr SizeRange kCount{0, 1 << 16};  // experts, layers of a pattern

enum class Family { Llama, Mistral, Mixtral, Qwen2, Qwen2Moe, Qwen3, Qwen3Moe, DeepseekV3, Nemotron, Gpt2 };

constexpr Named<Family> kFamilies[] = {
    {"LlamaForCausalLM", Family::Llama},       {"MistralForCausalLM", Family::Mistral},
    {"MixtralForCausalLM", Family::Mixtral},   {"Qwen2ForCausalLM", Family::Qwen2},
    {"Qwen2MoeForCausalLM", Family::Qwen2Moe}, {"Qwen3ForCausalLM", Family::Qwen3},
    {"Qwen3MoeForCausalLM", Family::Qwen3Moe}, {"DeepseekV3ForCausalLM", Family::DeepseekV3},
    {"NemotronForCausalLM", Family::Nemotron}, {"GPT2LMHeadModel", Family::Gpt2}};

// Gated families: their MLP is down(act(gate(x)) · up(x)); the description has SwiGLU's gate only.
void check_gated_act(const HfFields& f, std::string_view arch) {
  const std::string act = f.text_or("hidden_act", "silu");
  if (act != "silu" && act != "swish")
    f.fail("hidden_act", fmt::format("{}: {}'s gated MLP is modelled as SwiGLU, whose gate is silu", shown(act), arch));
}

// The attention and the sizes every family but GPT-2 writes with the same names; the configuration
// classes' defaults where a field is absent: num_key_value_heads = num_attention_heads and
// head_dim = hidden_size / num_attention_heads (LlamaConfig, MistralConfig, Qwen2Config,
// Qwen3MoeConfig, NemotronConfig; Qwen3Config's head_dim defaults to 128), tie_word_embeddings false
// in every one of them, attention_dropout 0.
Transformer common_shape(const HfFields& f, Family family) {
  Transformer m;
  m.hidden = f.size("hidden_size", kHidden);
  m.layers = f.size("num_hidden_layers", kLayers);
  m.heads = f.size("num_attention_heads", kHeads);
  m.vocab = f.size("vocab_size", kVocab);
  const int kv = f.size_or("num_key_value_heads", m.heads, kHeads);
  if (m.heads % kv != 0)
    f.fail("num_key_value_heads", fmt::format("{} must divide num_attention_heads {}", kv, m.heads));
  if (kv != m.heads) m.kv_heads = kv;
  if (family != Family::DeepseekV3) {  // MLA's head widths are its own fields
    const int fallback = family == Family::Qwen3 ? 128 : 0;
    const int head_dim = f.size_or("head_dim", fallback, kHeads);
    if (head_dim == 0 && m.hidden % m.heads != 0)
      f.fail("num_attention_heads",
             fmt::format("{} must divide hidden_size {} when head_dim is not given", m.heads, m.hidden));
    if (head_dim != 0 && head_dim * m.heads != m.hidden) m.head_dim = head_dim;
  }
  m.positions = Positions::Rope;
  m.norm = Norm::RmsNorm;
  m.mlp = Mlp::Swiglu;
  m.linear_bias = false;
  m.qkv_bias = false;
  m.tied_embeddings = f.flag_or("tie_word_embeddings", false);
  m.dropout = f.number_or("attention_dropout", 0, 0, 1) > 0;
  return m;
}

// Llama's, Qwen3's and Nemotron's attention_bias puts a bias on q, k, v and o (o's h is left out of
// the count), mlp_bias on the MLP's matrices; the description has the MLP's only with every layer's.
void biases(const HfFields& f, Transformer& m) {
  const bool attention = f.flag_or("attention_bias", false), mlp = f.flag_or("mlp_bias", false);
  if (mlp && !attention)
    f.fail("mlp_bias", "true without attention_bias: the model describes MLP biases only with every linear layer's");
  m.qkv_bias = attention;
  m.linear_bias = attention && mlp;
}

void no_sliding_window(const HfFields& f, Family family) {
  const bool windowed = family == Family::Mistral || family == Family::Mixtral ? f.has("sliding_window")
                                                                               : f.flag_or("use_sliding_window", false);
  if (windowed)
    f.fail(family == Family::Mistral || family == Family::Mixtral ? "sliding_window" : "use_sliding_window",
           "sliding-window attention is not modelled: every layer attends to the whole sequence");
}

// Qwen MoE: layer i is sparse unless listed in mlp_only_layers or (i + 1) % decoder_sparse_step != 0
// (Qwen2MoeDecoderLayer). The description has "the first k layers dense", so that is what is read.
void qwen_layer_pattern(const HfFields& f, Transformer& m) {
  if (const int step = f.size_or("decoder_sparse_step", 1, {1, 100'000}); step != 1)
    f.fail("decoder_sparse_step", fmt::format("{}: only every layer sparse (1) is modelled", step));
  const std::vector<long long> dense = f.sizes_or_empty("mlp_only_layers", {0, kLayers.max});
  for (std::size_t i = 0; i < dense.size(); ++i)
    if (dense[i] != static_cast<long long>(i))
      f.fail("mlp_only_layers", "only the first layers dense, [0, 1, …, k − 1], is modelled");
  if (dense.size() >= static_cast<std::size_t>(m.layers))
    f.fail("mlp_only_layers", fmt::format("{} dense layers of {}: use the dense architecture", dense.size(), m.layers));
  m.moe.first_dense_layers = static_cast<int>(dense.size());
}

void moe_sizes(const HfFields& f, Transformer& m, const char* experts_field, int experts, const char* top_k_field,
               int top_k) {
  m.moe.experts = experts;
  if (experts == 0) return;  // a dense model
  m.moe.top_k = top_k;
  if (top_k < 1 || top_k > experts)
    f.fail(top_k_field, fmt::format("{} must be from 1 to {} ({})", top_k, experts, experts_field));
}

Transformer gpt2(const HfFields& f) {
  // GPT2Config: n_positions 1024, n_inner None (4·n_embd), activation_function gelu_new, dropouts
  // 0.1, tie_word_embeddings true; every linear layer with a bias, LayerNorm, learned positions.
  Transformer m;
  m.hidden = f.size("n_embd", kHidden);
  m.layers = f.size("n_layer", kLayers);
  m.heads = f.size("n_head", kHeads);
  m.vocab = f.size("vocab_size", kVocab);
  m.seq = f.size_or("n_positions", 1024, kWidth);
  if (m.hidden % m.heads != 0) f.fail("n_head", fmt::format("{} must divide n_embd {}", m.heads, m.hidden));
  if (f.has("n_inner")) m.ffn_hidden = f.size("n_inner", kWidth);
  const std::string act = f.text_or("activation_function", "gelu_new");
  if (!act.starts_with("gelu") && act != "quick_gelu")
    f.fail("activation_function", fmt::format("{}: GPT-2's MLP is modelled with a GeLU", shown(act)));
  m.tied_embeddings = f.flag_or("tie_word_embeddings", true);
  m.dropout = f.number_or("resid_pdrop", 0.1, 0, 1) > 0 || f.number_or("embd_pdrop", 0.1, 0, 1) > 0 ||
              f.number_or("attn_pdrop", 0.1, 0, 1) > 0;
  return m;
}

// DeepseekV3Config: n_shared_experts 1, num_experts_per_tok 8, first_k_dense_replace 3,
// moe_layer_freq 1, n_group 8, topk_group 4. The experts of a group sit on one node in DeepSeek-V3's
// training (EP 64 over 8 nodes), so its at-most-topk_group groups a token reaches are the report's
// node-limited routing.
void deepseek_v3(const HfFields& f, Transformer& m) {
  if (f.flag_or("attention_bias", false))
    f.fail("attention_bias", "true: multi-head latent attention is modelled without biases");
  if (m.kv_heads) f.fail("num_key_value_heads", "multi-head latent attention has one key and value per query head");
  m.mla.kv_lora_rank = f.size("kv_lora_rank", {1, kRank.max});
  m.mla.q_lora_rank = f.has("q_lora_rank") ? f.size("q_lora_rank", kRank) : 0;  // null: queries not compressed
  m.mla.qk_nope_head_dim = f.size("qk_nope_head_dim", {1, kRank.max});
  m.mla.qk_rope_head_dim = f.size("qk_rope_head_dim", kRank);
  m.mla.v_head_dim = f.size("v_head_dim", {1, kRank.max});
  m.moe.first_dense_layers = f.size_or("first_k_dense_replace", 3, {0, kLayers.max});
  if (m.moe.first_dense_layers >= m.layers)
    f.fail("first_k_dense_replace", fmt::format("{} dense layers of {}", m.moe.first_dense_layers, m.layers));
  if (const int freq = f.size_or("moe_layer_freq", 1, {1, kLayers.max}); freq != 1)
    f.fail("moe_layer_freq", fmt::format("{}: only every layer after the dense ones sparse (1) is modelled", freq));
  moe_sizes(f, m, "n_routed_experts", f.size("n_routed_experts", kCount), "num_experts_per_tok",
            f.size_or("num_experts_per_tok", 8, kCount));
  if (m.moe.first_dense_layers > 0 || !m.moe.enabled()) m.ffn_hidden = f.size("intermediate_size", kWidth);
  if (!m.moe.enabled()) {
    m.moe.first_dense_layers = 0;
    return;
  }
  m.moe.expert_hidden = f.size("moe_intermediate_size", kWidth);
  m.moe.shared_experts = f.size_or("n_shared_experts", 1, kCount);
  const int groups = f.size_or("n_group", 8, {1, kCount.max});
  const int group_limit = f.size_or("topk_group", 4, {1, kCount.max});
  if (groups > 1 && group_limit < groups) m.moe.max_nodes_per_token = group_limit;
}

Transformer from_family(const HfFields& f, Family family, std::string_view arch) {
  if (family == Family::Gpt2) return gpt2(f);
  Transformer m = common_shape(f, family);
  switch (family) {
    case Family::Llama:
    case Family::Qwen3:
      check_gated_act(f, arch);
      biases(f, m);
      m.ffn_hidden = f.size("intermediate_size", kWidth);
      if (family == Family::Qwen3) no_sliding_window(f, family);
      break;
    case Family::Mistral:
      check_gated_act(f, arch);
      no_sliding_window(f, family);
      m.ffn_hidden = f.size("intermediate_size", kWidth);
      break;
    case Family::Mixtral:
      // MixtralConfig: num_local_experts 8, num_experts_per_tok 2; every layer's MLP is the experts,
      // each of intermediate_size.
      check_gated_act(f, arch);
      no_sliding_window(f, family);
      m.ffn_hidden = f.size("intermediate_size", kWidth);
      moe_sizes(f, m, "num_local_experts", f.size_or("num_local_experts", 8, kCount), "num_experts_per_tok",
                f.size_or("num_experts_per_tok", 2, kCount));
      m.moe.expert_hidden = *m.ffn_hidden;
      break;
    case Family::Qwen2:
      // Qwen2Attention: q, k and v with a bias, o without, whatever the config says.
      check_gated_act(f, arch);
      no_sliding_window(f, family);
      m.qkv_bias = true;
      m.ffn_hidden = f.size("intermediate_size", kWidth);
      break;
    case Family::Qwen2Moe:
    case Family::Qwen3Moe: {
      // Qwen2MoeConfig: num_experts 60, num_experts_per_tok 4, shared_expert_intermediate_size 5632
      // (a shared expert of that width, here as width / moe_intermediate_size experts; its h × 1 gate
      // is left out); Qwen3MoeConfig: num_experts 128, num_experts_per_tok 8, no shared expert.
      check_gated_act(f, arch);
      no_sliding_window(f, family);
      const bool qwen2 = family == Family::Qwen2Moe;
      if (qwen2)
        m.qkv_bias = true;
      else
        biases(f, m);
      qwen_layer_pattern(f, m);
      if (m.moe.first_dense_layers > 0)
        m.ffn_hidden = f.size("intermediate_size", kWidth);
      else if (f.has("intermediate_size"))
        m.ffn_hidden = f.size("intermediate_size", kWidth);
      moe_sizes(f, m, "num_experts", f.size("num_experts", kCount), "num_experts_per_tok",
                f.size_or("num_experts_per_tok", qwen2 ? 4 : 8, kCount));
      if (!m.moe.enabled()) {
        m.moe.first_dense_layers = 0;
        if (!m.ffn_hidden) m.ffn_hidden = f.size("intermediate_size", kWidth);
        break;
      }
      m.moe.expert_hidden = f.size("moe_intermediate_size", kWidth);
      const int shared = qwen2 ? f.size_or("shared_expert_intermediate_size", 5632, {0, kWidth.max}) : 0;
      if (shared % m.moe.expert_hidden != 0)
        f.fail("shared_expert_intermediate_size",
               fmt::format("{} must be a multiple of moe_intermediate_size {} (shared experts of its width)", shared,
                           m.moe.expert_hidden));
      m.moe.shared_experts = shared / m.moe.expert_hidden;
      break;
    }
    case Family::DeepseekV3:
      check_gated_act(f, arch);
      deepseek_v3(f, m);
      break;
    case Family::Nemotron: {
      // NemotronConfig: hidden_act relu2, attention_bias and mlp_bias false; LayerNorm1P is a
      // LayerNorm (scale and shift) whose scale is stored less one.
      const std::string act = f.text_or("hidden_act", "relu2");
      if (act == "relu2")
        m.mlp = Mlp::SquaredRelu;
      else if (act.starts_with("gelu"))
        m.mlp = Mlp::Gelu;
      else
        f.fail("hidden_act", fmt::format("{}: NemotronForCausalLM's MLP is modelled as relu2 or gelu", shown(act)));
      m.norm = Norm::LayerNorm;
      biases(f, m);
      m.ffn_hidden = f.size("intermediate_size", kWidth);
      break;
    }
    case Family::Gpt2:
      break;
  }
  return m;
}

}  // namespace

std::vector<std::string_view> hf_architectures() {
  std::vector<std::string_view> names;
  for (const Named<Family>& family : kFamilies) names.push_back(family.name);
  return names;
}

Transformer parse_hf_config(std::string_view text, std::string_view where, std::string name) {
  const nlohmann::json config = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (config.is_discarded()) throw InputError(fmt::format("{}: not valid JSON", where));
  if (!config.is_object()) throw InputError(fmt::format("{}: must be a JSON object of fields", where));
  const HfFields fields(config, where);
  const std::string arch = fields.first_architecture();
  const Named<Family>* family = nullptr;
  for (const Named<Family>& known : kFamilies)
    if (known.name == arch) family = &known;
  if (!family)
    fields.fail("architectures", fmt::format("{} is not one of {}", shown(arch), fmt::join(hf_architectures(), ", ")));
  Transformer m = from_family(fields, family->value, arch);
  m.name = std::move(name);
  return m;
}

Transformer read_hf_config(const std::string& path) {
  const std::string where = fmt::format("--hf-config {}", path);
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error))
    throw InputError(fmt::format("{}: not a regular file (or missing)", where));
  if (std::filesystem::file_size(path, error) > (1u << 20) || error)
    throw InputError(fmt::format("{}: larger than 1 MiB; a config.json is a few dozen lines", where));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot read it", where));
  std::stringstream text;
  text << in.rdbuf();
  const std::filesystem::path file(path);
  const std::filesystem::path folder = std::filesystem::absolute(file, error).parent_path().filename();
  const std::string name = file.filename() == "config.json" && !folder.empty() ? folder.string() : file.stem().string();
  return parse_hf_config(text.str(), where, name);
}

}  // namespace pipegrid::model
