// A decoder-only transformer as Megatron-Core builds one: the shape the cost model charges for. One
// description covers GPT (2020–21) and today's models — grouped-query or multi-head latent attention,
// gated MLPs, RMSNorm, rotary positions, untied output layers, mixture-of-experts layers.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/named.h"
#include "sim/model/moe.h"

namespace pipegrid::model {

/// The MLP's activation (Megatron-Core megatron/core/transformer/mlp.py): `gelu` is GPT's h → ffn → h
/// with GeLU between; `swiglu` (Llama, Mistral, Qwen, DeepSeek; Megatron's --swiglu) a gated MLP whose
/// first GEMM makes 2·ffn columns (gate and up), multiplied as silu(gate)·up, then down — three weight
/// matrices; `squared-relu` (Nemotron-4; --squared-relu) GPT's two matrices with relu(x)².
enum class Mlp { Gelu, Swiglu, SquaredRelu };
inline constexpr Named<Mlp> kMlps[] = {{"gelu", Mlp::Gelu}, {"swiglu", Mlp::Swiglu}, {"squared-relu", Mlp::SquaredRelu}};
inline std::string_view to_string(Mlp mlp) { return name_of<Mlp>(kMlps, mlp); }

/// LayerNorm (a scale and a shift per element, mean and variance) or RMSNorm (a scale, root mean
/// square only: Llama, Mistral, Qwen, DeepSeek; Megatron's --normalization RMSNorm).
enum class Norm { LayerNorm, RmsNorm };
inline constexpr Named<Norm> kNorms[] = {{"layernorm", Norm::LayerNorm}, {"rmsnorm", Norm::RmsNorm}};
inline std::string_view to_string(Norm norm) { return name_of<Norm>(kNorms, norm); }

/// Learned absolute position embeddings (GPT: an s×h table added at the input) or rotary ones (RoPE,
/// every model since Llama: no parameters, a rotation of Q and K in each layer).
enum class Positions { Learned, Rope };
inline constexpr Named<Positions> kPositions[] = {{"learned", Positions::Learned}, {"rope", Positions::Rope}};
inline std::string_view to_string(Positions positions) { return name_of<Positions>(kPositions, positions); }

/// A yes-or-no field of the model as the options name it (--tied-embeddings off) and summary.json echoes it.
inline constexpr Named<bool> kSwitches[] = {{"on", true}, {"off", false}};

/// The most parameters a model may hold: a thousand times today's largest, far from where their 64-bit
/// counts (and the FLOPs and bytes that follow from them) overflow.
inline constexpr double kMaxParameters = 1e15;

/// Multi-head latent attention (DeepSeek-V2/V3; Megatron-Core megatron/core/transformer/
/// multi_latent_attention.py): queries through a low-rank bottleneck (h → q_lora_rank → heads ×
/// (qk_nope + qk_rope)), keys and values through a shared latent (h → kv_lora_rank + qk_rope, then
/// kv_lora_rank → heads × (qk_nope + v)); the rotary part of the key is shared by all heads. Enabled
/// when kv_lora_rank > 0; q_lora_rank 0 projects the queries directly (DeepSeek-V2-Lite).
struct Mla {
  int q_lora_rank = 0;
  int kv_lora_rank = 0;
  int qk_rope_head_dim = 0;
  int qk_nope_head_dim = 0;
  int v_head_dim = 0;

  bool enabled() const { return kv_lora_rank > 0; }
  int qk_head_dim() const { return qk_nope_head_dim + qk_rope_head_dim; }
};

/// A decoder: word embeddings (and learned position embeddings), `layers` transformer layers (norm,
/// self-attention, norm, MLP, each with a residual) and a final norm and language-model head whose
/// weights are the word embeddings unless `tied_embeddings` is false. Letters as in Narayanan et al.
/// (SC 2021): l layers, h hidden, a heads, s sequence, V vocabulary, b micro-batch size; and g query
/// groups (key-value heads), d the head width.
struct Transformer {
  std::string name;
  int layers = 0;                 // l
  int hidden = 0;                 // h
  int heads = 0;                  // a, query heads
  int seq = 0;                    // s, tokens per sequence
  int vocab = 0;                  // V
  int micro_batch = 1;            // b, sequences per micro-batch
  std::optional<int> kv_heads;    // g, key-value heads (query groups): a (multi-head attention) unless set
  std::optional<int> head_dim;    // d: h / a unless set (Megatron's --kv-channels)
  std::optional<int> ffn_hidden;  // the MLP's inner width; 4h, as in GPT and Megatron, unless set
  Mlp mlp = Mlp::Gelu;
  Norm norm = Norm::LayerNorm;
  Positions positions = Positions::Learned;
  bool linear_bias = true;        // every linear layer has a bias (GPT; Megatron's --add-bias-linear)
  bool qkv_bias = true;           // the QKV projection has a bias (Qwen2 keeps it without the others')
  bool dropout = true;            // attention and hidden dropout (GPT's 0.1; today's models train with 0)
  bool tied_embeddings = true;    // the LM head reuses the word embeddings (Megatron's default)
  Mla mla;                        // kv_lora_rank > 0: multi-head latent attention instead of `kv_heads`
  MoeSpec moe;                    // experts == 0: every layer dense

  int ffn() const { return ffn_hidden.value_or(4 * hidden); }
  int query_groups() const { return kv_heads.value_or(heads); }
  int head_width() const { return head_dim.value_or(heads > 0 ? hidden / heads : 0); }
  /// Width of the queries (and of the attention's output before its projection): a·d, or with MLA
  /// a·(qk_nope + qk_rope); the values' a·d or a·v_head_dim.
  double query_width() const;
  double value_width() const;
  /// Multi-head attention with every head of width h / a, the 2021 GPT layer the paper's formulas count.
  bool classic_attention() const;

  /// Throws InputError, one line naming the flag (`--layers`, `--hidden`, `--heads`, `--seq`, `--vocab`,
  /// `--micro-batch`, `--ffn-hidden`, `--kv-heads`, `--head-dim`, `--kv-lora-rank`, …), for a field that
  /// is not positive, heads that do not divide the hidden size when no head width is given, query heads
  /// not a multiple of the key-value heads, or MLA ranks that are missing or negative.
  void validate() const;
};

}  // namespace pipegrid::model
