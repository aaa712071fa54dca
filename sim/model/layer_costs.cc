#include "sim/model/layer_costs.h"

namespace pipegrid::model {

// Tokens in one micro-batch: every matmul of a layer multiplies a (b·s)×k activation.
double tokens(const Transformer& m) { return static_cast<double>(m.micro_batch) * m.seq; }

Flops& Flops::operator+=(const Flops& other) {
  forward += other.forward;
  backward_input += other.backward_input;
  backward_weight += other.backward_weight;
  return *this;
}

double attention_weight_macs(const Transformer& m) {
  const double h = m.hidden, a = m.heads;
  if (m.mla.enabled()) {
    // multi_latent_attention.py: queries h → r_q → a·(d_nope + d_rope) (or h → a·(…) without r_q), the
    // latent h → r_kv + d_rope, keys and values r_kv → a·(d_nope + d_v), output a·d_v → h.
    const Mla& l = m.mla;
    const double qk = a * l.qk_head_dim();
    const double queries = l.q_lora_rank > 0 ? h * l.q_lora_rank + l.q_lora_rank * qk : h * qk;
    const double latent = h * (l.kv_lora_rank + l.qk_rope_head_dim);
    const double keys_values = l.kv_lora_rank * a * (l.qk_nope_head_dim + l.v_head_dim);
    return queries + latent + keys_values + m.value_width() * h;
  }
  // Q h → a·d, K and V h → g·d each, output a·d → h.
  const double d = m.head_width(), g = m.query_groups();
  return h * (a * d + 2 * g * d) + a * d * h;
}

double mlp_weight_macs(const Transformer& m, double width) {
  return (m.mlp == Mlp::Swiglu ? 3.0 : 2.0) * m.hidden * width;
}

namespace {

// Forward, I and W of a block whose weight matmuls do `weight_macs` multiply-adds per token and whose
// activation matmuls (scores and context) `activation_macs`: 2 FLOPs per multiply-add; a weight matmul
// costs as much again for its input gradient and for its weight gradient, an activation matmul twice
// for its two input gradients.
Flops block_flops(const Transformer& m, double weight_macs, double activation_macs) {
  const double weights = 2 * tokens(m) * weight_macs, activations = 2 * tokens(m) * activation_macs;
  return {weights + activations, weights + 2 * activations, weights};
}

// Scores Q·Kᵀ (s·a·d_qk per token) and context P·V (s·a·d_v per token), the whole s×s square as
// Megatron's count has it.
double attention_core_macs(const Transformer& m) { return m.seq * (m.query_width() + m.value_width()); }

}  // namespace

Flops layer_flops(const Transformer& m) {
  return block_flops(m, attention_weight_macs(m) + mlp_weight_macs(m, m.ffn()), attention_core_macs(m));
}

Flops attention_flops(const Transformer& m) {
  return block_flops(m, attention_weight_macs(m), attention_core_macs(m));
}

Flops attention_core_flops(const Transformer& m) { return block_flops(m, 0, attention_core_macs(m)); }

Flops router_flops(const Transformer& m) {
  return block_flops(m, static_cast<double>(m.hidden) * m.moe.experts, 0);
}

Flops expert_flops_per_token(const Transformer& m) {
  const double matmuls = 2.0 * 3 * m.hidden * static_cast<double>(m.moe.expert_hidden);
  return {matmuls, matmuls, matmuls};
}

std::int64_t norm_parameters(const Transformer& m, std::int64_t width) {
  return (m.norm == Norm::LayerNorm ? 2 : 1) * width;  // LayerNorm: scale and shift; RMSNorm: scale
}

std::int64_t attention_parameters(const Transformer& m) {
  const std::int64_t h = m.hidden;
  std::int64_t weights = static_cast<std::int64_t>(attention_weight_macs(m));
  std::int64_t biases = 0;
  if (m.mla.enabled()) {
    // The latents are normalised before their up-projections (q_layernorm, kv_layernorm).
    weights += norm_parameters(m, m.mla.q_lora_rank) + norm_parameters(m, m.mla.kv_lora_rank);
  } else if (m.qkv_bias) {
    biases += static_cast<std::int64_t>(m.query_width()) + 2 * std::int64_t{m.query_groups()} * m.head_width();
  }
  if (m.linear_bias) biases += h;  // the output projection's
  const std::int64_t router = m.moe.enabled() ? std::int64_t{m.moe.experts} * h : 0;
  return weights + biases + router + 2 * norm_parameters(m, h);
}

std::int64_t expert_parameters(const Transformer& m) {
  return 3 * static_cast<std::int64_t>(m.hidden) * m.moe.expert_hidden;
}

Flops recomputed(const Flops& layer) {
  return {layer.forward, layer.backward_input + layer.forward, layer.backward_weight};
}

Flops recomputed(const Flops& layer, const Transformer& m, Recompute recompute) {
  switch (recompute) {
    case Recompute::None: return layer;
    case Recompute::Selective: return layer + Flops{0, attention_core_flops(m).forward, 0};
    case Recompute::Full: return recomputed(layer);
  }
  return layer;
}

Flops lm_head_flops(const Transformer& m) {
  const double logits = 2 * tokens(m) * m.hidden * static_cast<double>(m.vocab);
  return {logits, logits, logits};
}

std::int64_t layer_parameters(const Transformer& m) {
  const std::int64_t h = m.hidden, ffn = m.ffn();
  const std::int64_t up = m.mlp == Mlp::Swiglu ? 2 * ffn : ffn;  // gate and up as one matrix
  const std::int64_t mlp = static_cast<std::int64_t>(mlp_weight_macs(m, m.ffn())) + (m.linear_bias ? up + h : 0);
  Transformer dense = m;
  dense.moe = {};
  return attention_parameters(dense) + mlp;
}

std::int64_t word_embedding_parameters(const Transformer& m) {
  return static_cast<std::int64_t>(m.vocab) * m.hidden;
}

std::int64_t position_embedding_parameters(const Transformer& m) {
  return m.positions == Positions::Learned ? static_cast<std::int64_t>(m.seq) * m.hidden : 0;
}

std::int64_t parameter_count(const Transformer& m) {
  const std::int64_t lm_head = m.tied_embeddings ? 0 : word_embedding_parameters(m);
  const std::int64_t moe_layers = m.moe.enabled() ? m.layers - m.moe.first_dense_layers : 0;
  const std::int64_t moe = moe_layers * (attention_parameters(m) +
                                         (m.moe.experts + m.moe.shared_experts) * expert_parameters(m));
  return (m.layers - moe_layers) * layer_parameters(m) + moe + word_embedding_parameters(m) +
         position_embedding_parameters(m) + lm_head;
}

std::int64_t active_parameter_count(const Transformer& m) {
  if (!m.moe.enabled()) return parameter_count(m);
  const std::int64_t moe_layers = m.layers - m.moe.first_dense_layers;
  const std::int64_t idle = std::int64_t{m.moe.experts - m.moe.top_k} * expert_parameters(m);
  return parameter_count(m) - moe_layers * idle;
}

}  // namespace pipegrid::model
