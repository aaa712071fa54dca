// What the pieces of a transformer cost for one micro-batch, whole (all tensor-parallel GPUs together):
// the formulas of Narayanan et al. (SC 2021, §5.1 and Appendix), with the backward split in two.
#pragma once

#include <cstdint>

#include "sim/model/transformer.h"

namespace pipegrid::model {

/// FLOPs of one piece of work for one micro-batch, split as the schedules split a backward
/// (docs/design.md): F the forward, I the backward for inputs, W the backward for weights; B = I + W.
/// A matmul X·W (m×k by k×n, 2mkn FLOPs) costs the same again for dX = dY·Wᵀ (I) and for
/// dW = Xᵀ·dY (W); a matmul of two activations has no W, so both its input gradients are I.
struct Flops {
  double forward = 0;          // F
  double backward_input = 0;   // I
  double backward_weight = 0;  // W

  double backward() const { return backward_input + backward_weight; }
  double total() const { return forward + backward(); }

  Flops& operator+=(const Flops& other);
  friend Flops operator+(Flops a, const Flops& b) { return a += b; }
  friend Flops operator*(double k, const Flops& f) {
    return {k * f.forward, k * f.backward_input, k * f.backward_weight};
  }
};

/// One transformer layer. Forward: the weight matmuls (QKV 6bsh², attention output 2bsh², MLP
/// 2·2bsh·ffn) and the two activation matmuls, scores QKᵀ and context P·V (2bs²h each): with ffn = 4h,
/// 24bsh² + 4bs²h, the paper's count. Backward: I = weight matmuls + 8bs²h, W = weight matmuls, so
/// B = 2F. Softmax, LayerNorm, GeLU, dropout and bias adds are ignored, as in the paper.
Flops layer_flops(const Transformer& model);

/// The layer again with full recomputation: its forward is run a second time before the backward, on
/// the input-gradient path, so I grows by F.
Flops recomputed(const Flops& layer);

/// The language-model head: logits = hidden × embeddingsᵀ, 2bshV forward, I = W = 2bshV. The input
/// embedding is a lookup (no FLOPs); the softmax and cross-entropy are ignored.
Flops lm_head_flops(const Transformer& model);
/// b·s, the tokens of one micro-batch.
double tokens(const Transformer& model);
/// A mixture-of-experts layer without its experts: QKV, attention output and the attention matmuls.
Flops attention_flops(const Transformer& model);
/// One token through one expert, a SwiGLU MLP h → H_e → h: three weight matmuls, 2·3·h·H_e FLOPs
/// forward and as many for each of I and W.
Flops expert_flops_per_token(const Transformer& model);
std::int64_t attention_parameters(const Transformer& model);  // with its LayerNorms
std::int64_t expert_parameters(const Transformer& model);     // 3·h·H_e, no biases

/// Parameters of one layer: QKV 3h² + 3h, attention output h² + h, MLP 2h·ffn + ffn + h, two LayerNorms
/// 4h; with ffn = 4h, Megatron's 12h² + 13h.
std::int64_t layer_parameters(const Transformer& model);
std::int64_t word_embedding_parameters(const Transformer& model);      // V·h
std::int64_t position_embedding_parameters(const Transformer& model);  // s·h

/// The whole model, each weight counted once: l·layer + (V + s)·h, plus V·h for an untied LM head.
/// With ffn = 4h and tied embeddings this is the paper's 12lh²(1 + 13/(12h) + (V + s)/(12lh)), which
/// leaves out the final LayerNorm (2h) as this count does.
std::int64_t parameter_count(const Transformer& model);

}  // namespace pipegrid::model
