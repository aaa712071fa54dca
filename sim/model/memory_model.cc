#include "sim/model/memory_model.h"

#include <algorithm>

namespace pipegrid::model {

namespace {

// Korthikanti et al. 2022 (§4.1), generalised term by term, bytes per token of one layer on one of t
// GPUs without sequence parallelism. `replicated`: what every TP GPU holds whole — the two norms'
// inputs (2h each), the attention's and the MLP's inputs (2h each), the two hidden dropout masks (h
// each), MLA's latents and their norms' inputs. `sharded`: what splits over the t GPUs — Q, K and V as
// the scores and context GEMMs keep them (K and V of the g key-value heads), the context (the
// projection's input) and the MLP's activations (GeLU/relu²: its input and output, 2·2·ffn; SwiGLU:
// gate and up, 2·2·ffn, and their product, 2·ffn). `scores`: the s×s matrices per token of the a
// heads, softmax output 2 bytes, dropout mask 1 and output 2 (2 without dropout).
struct LayerTerms {
  double replicated = 0, sharded = 0, scores = 0;
  double weight_inputs_replicated = 0, weight_inputs_sharded = 0;  // what W reads after I
};

LayerTerms layer_terms(const Transformer& m) {
  const double h = m.hidden, a = m.heads, s = m.seq, ffn = m.ffn();
  LayerTerms terms;
  terms.replicated = 4 * h + 2 * h + 2 * h + (m.dropout ? 2 * h : 0);
  double keys = 0, values = 0;
  if (m.mla.enabled()) {
    const Mla& l = m.mla;
    // c_q into its norm and out of it, c_kv likewise, and the shared rotary key.
    terms.replicated += 4.0 * l.q_lora_rank + 4.0 * l.kv_lora_rank + 2.0 * l.qk_rope_head_dim;
    keys = m.query_width();
    values = m.value_width();
    terms.weight_inputs_replicated += 2.0 * l.q_lora_rank + 2.0 * l.kv_lora_rank;
  } else {
    keys = values = static_cast<double>(m.query_groups()) * m.head_width();
  }
  const double mlp = m.mlp == Mlp::Swiglu ? 6 * ffn : 4 * ffn;
  terms.sharded = 2 * m.query_width() + 2 * keys + 2 * values + 2 * m.value_width() + mlp;
  terms.scores = (m.dropout ? 5 : 2) * a * s;
  // The four weight GEMMs' inputs: the two norms' outputs (2h each), the context and the MLP's
  // down-projection input (2·ffn).
  terms.weight_inputs_replicated += 4 * h;
  terms.weight_inputs_sharded = 2 * m.value_width() + 2 * ffn;
  return terms;
}

}  // namespace

ActivationBytes activation_bytes(const Transformer& m, const Parallelism& par, const StageCost& stage,
                                 bool flash_attention, ComputePrecision precision) {
  // Context parallelism: a GPU holds s/cp tokens of each sequence, so every per-token term is ÷ cp;
  // the scores term (a·s per token: its queries against every key) too — the ring's s/cp queries
  // against all s keys over its steps, or Ulysses' s queries on a/cp heads: 5·a·s²·b/(t·cp).
  const double s = m.seq, b = m.micro_batch, h = m.hidden, t = par.tp, T = s * b / par.cp;
  const LayerTerms terms = layer_terms(m);
  // FlashAttention keeps no s×s matrix (Dao et al. 2022); selective recomputation drops them and runs
  // the core again (Korthikanti §5).
  const bool keep_scores = !flash_attention && par.recompute == Recompute::None;
  // Sequence parallelism shards what TP replicates over the s/t tokens each GPU holds (Korthikanti
  // §4.2.2, Table 2: sbh·34/t + 5as²b/t), the weight GEMMs' gathered inputs kept sharded (Megatron
  // all-gathers them again for W), and a full recomputation's layer input too (Korthikanti §4.4).
  const double sp = par.sequence_parallel ? t : 1;
  // Under FP8, TE's linear layers keep their inputs for the weight gradient as the FP8 copies they
  // cast (1 byte an element, not 2): half the weight GEMMs' inputs.
  const double fp8_saved = precision == ComputePrecision::Fp8 ? 0.5 : 0;
  const double weight_inputs = T * (terms.weight_inputs_replicated / sp + terms.weight_inputs_sharded / t);
  const double per_layer_kept = T * (terms.replicated / sp + terms.sharded / t + (keep_scores ? terms.scores / t : 0)) -
                                fp8_saved * weight_inputs;
  const double per_layer = par.recompute == Recompute::Full ? 2 * T * h / sp : per_layer_kept;
  const double kept_per_layer = (1 - fp8_saved) * weight_inputs;
  ActivationBytes bytes;
  bytes.per_microbatch = stage.layers * per_layer;
  bytes.kept_for_weight_gradient = stage.layers * kept_per_layer;
  if (stage.has_lm_head) bytes.per_microbatch += 4 * T * m.vocab / t;
  if (stage.has_embedding && m.dropout) bytes.per_microbatch += T * h / sp;
  if (bytes.kept_for_weight_gradient > bytes.per_microbatch) bytes.kept_for_weight_gradient = bytes.per_microbatch;
  return bytes;
}

double fp8_weight_copy_bytes(const Transformer& m, int tp, const StageCost& stage) {
  const double table = static_cast<double>(m.vocab) * m.hidden / tp;
  double tables = 0;
  if (stage.has_embedding) tables += table + (m.positions == Positions::Learned ? double(m.seq) * m.hidden : 0);
  if (stage.has_lm_head && !(m.tied_embeddings && stage.has_embedding)) tables += table;
  return 2 * std::max(0.0, static_cast<double>(stage.parameters) - tables);
}

ParameterShards parameter_shards(const StageCost& stage, int gradient_group) {
  return {.dense = static_cast<double>(stage.parameters - stage.routed_parameters),
          .dense_group = gradient_group,
          .routed = static_cast<double>(stage.routed_parameters),
          .routed_group = stage.expert_data_parallel};
}

StaticMemory static_memory(const ParameterShards& p, const Precision& precision, int zero_stage) {
  // `bytes` per parameter, each part ÷ its own group from ZeRO stage `from` on (without routed
  // experts the second term is 0 and the sum that of one group, bit for bit).
  const auto held = [&](double bytes, int from) {
    return bytes * p.dense / (zero_stage >= from ? p.dense_group : 1) +
           bytes * p.routed / (zero_stage >= from ? p.routed_group : 1);
  };
  StaticMemory memory;
  memory.weights = held(2, 3);
  memory.gradients = held(precision.gradient_bytes, 2);
  memory.optimizer = held(12, 1);
  return memory;
}

StaticMemory static_memory(std::int64_t parameters, const Precision& precision, int gradient_group, int zero_stage) {
  return static_memory({.dense = static_cast<double>(parameters), .dense_group = gradient_group}, precision, zero_stage);
}

}  // namespace pipegrid::model
