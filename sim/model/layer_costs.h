// What the pieces of a transformer cost for one micro-batch, whole (all tensor-parallel GPUs together):
// the formulas of Narayanan et al. (SC 2021, §5.1 and Appendix), with the backward split in two.
#pragma once

#include <cstdint>

#include "sim/model/parallelism.h"
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

/// Multiply-adds per token of a layer's attention weights: Q, K, V and the output projection
/// (h·(a·d + 2·g·d) + a·d·h; 4h² for GPT's), or MLA's down- and up-projections.
double attention_weight_macs(const Transformer& model);
/// Multiply-adds per token of an MLP h → width → h: 2·h·width, or 3·h·width gated (SwiGLU).
double mlp_weight_macs(const Transformer& model, double width);

/// One transformer layer. Forward: the weight matmuls (attention_weight_macs + mlp_weight_macs, 2
/// FLOPs each per token) and the two activation matmuls, scores Q·Kᵀ and context P·V (2·b·s²·a·d each,
/// the whole square): for GPT (ffn = 4h) 24bsh² + 4bs²h, the paper's count, and in general the count
/// of Megatron-LM's num_floating_point_operations (megatron/training/training.py), which extends it to
/// grouped-query attention, a head width of its own and gated MLPs. Backward: I = weight matmuls +
/// twice the activation matmuls, W = weight matmuls, so B = 2F. Norms, activations, dropout and bias
/// adds are ignored, as in the paper.
Flops layer_flops(const Transformer& model);

/// The layer again with full recomputation: its forward is run a second time before the backward, on
/// the input-gradient path, so I grows by F.
Flops recomputed(const Flops& layer);
/// A layer's FLOPs under `recompute`: unchanged, I grown by the attention core's forward (selective:
/// Korthikanti et al. 2022, §5 — only the scores, softmax, dropout and context are run again), or by
/// the whole forward (full).
Flops recomputed(const Flops& layer, const Transformer& model, Recompute recompute);
/// The attention core alone: scores and context, forward 2·b·s²·a·(d_qk + d_v), I twice that, no W.
Flops attention_core_flops(const Transformer& model);

/// The language-model head: logits = hidden × embeddingsᵀ, 2bshV forward, I = W = 2bshV. The input
/// embedding is a lookup (no FLOPs); the softmax and cross-entropy are ignored.
Flops lm_head_flops(const Transformer& model);
/// b·s, the tokens of one micro-batch.
double tokens(const Transformer& model);
/// A layer's attention: its weight matmuls and its activation matmuls (a MoE layer without its experts
/// and router).
Flops attention_flops(const Transformer& model);
/// A MoE layer's router, a T×E GEMM on every token (Megatron's TopKRouter); MFU's count leaves it out.
Flops router_flops(const Transformer& model);
/// One token through one expert, a SwiGLU MLP h → H_e → h: three weight matmuls, 2·3·h·H_e FLOPs
/// forward and as many for each of I and W.
Flops expert_flops_per_token(const Transformer& model);
/// A norm over `width` elements: 2·width parameters for LayerNorm, width for RMSNorm.
std::int64_t norm_parameters(const Transformer& model, std::int64_t width);
/// A layer without its MLP: the attention weights and biases, MLA's latent norms, the two norms of
/// the layer and, in a MoE model, the router (E·h).
std::int64_t attention_parameters(const Transformer& model);
std::int64_t expert_parameters(const Transformer& model);  // 3·h·H_e, no biases

/// Parameters of one dense layer: attention_parameters and the MLP's weights and biases. GPT's
/// (QKV 3h² + 3h, output h² + h, MLP 2h·ffn + ffn + h, two LayerNorms 4h) is 12h² + 13h at ffn = 4h.
std::int64_t layer_parameters(const Transformer& model);
std::int64_t word_embedding_parameters(const Transformer& model);      // V·h
std::int64_t position_embedding_parameters(const Transformer& model);  // s·h if learned, 0 with RoPE

/// The whole model, each weight counted once: the layers + (V + s)·h (V·h with rotary positions), plus
/// V·h for an untied LM head. For GPT with tied embeddings this is the paper's
/// 12lh²(1 + 13/(12h) + (V + s)/(12lh)), which leaves out the final norm, as this count does.
std::int64_t parameter_count(const Transformer& model);
/// What one token passes through: parameter_count less, in every MoE layer, the E − k routed experts
/// it does not reach (the "activated parameters" MoE papers print).
std::int64_t active_parameter_count(const Transformer& model);

}  // namespace pipegrid::model
