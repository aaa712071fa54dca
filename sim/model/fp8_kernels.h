// A stage's kernels as Transformer Engine runs them under fp8_autocast (--precision fp8): which GEMMs
// run on the FP8 tensor cores and the casts that feed them (docs/compute-model.md, "FP8").
#pragma once

#include <vector>

#include "sim/model/gpu_spec.h"
#include "sim/model/kernels.h"

namespace pipegrid::model::detail {

/// Marks the weight GEMMs of `kernels` (the layers' `Gemm` and the experts', not the router, the
/// attention core or the LM head, which Megatron-Core keeps outside TE's FP8 modules) as FP8, their
/// operands read as 1 byte an element, and adds what feeds them:
/// - before each forward GEMM, TE's cast-transpose of its bf16 input (read 2 bytes, write the FP8
///   copy and its transpose, 1 + 1), kept for the weight gradient — but QKV and the MLP's first GEMM
///   take theirs from the norm before them, which writes the FP8 copy itself (TE's LayerNormLinear),
///   and pay only its transpose;
/// - before each input-gradient GEMM, the same of its output gradient, which wgrad reuses; a
///   row-parallel GEMM's under sequence parallelism is cast on the GPU's s/t tokens and gathered in FP8;
/// - once a step, each weight's cast and transpose (TE caches them across micro-batches:
///   `is_first_microbatch`);
/// - with delayed scaling (Hopper), one amax-and-scale update per forward and per backward of the
///   stage (TE's fused `reduce_and_update_fp8_tensors`); MXFP8 (Blackwell) writes a 1-byte scale per
///   32 elements of each copy instead and keeps no amax history.
/// - around the routed experts' grouped GEMMs, Megatron-Core's TEGroupedMLP's copies of their tokens
///   to FP8's row alignment and back (`pad_routed_tokens`, --fp8-moe-padding);
/// `sequence_shards` is t under sequence parallelism, else 1.
void run_in_fp8(std::vector<Kernel>& kernels, Fp8Recipe recipe, int sequence_shards, bool pad_routed_tokens = true);

}  // namespace pipegrid::model::detail
