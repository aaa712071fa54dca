#include "sim/model/compute_model.h"

#include "sim/model/kernel_time.h"

namespace pipegrid::model {
namespace {

double& pass_of(Flops& f, Pass pass) {
  switch (pass) {
    case Pass::I: return f.backward_input;
    case Pass::W: return f.backward_weight;
    default: return f.forward;
  }
}

}  // namespace

ComputeWork efficiency_work(const StageCost& stage, double efficiency, const Flops& attention_core) {
  const double k = 1 / efficiency;
  // Every FLOP at one efficiency: all of it counts as the GEMMs a TP collective can hide under.
  return {k * stage.flops, k * stage.moe.non_expert, k * stage.moe.shared_experts, k * stage.moe.routed_per_assignment,
          0, k * stage.flops, k * attention_core};
}

StageCompute stage_compute(std::vector<Kernel> kernels, const GpuSpec& gpu, double routed_assignments) {
  StageCompute c;
  c.kernels = std::move(kernels);
  c.routed_assignments = routed_assignments;
  for (const Kernel& k : c.kernels) {
    const double seconds = k.count * kernel_seconds(k, gpu);
    c.seconds.push_back(seconds);
    if (k.pass == Pass::Step) {
      c.optimizer_seconds += seconds;
      continue;
    }
    Flops& part = k.part == Part::Shared ? c.shared : k.part == Part::Routed ? c.routed : c.dense;
    pass_of(part, k.pass) += seconds;
    if (k.kind == OpKind::Gemm || k.kind == OpKind::LmHead) pass_of(c.tp_gemms, k.pass) += seconds;
    if (k.kind == OpKind::Attention && !k.recomputed) pass_of(c.attention_core, k.pass) += seconds;
  }
  return c;
}

ComputeWork kernel_work(const StageCompute& c, double reference_speed) {
  ComputeWork w;
  w.non_expert = reference_speed * c.dense;
  w.shared = reference_speed * c.shared;
  if (c.routed_assignments > 0) w.routed_per_assignment = (reference_speed / c.routed_assignments) * c.routed;
  w.total = w.non_expert + w.shared + reference_speed * c.routed;
  w.optimizer = c.optimizer_seconds;
  w.tp_gemms = reference_speed * c.tp_gemms;
  w.attention_core = reference_speed * c.attention_core;
  return w;
}

}  // namespace pipegrid::model
