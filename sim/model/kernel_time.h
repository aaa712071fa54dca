// How long one kernel runs on a GPU (docs/compute-model.md): GEMMs by tile and wave quantisation at
// the tensor-core peak, memory-bound kernels by their bytes at the HBM bandwidth, and no kernel
// shorter than the host takes to issue it.
#pragma once

#include "sim/model/gpu_spec.h"
#include "sim/model/kernels.h"

namespace pipegrid::model {

/// A GEMM's compute time: for each of the GPU's output tiles tm×tn, batch·⌈m/tm⌉·⌈n/tn⌉ tiles run in
/// waves of one tile per SM, each wave 2·tm·tn·k FLOPs at η·peak/SMs per SM plus τ — the cheapest
/// tile, as cuBLAS's heuristics pick one (NVIDIA, Matrix Multiplication Background, §3.1–3.2). An
/// `fp8` GEMM runs at the FP8 peak and its own η when the GPU's calibration fits one.
double gemm_compute_seconds(const GemmShape& gemm, const GpuSpec& gpu, bool fp8 = false);

/// One launch of `kernel`: max(floor, compute, bytes / (η_mem·BW)), where compute is the tiled GEMM
/// time, or FLOPs / (η·peak) for a fused kernel such as FlashAttention's, and the floor is the
/// host's cost of issuing a kernel (a GPU faster than its host waits for the next launch).
double kernel_seconds(const Kernel& kernel, const GpuSpec& gpu);

}  // namespace pipegrid::model
