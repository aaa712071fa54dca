// What a GPU's memory holds during a step: the activations of the micro-batches in flight and, all
// the time, its parameters, their gradients and the optimizer's state.
#pragma once

#include <cstdint>

#include "sim/model/parallelism.h"
#include "sim/model/stage_cost.h"
#include "sim/model/transformer.h"

namespace pipegrid::model {

/// One micro-batch's activations on one GPU of a stage (Korthikanti et al. 2022, "Reducing
/// Activation Recomputation in Large Transformer Models", §4–5, Table 2; bf16 with 1-byte dropout
/// masks). For GPT, per layer: s·b·h·(10 + 24/t) + 5·a·s²·b/t bytes without recomputation — s·b·(34h +
/// 5as) at t = 1 —, s·b·h·(10 + 24/t) with selective recomputation (the attention core's scores
/// dropped and recomputed), only the layer's input, 2·s·b·h, with full recomputation. Today's layers
/// follow the same terms (memory_model.cc): K and V of the g key-value heads, SwiGLU's 6·ffn instead of
/// 4·ffn, no masks without dropout (and 2·a·s² for the scores), MLA's latents. The LM head's stage adds
/// its fp32 logits, 4·s·b·V/t (their §4.3), stage 0 the embedding's dropout mask, s·b·h.
/// `kept_for_weight_gradient`: what a split backward's W still reads after I — the inputs of the
/// weight GEMMs, for GPT 2sbh (norm 1 output) + 2sbh/t (attention context) + 2sbh (norm 2 output) +
/// 8sbh/t (GeLU output) = s·b·h·(4 + 10/t) per layer (14 of the 34 at t = 1); with full
/// recomputation the same, as I recomputes them for W. With sequence parallelism every term above
/// that TP replicates is ÷ t: s·b·h·34/t + 5·a·s²·b/t per GPT layer (Korthikanti's Table 2).
struct ActivationBytes {
  double per_microbatch = 0;
  double kept_for_weight_gradient = 0;
};
/// With `flash_attention` the attention scores and their dropout mask are not stored (they are
/// recomputed in the backward; Dao et al. 2022): the 5·a·s²·b/t term goes, as with selective.
ActivationBytes activation_bytes(const Transformer& model, const Parallelism& parallelism, const StageCost& stage,
                                 bool flash_attention = false,
                                 ComputePrecision precision = ComputePrecision::Bf16);

/// A GPU's parameters of a stage by the group ZeRO shards them over. Megatron-Core keeps two sets of
/// buffers (megatron/core/distributed/distributed_data_parallel.py): the dense parameters' — shared
/// experts included — reduced over the data-parallel group with context parallelism (d·cp), and the
/// routed experts' (their linear layers marked allreduce=False, extensions/transformer_engine.py) over
/// the expert-data-parallel group, the edp = t·cp·d / (ep·etp) GPUs that hold the same experts; the
/// distributed optimizer shards each buffer over its own group (optimizer/__init__.py builds the
/// experts' optimizer on get_expert_data_parallel_group()).
struct ParameterShards {
  double dense = 0;
  int dense_group = 1;  // d·cp (Parallelism::gradient_group_size)
  double routed = 0;
  int routed_group = 1;  // edp (StageCost::expert_data_parallel)
};
/// `stage`'s parameters on one GPU, the dense ones over `gradient_group`.
ParameterShards parameter_shards(const StageCost& stage, int gradient_group);

/// Bytes per parameter held all step long in Megatron's mixed precision: the bf16 weight (2), its
/// gradient (`gradient_bytes`, fp32 main grads: 4) and Adam's fp32 master weight, momentum and
/// variance (12) — with ZeRO (Rajbhandari et al. 2020, §5) divided over the replicas holding the
/// parameter (ParameterShards: the dense ones over d·cp, routed experts over edp): stage 1 (the
/// distributed optimizer) the optimizer state, 2 the gradients too, 3 the weights too. What a
/// sharded stage holds whole for a while — ZeRO-2's gradient buckets in flight, ZeRO-3's gathered
/// parameters and gradients not yet reduce-scattered — depends on the schedule: the run layer adds
/// it (simulation_run.cc, zero_working_set).
struct StaticMemory {
  double weights = 0;
  double gradients = 0;
  double optimizer = 0;
  double unsharded_weights = 0;    // ZeRO-3: bf16 parameters all-gathered
  double unreduced_gradients = 0;  // ZeRO-2/3: gradients whole until reduce-scattered
  double fp8_weights = 0;          // --precision fp8: TE's cached FP8 copy of each weight and its transpose
  double total() const { return weights + gradients + optimizer + unsharded_weights + unreduced_gradients + fp8_weights; }
};
/// `zero_stage` 0-3 shards the optimizer state, then the gradients, then the parameters.
StaticMemory static_memory(const ParameterShards& parameters, const Precision& precision, int zero_stage);
/// --precision fp8: the FP8 copy and transpose of each weight of the stage's FP8 GEMMs that Transformer
/// Engine keeps across the step's micro-batches (2 bytes a parameter): all but the embedding tables
/// and the LM head's (bf16), whole on every GPU of the stage whatever the ZeRO stage.
double fp8_weight_copy_bytes(const Transformer& model, int tp, const StageCost& stage);
/// A stage without routed experts: all `parameters` sharded over `gradient_group`.
StaticMemory static_memory(std::int64_t parameters, const Precision& precision, int gradient_group, int zero_stage);

}  // namespace pipegrid::model
