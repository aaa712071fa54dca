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

Flops layer_flops(const Transformer& m) {
  const double h = m.hidden;
  const double ffn = m.ffn();
  // QKV (h → 3h), attention output (h → h), MLP up (h → ffn) and down (ffn → h): 2 FLOPs per multiply-add.
  const double weight_matmuls = 2 * tokens(m) * (3 * h * h + h * h + 2 * h * ffn);
  // Scores Q·Kᵀ and context P·V: per head 2·s·s·(h/a) each, a heads, b sequences.
  const double attention_matmuls = 2 * 2 * tokens(m) * m.seq * h;
  return {weight_matmuls + attention_matmuls, weight_matmuls + 2 * attention_matmuls, weight_matmuls};
}

Flops attention_flops(const Transformer& m) {
  const double h = m.hidden;
  const double weight_matmuls = 2 * tokens(m) * 4 * h * h;
  const double attention_matmuls = 2 * 2 * tokens(m) * m.seq * h;
  return {weight_matmuls + attention_matmuls, weight_matmuls + 2 * attention_matmuls, weight_matmuls};
}

Flops expert_flops_per_token(const Transformer& m) {
  const double matmuls = 2.0 * 3 * m.hidden * static_cast<double>(m.moe.expert_hidden);
  return {matmuls, matmuls, matmuls};
}

std::int64_t attention_parameters(const Transformer& m) {
  const std::int64_t h = m.hidden;
  return (3 * h * h + 3 * h) + (h * h + h) + 2 * 2 * h;
}

std::int64_t expert_parameters(const Transformer& m) {
  return 3 * static_cast<std::int64_t>(m.hidden) * m.moe.expert_hidden;
}

Flops recomputed(const Flops& layer) {
  return {layer.forward, layer.backward_input + layer.forward, layer.backward_weight};
}

Flops lm_head_flops(const Transformer& m) {
  const double logits = 2 * tokens(m) * m.hidden * static_cast<double>(m.vocab);
  return {logits, logits, logits};
}

std::int64_t layer_parameters(const Transformer& m) {
  const std::int64_t h = m.hidden;
  const std::int64_t ffn = m.ffn();
  const std::int64_t attention = (3 * h * h + 3 * h) + (h * h + h);
  const std::int64_t mlp = (h * ffn + ffn) + (ffn * h + h);
  const std::int64_t layer_norms = 2 * 2 * h;  // a scale and a shift each
  return attention + mlp + layer_norms;
}

std::int64_t word_embedding_parameters(const Transformer& m) {
  return static_cast<std::int64_t>(m.vocab) * m.hidden;
}

std::int64_t position_embedding_parameters(const Transformer& m) {
  return static_cast<std::int64_t>(m.seq) * m.hidden;
}

std::int64_t parameter_count(const Transformer& m) {
  const std::int64_t lm_head = m.tied_embeddings ? 0 : word_embedding_parameters(m);
  const std::int64_t moe_layers = m.moe.enabled() ? m.layers - m.moe.first_dense_layers : 0;
  const std::int64_t moe = moe_layers * (attention_parameters(m) +
                                         (m.moe.experts + m.moe.shared_experts) * expert_parameters(m));
  return (m.layers - moe_layers) * layer_parameters(m) + moe + word_embedding_parameters(m) +
         position_embedding_parameters(m) + lm_head;
}

}  // namespace pipegrid::model
