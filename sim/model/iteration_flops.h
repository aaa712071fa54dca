// FLOPs of one training iteration, all GPUs together: the numerators of MFU and of Megatron's
// throughput figures.
#pragma once

#include <cstdint>

#include "sim/model/parallelism.h"
#include "sim/model/transformer.h"

namespace pipegrid::model {

/// How the attention core's s×s scores and context are counted: the whole square (Megatron-LM's
/// count; what the unfused kernels compute, masked half included) or its causal half (what causal
/// FlashAttention computes, skipping the masked blocks, and what NeMo's flops formulas count).
enum class AttentionCount { Square, Causal };

/// Hardware FLOPs of one iteration over a global batch of `global_batch` sequences: what the GPUs
/// execute, recomputed forwards included. With full recomputation and ffn = 4h this is the formula
/// Narayanan et al. (SC 2021, §5.1) use for their TFLOP/s: 96·B·s·l·h²·(1 + s/(6h) + V/(16·l·h)) — each
/// layer 4 × its forward, the LM head 3 × its forward (not recomputed). It equals the sum of the stage
/// costs' F + B over all stages, micro-batches, replicas and tensor-parallel GPUs (for a MoE model the
/// stage costs add the router's GEMM, which Megatron's count leaves out).
/// Counted `attention`'s way (the formulas above are Square's).
/// Throws InputError `--global-batch N: must be positive`, or the model's own InputError.
double hardware_flops_per_iteration(const Transformer& model, std::int64_t global_batch, Recompute recompute,
                                    AttentionCount attention);

/// Model FLOPs of one iteration: the same without recomputation, 72·B·s·l·h²·(1 + s/(6h) + V/(12·l·h))
/// with ffn = 4h (Korthikanti et al. 2022, "Reducing Activation Recomputation", Appendix A). Model
/// FLOPs utilization (MFU, Chowdhery et al. 2022) divides this by peak FLOP/s × time, so a run is not
/// credited for work it chose to redo. For today's models it is Megatron-LM's
/// num_floating_point_operations (megatron/training/training.py): 12·B·s·l·h²·((1 + g/a + s/h)·a·d/h
/// + ffn/h·(3/2 if gated)) + 6·B·s·h·V for dense layers, a MoE layer's MLP term k routed plus the shared
/// experts of width H_e (SwiGLU), the router not counted; MLA counts its own projections' weights.
double model_flops_per_iteration(const Transformer& model, std::int64_t global_batch, AttentionCount attention);

}  // namespace pipegrid::model
