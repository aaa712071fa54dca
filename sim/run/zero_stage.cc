#include "sim/run/zero_stage.h"

#include <algorithm>
#include <fmt/format.h>

#include "common/input_error.h"

namespace pipegrid::run {

namespace {

void check_fsdp_layout(const sim::SimulationInput& in) {
  const Schedule& s = in.schedule;
  if (in.costs.routing().enabled())
    throw InputError("--zero 3: FSDP of mixture-of-experts layers is not modelled; run them with --zero 2 or less");
  if (s.layout.num_model_stages() != s.num_stages())
    throw InputError(fmt::format("--zero 3: {} holds a model stage on two ranks, which FSDP (torchtitan) does not "
                                 "shard; run it with --zero 2 or less",
                                 s.name));
  const sim::ExecOptions& o = in.options;
  if (o.dp_comm == sim::CommFidelity::Flow && o.tp_comm == sim::CommFidelity::Flow && in.placement.sizes().tp > 1)
    throw InputError("--zero 3 --dp-comm flow: the TP collectives as flows are not cut at FSDP's units; use "
                     "--tp-comm analytic or --dp-comm analytic");
  // The tags of its collectives (sim/exec/tags.h fsdp_context).
  if (s.num_stages() > 1024) throw InputError(fmt::format("--zero 3: at most 1024 stages, the job has {}", s.num_stages()));
  if (s.microbatches > 2048)
    throw InputError(fmt::format("--zero 3: at most 2048 micro-batches, the job has {}", s.microbatches));
  for (int stage = 0; stage < s.num_stages(); ++stage)
    if (in.costs.stage(stage).fsdp_blocks > 510)
      throw InputError(fmt::format("--zero 3: at most 510 layers a stage, stage {} has {}", stage,
                                   in.costs.stage(stage).fsdp_blocks));
}

}  // namespace

void apply_zero(const ModelSpec& model, sim::SimulationInput& in) {
  sim::ExecOptions& o = in.options;
  o.sync_whole_job = model.zero >= 1;  // each replica updates its shard: the check spans the job
  o.distributed_optimizer = model.zero == 1 || model.zero == 2;
  if (model.zero < 3) return;
  check_fsdp_layout(in);
  // One GPU in the gradient group (d·cp: torchtitan's dp_shard × cp mesh): no collective to run.
  if (in.placement.gradient_group(0).size() < 2) return;
  if (in.schedule.ranks > 1)
    o.fsdp = model.fsdp_reshard_after_forward ? FsdpGathers::PerOp : FsdpGathers::OncePerStep;
  else
    o.fsdp = model.fsdp_reshard_after_forward ? FsdpGathers::PerOp : FsdpGathers::PerOpKeepLast;
}

void add_zero_working_set(const ModelSpec& model, int pp, double bucket_bytes, const model::StageCost& cost,
                          const model::Precision& precision, model::StaticMemory& held) {
  const double n = static_cast<double>(cost.parameters), gradients = precision.gradient_bytes * n;
  if (model.zero == 2) {
    held.unreduced_gradients = std::min(2 * bucket_bytes, gradients);
    return;
  }
  if (model.zero < 3) return;
  const double block = static_cast<double>(cost.layer_parameters);
  const double root = std::max(0.0, n - cost.layers * block);
  const double working = root + std::min(2, cost.layers) * block;  // the root, the block computing, the next
  if (pp > 1) {
    held.unsharded_weights = 2 * (model.fsdp_reshard_after_forward ? working : n);
    held.unreduced_gradients = gradients;
  } else {
    held.unsharded_weights = 2 * working;
    held.unreduced_gradients = precision.gradient_bytes * (root + std::min(1, cost.layers) * block);
  }
}

}  // namespace pipegrid::run
