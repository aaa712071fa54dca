// The attention block's kernels (see kernel_emitter.h and docs/compute-model.md).
#include "sim/model/kernel_emitter.h"

namespace pipegrid::model::detail {

std::string_view norm_name(const Transformer& m, int which) {
  static constexpr std::string_view kNames[2][3] = {{"layernorm1", "layernorm2", "final_layernorm"},
                                                    {"rmsnorm1", "rmsnorm2", "final_rmsnorm"}};
  return kNames[m.norm == Norm::RmsNorm ? 1 : 0][which];
}
std::string_view backward_name(std::string_view forward) {
  static constexpr std::string_view kPairs[][2] = {
      {"layernorm1", "layernorm1.bwd"},         {"layernorm2", "layernorm2.bwd"},
      {"final_layernorm", "final_layernorm.bwd"}, {"rmsnorm1", "rmsnorm1.bwd"},
      {"rmsnorm2", "rmsnorm2.bwd"},             {"final_rmsnorm", "final_rmsnorm.bwd"},
      {"q_norm", "q_norm.bwd"},                 {"kv_norm", "kv_norm.bwd"}};
  for (const auto& pair : kPairs)
    if (pair[0] == forward) return pair[1];
  return "norm.bwd";
}

void norm(std::string_view name, double width, double T, Emitter e) {
  e.at(Pass::F).memory(name, OpKind::LayerNorm, 4 * width * T);
  e.at(Pass::I).memory(backward_name(name), OpKind::LayerNorm, 6 * width * T);
}

namespace {

// The norm before a block and the residual after it, named after the model's norm (the fused
// LayerNorm or RMSNorm of megatron/core/fusions/ and Transformer Engine): both read the hidden state and
// write its normalised copy, 4h bytes per token forward, 6h backward. The residual fuses the bias and
// the dropout when the model has them (fused_bias_dropout.py): 7h bytes per token with dropout's 1-byte
// mask, 6h without; without dropout its backward is the gradient passed on, no kernel.
void residual(const Transformer& m, std::string_view name, std::string_view backward, Emitter e) {
  const double h = m.hidden, T = tokens(m);
  e.at(Pass::F).memory(name, OpKind::Residual, (m.dropout ? 7 : 6) * h * T);
  if (m.dropout) e.at(Pass::I).memory(backward, OpKind::Residual, 5 * h * T);
}

// Q, K, V and the output of one GPU's heads in HBM, bytes: what FlashAttention reads and writes. The
// ring reads the K and V of all cp blocks, one per step.
double flash_io_bytes(const Transformer& m, int t, ContextSplit cp) {
  const double keys = m.mla.enabled() ? m.query_width() : static_cast<double>(m.query_groups()) * m.head_width();
  const double values = m.mla.enabled() ? m.value_width() : keys;
  const double kv_blocks = cp.all_to_all ? 1 : cp.cp;
  return kHalf * tokens(m) * (m.query_width() + kv_blocks * (keys + values) + m.value_width()) / t;
}

// The core's shape on one GPU: queries, keys and the batch of heads it attends with.
struct CoreShape {
  double s_q, s_kv, bh;
};
CoreShape core_shape(const Transformer& m, int t, ContextSplit cp) {
  const double s = m.seq, heads = static_cast<double>(m.heads) / t;
  if (cp.all_to_all) return {s * cp.cp, s * cp.cp, m.micro_batch * heads / cp.cp};
  return {s, s * cp.cp, m.micro_batch * heads};
}

}  // namespace

// The attention core on its GPU's a/t heads: scores Q·Kᵀ, the fused scale-mask-softmax, dropout, the
// context P·V and its permute back to tokens (dot_product_attention.py) — or one FlashAttention kernel.
// `e` is the forward pass; a recomputation emits it again into I.
void attention_core_forward(const Transformer& m, int t, bool flash, Emitter f, ContextSplit cp) {
  const double T = tokens(m);
  const auto [sq, sk, bh] = core_shape(m, t, cp);
  const double dqk = m.query_width() / m.heads, dv = m.value_width() / m.heads;
  const double scores = bh * sq * sk;
  if (flash) {
    // FlashAttention-2 on a causal mask: half of the 2·s²·(d_qk + d_v) FLOPs per head; Q, K, V, O and
    // the log-sum-exp cross HBM, no s×s matrix. K and V are the g key-value heads (GQA needs no copy).
    f.fused("flash_attention", OpKind::Attention, bh * sq * sk * (dqk + dv), flash_io_bytes(m, t, cp) + 4 * bh * sq);
    return;
  }
  if (!m.mla.enabled() && m.query_groups() != m.heads)
    // Unfused attention repeats each key-value head for its a/g query heads before the batched GEMMs.
    f.memory("kv_repeat", OpKind::Permute, kHalf * T * 2 * (m.query_groups() + m.heads) * m.head_width() / t);
  f.gemm("scores", OpKind::Attention, sq, sk, dqk, bh);
  f.memory("softmax", OpKind::Softmax, 4 * scores);
  if (m.dropout) f.memory("attention_dropout", OpKind::Dropout, 5 * scores);
  f.gemm("context", OpKind::Attention, sq, dv, sk, bh);
  f.memory("context_permute", OpKind::Permute, 4 * T * m.value_width() / t);
}

namespace {

// The attention core's backward: FlashAttention's (2.5 × its forward FLOPs, it recomputes the scores)
// or each GEMM's two input gradients and the memory-bound kernels' backward.
void attention_core_backward(const Transformer& m, int t, bool flash, Emitter i, ContextSplit cp) {
  const double T = tokens(m);
  const auto [sq, sk, bh] = core_shape(m, t, cp);
  const double dqk = m.query_width() / m.heads, dv = m.value_width() / m.heads;
  const double scores = bh * sq * sk;
  if (flash) {
    i.fused("flash_attention.bwd", OpKind::Attention, 2.5 * bh * sq * sk * (dqk + dv),
            2 * flash_io_bytes(m, t, cp) + 4 * bh * sq);
    return;
  }
  i.memory("context_permute.bwd", OpKind::Permute, 4 * T * m.value_width() / t);
  i.gemm("context.dgrad_probs", OpKind::Attention, sq, sk, dv, bh);   // dP = dO·Vᵀ
  i.gemm("context.dgrad_values", OpKind::Attention, sk, dv, sq, bh);  // dV = Pᵀ·dO
  if (m.dropout) i.memory("attention_dropout.bwd", OpKind::Dropout, 5 * scores);
  i.memory("softmax.bwd", OpKind::Softmax, 6 * scores);
  i.gemm("scores.dgrad_queries", OpKind::Attention, sq, dqk, sk, bh);  // dQ = dS·K
  i.gemm("scores.dgrad_keys", OpKind::Attention, sk, dqk, sq, bh);     // dK = dSᵀ·Q
  if (!m.mla.enabled() && m.query_groups() != m.heads)
    i.memory("kv_repeat.bwd", OpKind::Permute, kHalf * T * 2 * (m.query_groups() + m.heads) * m.head_width() / t);
}

// The projections into Q, K and V on one GPU: GPT's and GQA's one fused QKV GEMM of (a + 2g)·d / t
// columns (attention.py SelfAttention.linear_qkv), or MLA's down-projections (duplicated on every TP
// GPU), their norms and the column-parallel up-projections (multi_latent_attention.py); rotary
// embeddings rotate Q and K where the model has them (TE's fused RoPE: Q and K read and written).
void qkv_projections(const Transformer& m, int t, Emitter e) {
  const double h = m.hidden, T = tokens(m);
  Emitter f = e.at(Pass::F), i = e.at(Pass::I), w = e.at(Pass::W);
  double rotated = 0;  // elements of Q and K per token the rotary embedding touches on this GPU
  if (m.mla.enabled()) {
    const Mla& l = m.mla;
    const double a = m.heads, qk = a * l.qk_head_dim() / t, kv_up = a * (l.qk_nope_head_dim + l.v_head_dim) / t;
    const double latent = l.kv_lora_rank + l.qk_rope_head_dim;
    if (l.q_lora_rank > 0) {
      f.gemm("q_down", OpKind::Gemm, T, l.q_lora_rank, h);
      norm("q_norm", l.q_lora_rank, T, e);
      f.gemm("q_up", OpKind::Gemm, T, qk, l.q_lora_rank);
    } else {
      f.gemm("q_proj", OpKind::Gemm, T, qk, h);
    }
    f.gemm("kv_down", OpKind::Gemm, T, latent, h);
    norm("kv_norm", l.kv_lora_rank, T, e);
    f.gemm("kv_up", OpKind::Gemm, T, kv_up, l.kv_lora_rank);
    i.gemm("kv_up.dgrad", OpKind::Gemm, T, l.kv_lora_rank, kv_up);
    i.gemm("kv_down.dgrad", OpKind::Gemm, T, h, latent);
    w.gemm("kv_up.wgrad", OpKind::Gemm, kv_up, l.kv_lora_rank, T);
    w.gemm("kv_down.wgrad", OpKind::Gemm, latent, h, T);
    if (l.q_lora_rank > 0) {
      i.gemm("q_up.dgrad", OpKind::Gemm, T, l.q_lora_rank, qk);
      i.gemm("q_down.dgrad", OpKind::Gemm, T, h, l.q_lora_rank);
      w.gemm("q_up.wgrad", OpKind::Gemm, qk, l.q_lora_rank, T);
      w.gemm("q_down.wgrad", OpKind::Gemm, l.q_lora_rank, h, T);
    } else {
      i.gemm("q_proj.dgrad", OpKind::Gemm, T, h, qk);
      w.gemm("q_proj.wgrad", OpKind::Gemm, qk, h, T);
    }
    rotated = (a / t + 1) * l.qk_rope_head_dim;  // each query head's rope part and the shared key's
  } else {
    const double columns = (m.query_width() + 2.0 * m.query_groups() * m.head_width()) / t;
    f.gemm("qkv", OpKind::Gemm, T, columns, h);
    i.gemm("qkv.dgrad", OpKind::Gemm, T, h, columns);
    w.gemm("qkv.wgrad", OpKind::Gemm, columns, h, T);
    if (m.qkv_bias) w.memory("qkv.bias_grad", OpKind::BiasGrad, kHalf * columns * T);
    rotated = (m.query_width() + static_cast<double>(m.query_groups()) * m.head_width()) / t;
  }
  if (m.positions == Positions::Rope) {
    f.memory("rope", OpKind::Permute, 2 * kHalf * rotated * T);
    i.memory("rope.bwd", OpKind::Permute, 2 * kHalf * rotated * T);
  }
}

}  // namespace

// Self-attention with its norm and residual: Megatron-Core's SelfAttention / MLASelfAttention and the
// fused kernels around it (megatron/core/transformer/{attention,dot_product_attention,
// multi_latent_attention}.py, megatron/core/fusions/). Bytes per token are each kernel's inputs plus
// outputs; dropout masks are 1 byte per element. Kernels are emitted in the order they run.
void attention_block(const Transformer& m, int t, bool flash, Emitter e, ContextSplit cp) {
  const double h = m.hidden, T = tokens(m), v = m.value_width() / t;
  Emitter f = e.at(Pass::F), i = e.at(Pass::I), w = e.at(Pass::W);
  f.memory(norm_name(m, 0), OpKind::LayerNorm, 4 * h * T);
  // The forward kernels in order, then the backward in reverse: the projections' are emitted first so
  // that F lists QKV before the core, as the GPU runs them.
  std::vector<Kernel> projections;
  qkv_projections(m, t, {projections, Pass::F, e.part, e.count});
  for (const Kernel& k : projections)
    if (k.pass == Pass::F) e.out.push_back(k);
  attention_core_forward(m, t, flash, f, cp);
  f.gemm("projection", OpKind::Gemm, T, h, v);
  residual(m, "bias_dropout_residual1", "bias_dropout_residual1.bwd", e);

  i.gemm("projection.dgrad", OpKind::Gemm, T, v, h);
  attention_core_backward(m, t, flash, i, cp);
  for (const Kernel& k : projections)
    if (k.pass == Pass::I) e.out.push_back(k);
  i.memory(backward_name(norm_name(m, 0)), OpKind::LayerNorm, 6 * h * T);

  for (const Kernel& k : projections)
    if (k.pass == Pass::W && k.kind != OpKind::BiasGrad) e.out.push_back(k);
  w.gemm("projection.wgrad", OpKind::Gemm, h, v, T);
  for (const Kernel& k : projections)
    if (k.pass == Pass::W && k.kind == OpKind::BiasGrad) e.out.push_back(k);
  if (m.linear_bias) w.memory("projection.bias_grad", OpKind::BiasGrad, kHalf * h * T);
}

// The second norm and residual, which a MoE layer keeps around its experts.

}  // namespace pipegrid::model::detail
