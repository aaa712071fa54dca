// The kernels one GPU launches for a stage of a transformer, per micro-batch, as Megatron-LM runs a
// GPT layer (docs/compute-model.md lists them with their sources): each GEMM with its shape, each
// memory-bound kernel with the bytes it moves, each collective with its launch.
#pragma once

#include <string_view>
#include <vector>

#include "common/named.h"
#include "sim/model/gpu_spec.h"
#include "sim/model/parallelism.h"
#include "sim/model/stage_cost.h"
#include "sim/model/transformer.h"

namespace pipegrid::model {

/// Which action a kernel belongs to: the forward F, the backward for inputs I, the backward for
/// weights W (B = I + W), or the optimizer's step after the last backward.
enum class Pass { F, I, W, Step };

/// What `compute_breakdown` groups kernels by.
enum class OpKind {
  Gemm,         // the layer's weight GEMMs: QKV, attention projection, the two MLP matrices
  Attention,    // scores Q·Kᵀ and context P·V (batched GEMMs), or one FlashAttention kernel
  LmHead,       // the logits GEMM of the last stage
  Experts,      // MoE: shared and routed experts as grouped GEMMs, the router
  LayerNorm,
  Softmax,      // fused scale + causal mask + softmax of the scores
  Dropout,      // attention dropout (its mask) and the embedding's
  Activation,   // bias + GeLU, or SwiGLU in experts
  Residual,     // bias + dropout + residual add
  Permute,      // layout changes: attention context, MoE token permutation
  BiasGrad,     // column sums of the output gradient
  Embedding,    // the word and position lookup and its gradient's scatter-add
  CrossEntropy, // vocabulary-parallel softmax cross-entropy
  Collective,   // the launch of a tensor-parallel all-reduce (its time on the network is the executor's)
  Fp8Cast,      // FP8: casting a GEMM's bf16 operand (and its transpose), the scales' update
  GradAccumulation,  // adding a micro-batch's weight gradients into the main gradients
  Optimizer,    // Adam with fp32 master weights
};
std::string_view to_string(OpKind kind);
std::string_view to_string(Pass pass);

/// Which MoE phase a kernel is in: everything but the experts is `Dense` (DeepSeek-V3's "attention"
/// phase); `Routed` kernels are the grouped GEMMs of the routed experts at the mean tokens per expert.
enum class Part { Dense, Shared, Routed };

/// A GEMM C[m×n] = A[m×k]·B[k×n], `batch` of them side by side (a batched or grouped GEMM).
struct GemmShape {
  double m = 0, n = 0, k = 0, batch = 0;  // batch 0: not a GEMM
};

struct Kernel {
  std::string_view name;  // "qkv", "qkv.dgrad", "softmax.bwd", …
  OpKind kind = OpKind::Gemm;
  Pass pass = Pass::F;
  Part part = Part::Dense;
  double count = 1;     // identical launches: one per layer of the stage, say
  GemmShape gemm;       // tiled on the SMs (kernel_time.h)
  double flops = 0;     // of one launch; GEMMs 2·m·n·k·batch
  double bytes = 0;     // HBM traffic of one launch, read + written
  bool recomputed = false;  // a forward kernel run again in I under full recomputation
  bool fp8 = false;         // a GEMM on the FP8 tensor cores (--precision fp8)
};

/// --grad-accumulation: fused (the weight-gradient GEMM adds into the main gradient, Megatron's
/// --gradient-accumulation-fusion) or separate (a kernel of its own per tensor and micro-batch).
inline constexpr Named<bool> kGradAccumulations[] = {{"fused", true}, {"separate", false}};

/// How the stage runs: FlashAttention instead of the unfused attention path, and what the
/// optimizer's step streams.
struct KernelOptions {
  bool flash_attention = false;
  /// Megatron's --gradient-accumulation-fusion (the default since 2022): the weight-gradient GEMM
  /// accumulates into the main gradient. Without it (`false`: Megatron of 2021, autograd's own
  /// accumulation) each parameter tensor's gradient is added in a kernel of its own per micro-batch,
  /// reading both and writing the main gradient back: (2·gradient_bytes + 2) bytes per parameter.
  bool fused_grad_accumulation = true;  // --grad-accumulation (kGradAccumulations)
  int gradient_bytes = 4;
  double optimizer_bytes_per_parameter = 42;
  bool distributed_optimizer = false;
  int dp = 1;  // the GPUs the dense parameters are sharded over, d·cp (the routed experts: StageCost)
  ComputePrecision precision = ComputePrecision::Bf16;
  Fp8Recipe fp8_recipe = Fp8Recipe::Delayed;  // the GPU's (gpu_spec.h), with precision Fp8
  bool fp8_moe_padding = true;                // --fp8-moe-padding: TEGroupedMLP's copies (fp8_kernels.h)
};

/// One dense transformer layer on one GPU of its tensor-parallel group of t (no sequence
/// parallelism): F, I and W, bf16 activations (2 bytes), 1-byte dropout masks.
std::vector<Kernel> layer_kernels(const Transformer& model, int tp, bool flash_attention);

/// Every kernel of `stage` on one of its GPUs for one micro-batch, with the optimizer's step
/// (Pass::Step, once per step). `count` folds the stage's layers; recomputation adds the layers'
/// forward kernels again to I.
std::vector<Kernel> stage_kernels(const Transformer& model, const Parallelism& parallelism, const StageCost& stage,
                                  const KernelOptions& options);

}  // namespace pipegrid::model
