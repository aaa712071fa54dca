// ZeRO's stages resolved for a run (--zero, --distributed-optimizer, --fsdp-reshard-after-forward):
// what the executor does on the wire, what a stage holds whole for a while besides its shards, and
// what ZeRO-3 does not model refused before SimGrid starts.
#pragma once

#include "sim/exec/simulation_io.h"
#include "sim/model/memory_model.h"
#include "sim/model/stage_cost.h"
#include "sim/run/run_spec.h"

namespace pipegrid::run {

/// The executor's options for the model's ZeRO stage: 1 and 2 Megatron's distributed optimizer on the
/// wire (gradients reduce-scattered, parameters all-gathered after the update), 3 FSDP's per-unit
/// collectives (schedules/fsdp_op_cost.h); from 1 on the optimizer's check spans the job. InputError
/// for a ZeRO-3 layout pipegrid does not model: mixture-of-experts layers, a model stage on several
/// ranks (DualPipe), TP collectives as flows cut at FSDP's units, more stages, micro-batches or
/// layers a stage than its collectives' tags hold.
void apply_zero(const ModelSpec& model, sim::SimulationInput& in);

/// What a stage of `cost` holds whole besides its shards (StaticMemory's unsharded_weights and
/// unreduced_gradients). ZeRO-2: two gradient buckets of `bucket_bytes`, the one being reduce-scattered
/// and the one the backward fills (DeepSpeed's double-buffered reduce buckets), at most the stage's
/// gradients. ZeRO-3 with a pipeline: gradients accumulate whole until the stage's last backward;
/// without --fsdp-reshard-after-forward its bf16 parameters stay gathered all step, with it the root
/// and two blocks (the one computing and the one prefetched). ZeRO-3 without a pipeline: the root and
/// two blocks gathered, the root's and one block's gradients not yet reduce-scattered.
void add_zero_working_set(const ModelSpec& model, int pp, double bucket_bytes, const model::StageCost& cost,
                          const model::Precision& precision, model::StaticMemory& held);

}  // namespace pipegrid::run
