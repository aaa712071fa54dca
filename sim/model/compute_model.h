// What one GPU of each stage computes per micro-batch, as work for the executor: either the kernel
// model's times on a GPU (the default) or FLOPs at one efficiency (--compute-efficiency).
#pragma once

#include <vector>

#include "sim/model/gpu_spec.h"
#include "sim/model/kernels.h"
#include "sim/model/layer_costs.h"
#include "sim/model/stage_cost.h"

namespace pipegrid::model {

/// One GPU's work per micro-batch, in FLOPs at a reference speed: an op of W FLOPs takes W / speed
/// on a GPU of that speed, so a GPU made slower in the platform file takes longer. The MoE phases
/// apart (DeepSeek-V3's attention, experts): `total` is what a dense stage runs, and for a MoE stage
/// `non_expert` + `shared` + (the GPU's assignments) × `routed_per_assignment`.
struct ComputeWork {
  Flops total;
  Flops non_expert;
  Flops shared;
  Flops routed_per_assignment;
  double optimizer = 0;  // the step's update, seconds (kernel model only)
  /// The tensor-parallel GEMMs' part of `total` (QKV, projection, MLP, LM head): what
  /// --tp-comm-overlap hides the TP collectives under.
  Flops tp_gemms;
  /// The attention core's part (forward; backward_input without recomputation's), over all the
  /// stage's layers: what the context-parallel ring's KV sends overlap with, one step at a time.
  Flops attention_core;
};

/// The old model: the stage's FLOPs divided by `efficiency` (its optimizer is charged elsewhere).
ComputeWork efficiency_work(const StageCost& stage, double efficiency, const Flops& attention_core = {});

/// The kernel model's times on `gpu`, one entry per kernel of `kernels` (seconds of all its launches).
struct StageCompute {
  std::vector<Kernel> kernels;
  std::vector<double> seconds;
  Flops dense, shared, routed;  // seconds per pass (forward, backward_input, backward_weight)
  Flops tp_gemms;               // the dense GEMMs' and the LM head's part of them
  Flops attention_core;         // the attention core's kernels (not recomputed ones)
  double optimizer_seconds = 0;
  double routed_assignments = 0;  // T·k: the assignments `routed` is the cost of
};
StageCompute stage_compute(std::vector<Kernel> kernels, const GpuSpec& gpu, double routed_assignments);

/// Seconds × `reference_speed` (the platform GPUs' FLOP/s): the work a GPU of that speed runs in the
/// kernel model's time.
ComputeWork kernel_work(const StageCompute& compute, double reference_speed);

}  // namespace pipegrid::model
