#include "sim/model/kernels.h"

namespace pipegrid::model {
namespace {

constexpr double kHalf = 2;  // bytes of a bf16/fp16 element

// Appends kernels of one pass and part, `count` launches each.
struct Emitter {
  std::vector<Kernel>& out;
  Pass pass = Pass::F;
  Part part = Part::Dense;
  double count = 1;

  void gemm(std::string_view name, OpKind kind, double m, double n, double k, double batch = 1) {
    out.push_back({.name = name, .kind = kind, .pass = pass, .part = part, .count = count,
                   .gemm = {m, n, k, batch}, .flops = 2 * m * n * k * batch,
                   .bytes = kHalf * batch * (m * k + k * n + m * n)});
  }
  void memory(std::string_view name, OpKind kind, double bytes) {
    out.push_back({.name = name, .kind = kind, .pass = pass, .part = part, .count = count, .gemm = {}, .bytes = bytes});
  }
  void fused(std::string_view name, OpKind kind, double flops, double bytes) {
    out.push_back({.name = name, .kind = kind, .pass = pass, .part = part, .count = count, .gemm = {}, .flops = flops,
                   .bytes = bytes});
  }
  Emitter at(Pass p) const { return {out, p, part, count}; }
};

// Self-attention with its LayerNorm and residual: Megatron's ParallelAttention / SelfAttention and
// the fused kernels around it (megatron/core/transformer/{attention,dot_product_attention}.py,
// megatron/core/fusions/fused_{layer_norm,softmax,bias_dropout}.py). Bytes per token are each
// kernel's inputs plus outputs; dropout masks are 1 byte per element.
void attention_block(const Transformer& m, int t, bool flash, Emitter e) {
  const double h = m.hidden, s = m.seq, T = tokens(m), d = h / m.heads;
  const double heads = static_cast<double>(m.heads) / t;  // per GPU
  const double bh = m.micro_batch * heads;                 // batched attention GEMMs
  const double scores = bh * s * s;                        // elements of the s×s score matrices
  // FlashAttention-2 on a causal mask: half of the 4·s²·d FLOPs per head forward, 2.5 times that
  // backward (it recomputes the scores); Q, K, V, O and the log-sum-exp cross HBM, no s×s matrix.
  const double flash_flops = 4 * bh * s * s * d / 2;
  const double qkvo = 4 * T * h / t * kHalf;

  Emitter f = e.at(Pass::F), i = e.at(Pass::I), w = e.at(Pass::W);
  f.memory("layernorm1", OpKind::LayerNorm, 4 * h * T);
  f.gemm("qkv", OpKind::Gemm, T, 3 * h / t, h);
  if (flash) {
    f.fused("flash_attention", OpKind::Attention, flash_flops, qkvo + 4 * bh * s);
  } else {
    f.gemm("scores", OpKind::Attention, s, s, d, bh);
    f.memory("softmax", OpKind::Softmax, 4 * scores);
    f.memory("attention_dropout", OpKind::Dropout, 5 * scores);
    f.gemm("context", OpKind::Attention, s, d, s, bh);
    f.memory("context_permute", OpKind::Permute, 4 * T * h / t);
  }
  f.gemm("projection", OpKind::Gemm, T, h, h / t);
  f.memory("bias_dropout_residual1", OpKind::Residual, 7 * h * T);

  i.memory("bias_dropout_residual1.bwd", OpKind::Residual, 5 * h * T);
  i.gemm("projection.dgrad", OpKind::Gemm, T, h / t, h);
  if (flash) {
    i.fused("flash_attention.bwd", OpKind::Attention, 2.5 * flash_flops, 2 * qkvo + 4 * bh * s);
  } else {
    i.memory("context_permute.bwd", OpKind::Permute, 4 * T * h / t);
    i.gemm("context.dgrad_probs", OpKind::Attention, s, s, d, bh);   // dP = dO·Vᵀ
    i.gemm("context.dgrad_values", OpKind::Attention, s, d, s, bh);  // dV = Pᵀ·dO
    i.memory("attention_dropout.bwd", OpKind::Dropout, 5 * scores);
    i.memory("softmax.bwd", OpKind::Softmax, 6 * scores);
    i.gemm("scores.dgrad_queries", OpKind::Attention, s, d, s, bh);  // dQ = dS·K
    i.gemm("scores.dgrad_keys", OpKind::Attention, s, d, s, bh);     // dK = dSᵀ·Q
  }
  i.gemm("qkv.dgrad", OpKind::Gemm, T, h, 3 * h / t);
  i.memory("layernorm1.bwd", OpKind::LayerNorm, 6 * h * T);

  w.gemm("qkv.wgrad", OpKind::Gemm, 3 * h / t, h, T);
  w.gemm("projection.wgrad", OpKind::Gemm, h, h / t, T);
  w.memory("qkv.bias_grad", OpKind::BiasGrad, kHalf * 3 * h / t * T);
  w.memory("projection.bias_grad", OpKind::BiasGrad, kHalf * h * T);
}

// The second LayerNorm and residual, which a MoE layer keeps around its experts.
void mlp_norm_and_residual(const Transformer& m, Emitter e) {
  const double h = m.hidden, T = tokens(m);
  e.at(Pass::F).memory("layernorm2", OpKind::LayerNorm, 4 * h * T);
  e.at(Pass::F).memory("bias_dropout_residual2", OpKind::Residual, 7 * h * T);
  e.at(Pass::I).memory("bias_dropout_residual2.bwd", OpKind::Residual, 5 * h * T);
  e.at(Pass::I).memory("layernorm2.bwd", OpKind::LayerNorm, 6 * h * T);
}

// The dense MLP h → ffn → h with a fused bias-GeLU (fused_bias_gelu.py), column- then row-parallel.
void mlp(const Transformer& m, int t, Emitter e) {
  const double h = m.hidden, T = tokens(m), f = static_cast<double>(m.ffn()) / t;
  mlp_norm_and_residual(m, e);
  Emitter fw = e.at(Pass::F), i = e.at(Pass::I), w = e.at(Pass::W);
  fw.gemm("mlp_up", OpKind::Gemm, T, f, h);
  fw.memory("bias_gelu", OpKind::Activation, 4 * f * T);
  fw.gemm("mlp_down", OpKind::Gemm, T, h, f);
  i.gemm("mlp_down.dgrad", OpKind::Gemm, T, f, h);
  i.memory("bias_gelu.bwd", OpKind::Activation, 6 * f * T);
  i.gemm("mlp_up.dgrad", OpKind::Gemm, T, h, f);
  w.gemm("mlp_up.wgrad", OpKind::Gemm, f, h, T);
  w.gemm("mlp_down.wgrad", OpKind::Gemm, h, f, T);
  w.memory("mlp_up.bias_grad", OpKind::BiasGrad, kHalf * f * T);
  w.memory("mlp_down.bias_grad", OpKind::BiasGrad, kHalf * h * T);
}

// SwiGLU experts h → width → h over `rows` tokens each, `groups` experts side by side (a grouped
// GEMM): gate and up as one GEMM of 2·width, the SwiGLU product, down.
void experts(const Transformer& m, double width, double rows, double groups, Emitter e) {
  const double h = m.hidden;
  Emitter f = e.at(Pass::F), i = e.at(Pass::I), w = e.at(Pass::W);
  f.gemm("expert_gate_up", OpKind::Experts, rows, 2 * width, h, groups);
  f.memory("swiglu", OpKind::Activation, 3 * kHalf * width * rows * groups);
  f.gemm("expert_down", OpKind::Experts, rows, h, width, groups);
  i.gemm("expert_down.dgrad", OpKind::Experts, rows, width, h, groups);
  i.memory("swiglu.bwd", OpKind::Activation, 5 * kHalf * width * rows * groups);
  i.gemm("expert_gate_up.dgrad", OpKind::Experts, rows, h, 2 * width, groups);
  w.gemm("expert_gate_up.wgrad", OpKind::Experts, 2 * width, h, rows, groups);
  w.gemm("expert_down.wgrad", OpKind::Experts, h, width, rows, groups);
}

// A MoE layer's router and the token permutations around the experts (Megatron's TopKRouter and
// token dispatcher): a T×E GEMM, and each of the T·k assignments' h elements copied in and out.
void router(const Transformer& m, Emitter e) {
  const double h = m.hidden, T = tokens(m), E = m.moe.experts, k = m.moe.top_k;
  e.at(Pass::F).gemm("router", OpKind::Experts, T, E, h);
  e.at(Pass::F).memory("dispatch_permute", OpKind::Permute, 2 * kHalf * T * k * h);
  e.at(Pass::F).memory("combine_unpermute", OpKind::Permute, 2 * kHalf * T * k * h);
  e.at(Pass::I).memory("combine_unpermute.bwd", OpKind::Permute, 2 * kHalf * T * k * h);
  e.at(Pass::I).memory("dispatch_permute.bwd", OpKind::Permute, 2 * kHalf * T * k * h);
  e.at(Pass::I).gemm("router.dgrad", OpKind::Experts, T, h, E);
  e.at(Pass::W).gemm("router.wgrad", OpKind::Experts, E, h, T);
}

void moe_layer(const Transformer& m, int t, bool flash, Emitter e) {
  const MoeSpec& moe = m.moe;
  attention_block(m, t, flash, e);
  mlp_norm_and_residual(m, e);
  router(m, e);
  const double width = static_cast<double>(moe.expert_hidden) / t;
  if (moe.shared_experts > 0) {
    Emitter shared = e;
    shared.part = Part::Shared;
    experts(m, width * moe.shared_experts, tokens(m), 1, shared);
  }
  // The GPU's E/ep experts share the T·k assignments of each of the ep GPUs' tokens: on average
  // T·k·ep/E tokens per expert (the executor scales the whole by the member's actual share).
  Emitter routed = e;
  routed.part = Part::Routed;
  const double local = static_cast<double>(moe.experts) / moe.ep;
  experts(m, width, tokens(m) * moe.top_k / local, local, routed);
}

void embedding(const Transformer& m, Emitter e) {
  const double h = m.hidden, T = tokens(m);
  e.at(Pass::F).memory("embedding", OpKind::Embedding, 6 * h * T);  // word + position rows, summed
  e.at(Pass::F).memory("embedding_dropout", OpKind::Dropout, 5 * h * T);
  e.at(Pass::I).memory("embedding_dropout.bwd", OpKind::Dropout, 5 * h * T);
  // The scatter-add of the gradient rows into the fp32 word and position gradients.
  e.at(Pass::W).memory("embedding.wgrad", OpKind::Embedding, 12 * h * T);
}

// The final LayerNorm, the logits GEMM against the (vocabulary-parallel) word embeddings and the
// cross-entropy in fp32 (megatron/core/tensor_parallel/cross_entropy.py): max, exp-sum, the loss.
void lm_head(const Transformer& m, int t, Emitter e) {
  const double h = m.hidden, T = tokens(m), v = static_cast<double>(m.vocab) / t;
  Emitter f = e.at(Pass::F), i = e.at(Pass::I), w = e.at(Pass::W);
  f.memory("final_layernorm", OpKind::LayerNorm, 4 * h * T);
  f.gemm("lm_head", OpKind::LmHead, T, v, h);
  f.memory("cross_entropy", OpKind::CrossEntropy, 12 * v * T);
  i.memory("cross_entropy.bwd", OpKind::CrossEntropy, 8 * v * T);
  i.gemm("lm_head.dgrad", OpKind::LmHead, T, h, v);
  i.memory("final_layernorm.bwd", OpKind::LayerNorm, 6 * h * T);
  w.gemm("lm_head.wgrad", OpKind::LmHead, v, h, T);
}

}  // namespace

std::string_view to_string(OpKind kind) {
  switch (kind) {
    case OpKind::Gemm: return "gemm";
    case OpKind::Attention: return "attention";
    case OpKind::LmHead: return "lm_head";
    case OpKind::Experts: return "experts";
    case OpKind::LayerNorm: return "layernorm";
    case OpKind::Softmax: return "softmax";
    case OpKind::Dropout: return "dropout";
    case OpKind::Activation: return "activation";
    case OpKind::Residual: return "residual";
    case OpKind::Permute: return "permute";
    case OpKind::BiasGrad: return "bias_grad";
    case OpKind::Embedding: return "embedding";
    case OpKind::CrossEntropy: return "cross_entropy";
    case OpKind::Collective: return "collective_launch";
    case OpKind::GradAccumulation: return "grad_accumulation";
    case OpKind::Optimizer: return "optimizer";
  }
  return "?";
}

std::string_view to_string(Pass pass) {
  switch (pass) {
    case Pass::F: return "F";
    case Pass::I: return "I";
    case Pass::W: return "W";
    case Pass::Step: return "step";
  }
  return "?";
}

std::vector<Kernel> layer_kernels(const Transformer& model, int tp, bool flash_attention) {
  std::vector<Kernel> out;
  attention_block(model, tp, flash_attention, {out});
  mlp(model, tp, {out});
  return out;
}

std::vector<Kernel> stage_kernels(const Transformer& model, const Parallelism& par, const StageCost& stage,
                                  const KernelOptions& options) {
  const int t = par.tp;
  const int moe_layers = stage.moe.moe_layers;
  std::vector<Kernel> layers;
  if (stage.layers > moe_layers) {
    Emitter dense{layers, Pass::F, Part::Dense, static_cast<double>(stage.layers - moe_layers)};
    attention_block(model, t, options.flash_attention, dense);
    mlp(model, t, dense);
  }
  if (moe_layers > 0) moe_layer(model, t, options.flash_attention, {layers, Pass::F, Part::Dense, double(moe_layers)});

  std::vector<Kernel> out = layers;
  // Full recomputation runs each layer's forward again just before its backward.
  if (par.recompute == Recompute::Full)
    for (Kernel k : layers)
      if (k.pass == Pass::F) {
        k.pass = Pass::I;
        k.recomputed = true;
        out.push_back(k);
      }
  if (stage.has_embedding) embedding(model, {out});
  if (stage.has_lm_head) lm_head(model, t, {out});
  // Each tensor-parallel all-reduce is a NCCL kernel the host launches like any other.
  if (stage.tp_allreduces_per_forward > 0)
    out.push_back({.name = "tp_allreduce", .kind = OpKind::Collective, .pass = Pass::F,
                   .count = static_cast<double>(stage.tp_allreduces_per_forward), .gemm = {}});
  if (stage.tp_allreduces_per_backward > 0)
    out.push_back({.name = "tp_allreduce", .kind = OpKind::Collective, .pass = Pass::I,
                   .count = static_cast<double>(stage.tp_allreduces_per_backward), .gemm = {}});
  if (!options.fused_grad_accumulation && stage.parameters > 0) {
    // One add per parameter tensor: a layer has 12 (4 weights, 4 biases, 2 LayerNorms of 2), the
    // embeddings and the head 1 or 2 more; the bytes spread over them.
    const double tensors = 12.0 * stage.layers + (stage.has_embedding ? 2 : 0) + (stage.has_lm_head ? 3 : 0);
    out.push_back({.name = "grad_accumulate", .kind = OpKind::GradAccumulation, .pass = Pass::W, .count = tensors,
                   .gemm = {}, .bytes = static_cast<double>(stage.parameters) * (2.0 * options.gradient_bytes + 2) / tensors});
  }
  const double updated = static_cast<double>(stage.parameters) / (options.distributed_optimizer ? options.dp : 1);
  out.push_back({.name = "adam", .kind = OpKind::Optimizer, .pass = Pass::Step,
                 .gemm = {}, .bytes = updated * options.optimizer_bytes_per_parameter});
  return out;
}

}  // namespace pipegrid::model
