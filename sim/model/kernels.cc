#include "sim/model/kernels.h"

#include "sim/model/fp8_kernels.h"
#include "sim/model/kernel_emitter.h"

namespace pipegrid::model {
namespace {

using detail::attention_block;
using detail::attention_core_forward;
using detail::backward_name;
using detail::Emitter;
using detail::kHalf;
using detail::norm_name;

void mlp_norm_and_residual(const Transformer& m, Emitter e) {
  const double h = m.hidden, T = tokens(m);
  e.at(Pass::F).memory(norm_name(m, 1), OpKind::LayerNorm, 4 * h * T);
  e.at(Pass::F).memory("bias_dropout_residual2", OpKind::Residual, (m.dropout ? 7 : 6) * h * T);
  if (m.dropout) e.at(Pass::I).memory("bias_dropout_residual2.bwd", OpKind::Residual, 5 * h * T);
  e.at(Pass::I).memory(backward_name(norm_name(m, 1)), OpKind::LayerNorm, 6 * h * T);
}

// The dense MLP, column- then row-parallel (megatron/core/transformer/mlp.py): GPT's h → ffn → h with
// a fused bias-GeLU (fused_bias_gelu.py), Nemotron's with relu², or SwiGLU's gate and up as one GEMM
// of 2·ffn columns, the fused SwiGLU (fused_bias_swiglu.py: reads 2·ffn, writes ffn), then down.
void mlp(const Transformer& m, int t, Emitter e) {
  const double h = m.hidden, T = tokens(m), f = static_cast<double>(m.ffn()) / t;
  const bool gated = m.mlp == Mlp::Swiglu;
  const double up = gated ? 2 * f : f;
  const std::string_view up_name = gated ? "mlp_gate_up" : "mlp_up";
  mlp_norm_and_residual(m, e);
  Emitter fw = e.at(Pass::F), i = e.at(Pass::I), w = e.at(Pass::W);
  fw.gemm(up_name, OpKind::Gemm, T, up, h);
  switch (m.mlp) {
    case Mlp::Gelu: fw.memory(m.linear_bias ? "bias_gelu" : "gelu", OpKind::Activation, 4 * f * T); break;
    case Mlp::SquaredRelu: fw.memory("squared_relu", OpKind::Activation, 4 * f * T); break;
    case Mlp::Swiglu: fw.memory("swiglu", OpKind::Activation, 3 * kHalf * f * T); break;
  }
  fw.gemm("mlp_down", OpKind::Gemm, T, h, f);
  i.gemm("mlp_down.dgrad", OpKind::Gemm, T, f, h);
  switch (m.mlp) {
    case Mlp::Gelu: i.memory(m.linear_bias ? "bias_gelu.bwd" : "gelu.bwd", OpKind::Activation, 6 * f * T); break;
    case Mlp::SquaredRelu: i.memory("squared_relu.bwd", OpKind::Activation, 6 * f * T); break;
    case Mlp::Swiglu: i.memory("swiglu.bwd", OpKind::Activation, 5 * kHalf * f * T); break;
  }
  i.gemm(gated ? "mlp_gate_up.dgrad" : "mlp_up.dgrad", OpKind::Gemm, T, h, up);
  w.gemm(gated ? "mlp_gate_up.wgrad" : "mlp_up.wgrad", OpKind::Gemm, up, h, T);
  w.gemm("mlp_down.wgrad", OpKind::Gemm, h, f, T);
  if (m.linear_bias) {
    w.memory(gated ? "mlp_gate_up.bias_grad" : "mlp_up.bias_grad", OpKind::BiasGrad, kHalf * up * T);
    w.memory("mlp_down.bias_grad", OpKind::BiasGrad, kHalf * h * T);
  }
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
// token dispatcher) on the GPU's own T tokens (its sequence shard under TP): a T×E GEMM, and each of
// the T·k assignments' h elements copied in and out.
void router(const Transformer& m, double T, Emitter e) {
  const double h = m.hidden, E = m.moe.experts, k = m.moe.top_k;
  e.at(Pass::F).gemm("router", OpKind::Experts, T, E, h);
  e.at(Pass::F).memory("dispatch_permute", OpKind::Permute, 2 * kHalf * T * k * h);
  e.at(Pass::F).memory("combine_unpermute", OpKind::Permute, 2 * kHalf * T * k * h);
  e.at(Pass::I).memory("combine_unpermute.bwd", OpKind::Permute, 2 * kHalf * T * k * h);
  e.at(Pass::I).memory("dispatch_permute.bwd", OpKind::Permute, 2 * kHalf * T * k * h);
  e.at(Pass::I).gemm("router.dgrad", OpKind::Experts, T, h, E);
  e.at(Pass::W).gemm("router.wgrad", OpKind::Experts, E, h, T);
}

// The shared experts are a TP-split MLP over the micro-batch's tokens (SharedExpertMLP gathers the
// sequence shards); the routed ones a 1/etp column slice (Megatron-Core's expert tensor parallelism).
void moe_layer(const Transformer& m, int t, const MoeStageCost& stage, bool flash, Emitter e,
               detail::ContextSplit split) {
  const MoeSpec& moe = m.moe;
  attention_block(m, t, flash, e, split);
  mlp_norm_and_residual(m, e);
  router(m, static_cast<double>(stage.tokens), e);
  if (moe.shared_experts > 0) {
    Emitter shared = e;
    shared.part = Part::Shared;
    experts(m, static_cast<double>(moe.expert_hidden) / t * moe.shared_experts, tokens(m), 1, shared);
  }
  // The GPU's E/ep experts share what its ETP group received: on average T·k·etp assignments, T·k·ep·etp/E
  // per expert (the executor scales the whole by the member's actual share).
  Emitter routed = e;
  routed.part = Part::Routed;
  const double local = static_cast<double>(moe.experts) / moe.ep;
  experts(m, static_cast<double>(moe.expert_hidden) / stage.etp, stage.assignments / local, local, routed);
}

void embedding(const Transformer& m, Emitter e) {
  const double h = m.hidden, T = tokens(m);
  // Word rows (and learned position rows, summed): each table read 2h and the sum written 2h per token.
  const bool learned = m.positions == Positions::Learned;
  e.at(Pass::F).memory("embedding", OpKind::Embedding, (learned ? 6 : 4) * h * T);
  if (m.dropout) {
    e.at(Pass::F).memory("embedding_dropout", OpKind::Dropout, 5 * h * T);
    e.at(Pass::I).memory("embedding_dropout.bwd", OpKind::Dropout, 5 * h * T);
  }
  // The scatter-add of the gradient rows into each table's fp32 gradient, 6h bytes per token a table.
  e.at(Pass::W).memory("embedding.wgrad", OpKind::Embedding, (learned ? 12 : 6) * h * T);
}

// The final LayerNorm, the logits GEMM against the (vocabulary-parallel) word embeddings and the
// cross-entropy in fp32 (megatron/core/tensor_parallel/cross_entropy.py): max, exp-sum, the loss.
void lm_head(const Transformer& m, int t, Emitter e) {
  const double h = m.hidden, T = tokens(m), v = static_cast<double>(m.vocab) / t;
  Emitter f = e.at(Pass::F), i = e.at(Pass::I), w = e.at(Pass::W);
  f.memory(norm_name(m, 2), OpKind::LayerNorm, 4 * h * T);
  f.gemm("lm_head", OpKind::LmHead, T, v, h);
  f.memory("cross_entropy", OpKind::CrossEntropy, 12 * v * T);
  i.memory("cross_entropy.bwd", OpKind::CrossEntropy, 8 * v * T);
  i.gemm("lm_head.dgrad", OpKind::LmHead, T, h, v);
  i.memory(backward_name(norm_name(m, 2)), OpKind::LayerNorm, 6 * h * T);
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
    case OpKind::Fp8Cast: return "fp8_cast";
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

std::vector<Kernel> stage_kernels(const Transformer& whole, const Parallelism& par, const StageCost& stage,
                                  const KernelOptions& options) {
  const int t = par.tp;
  // Context parallelism: every kernel runs on the GPU's s/cp tokens, the attention core as
  // ContextSplit shapes it (Transformer Engine's ring or Ulysses).
  Transformer model = whole;
  model.seq = whole.seq / par.cp;
  const detail::ContextSplit split{par.cp, par.cp_algo == CpAlgo::AllToAll};
  const int moe_layers = stage.moe.moe_layers;
  std::vector<Kernel> layers;
  if (stage.layers > moe_layers) {
    Emitter dense{layers, Pass::F, Part::Dense, static_cast<double>(stage.layers - moe_layers)};
    attention_block(model, t, options.flash_attention, dense, split);
    mlp(model, t, dense);
  }
  if (moe_layers > 0)
    moe_layer(model, t, stage.moe, options.flash_attention, {layers, Pass::F, Part::Dense, double(moe_layers)}, split);

  std::vector<Kernel> out = layers;
  // Full recomputation runs each layer's forward again just before its backward; selective only its
  // attention core (Megatron-Core's CheckpointWithoutOutput around core_attention).
  std::vector<Kernel> again;
  if (par.recompute == Recompute::Full) again = layers;
  if (par.recompute == Recompute::Selective && stage.layers > 0)
    attention_core_forward(model, t, options.flash_attention, {again, Pass::F, Part::Dense, double(stage.layers)}, split);
  for (Kernel k : again)
    if (k.pass == Pass::F) {
      k.pass = Pass::I;
      k.recomputed = true;
      out.push_back(k);
    }
  if (stage.has_embedding) embedding(model, {out});
  if (stage.has_lm_head) lm_head(model, t, {out});
  // Sequence parallelism: the norms, the residuals and the embedding's dropout run on the GPU's s/t
  // tokens (Korthikanti §4.2.2); the attention core's dropout is split by heads already.
  if (par.sequence_parallel && t > 1)
    for (Kernel& k : out)
      if (k.kind == OpKind::LayerNorm || k.kind == OpKind::Residual ||
          (k.kind == OpKind::Dropout && k.name.starts_with("embedding_dropout")))
        k.bytes /= t;
  // Each tensor-parallel collective is a NCCL kernel the host launches like any other.
  const auto launches = [&](std::string_view name, Pass pass, int count) {
    if (count > 0)
      out.push_back({.name = name, .kind = OpKind::Collective, .pass = pass, .count = static_cast<double>(count), .gemm = {}});
  };
  launches("tp_allreduce", Pass::F, stage.tp_allreduces_per_forward);
  launches("tp_allreduce", Pass::I, stage.tp_allreduces_per_backward);
  launches("tp_all_gather", Pass::F, stage.tp_all_gathers_per_forward);
  launches("tp_reduce_scatter", Pass::F, stage.tp_reduce_scatters_per_forward);
  launches("tp_all_gather", Pass::I, stage.tp_all_gathers_per_backward);
  launches("tp_reduce_scatter", Pass::I, stage.tp_reduce_scatters_per_backward);
  // The ETP group's all-gather before the experts and reduce-scatter after them, per MoE layer, and
  // their conjugates backward (token_dispatcher.py: dispatch_postprocess, combine_preprocess).
  if (stage.moe.etp > 1)
    for (const Pass pass : {Pass::F, Pass::I}) {
      launches("etp_all_gather", pass, moe_layers);
      launches("etp_reduce_scatter", pass, moe_layers);
    }
  if (!options.fused_grad_accumulation && stage.parameters > 0) {
    // One add per parameter tensor: a layer has 12 (4 weights, 4 biases, 2 LayerNorms of 2), the
    // embeddings and the head 1 or 2 more; the bytes spread over them.
    const double tensors = 12.0 * stage.layers + (stage.has_embedding ? 2 : 0) + (stage.has_lm_head ? 3 : 0);
    out.push_back({.name = "grad_accumulate", .kind = OpKind::GradAccumulation, .pass = Pass::W, .count = tensors,
                   .gemm = {}, .bytes = static_cast<double>(stage.parameters) * (2.0 * options.gradient_bytes + 2) / tensors});
  }
  if (options.precision == ComputePrecision::Fp8)
    detail::run_in_fp8(out, options.fp8_recipe, par.sequence_parallel ? t : 1, options.fp8_moe_padding);
  // The distributed optimizer updates each GPU's shard: the dense parameters' 1/d·cp, the routed
  // experts' 1/edp (memory_model.h, ParameterShards).
  const double dense = static_cast<double>(stage.parameters - stage.routed_parameters);
  const double routed = static_cast<double>(stage.routed_parameters);
  const double updated = options.distributed_optimizer ? dense / options.dp + routed / stage.expert_data_parallel
                                                       : dense + routed;
  out.push_back({.name = "adam", .kind = OpKind::Optimizer, .pass = Pass::Step,
                 .gemm = {}, .bytes = updated * options.optimizer_bytes_per_parameter});
  return out;
}

}  // namespace pipegrid::model
