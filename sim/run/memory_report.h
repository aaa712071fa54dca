// The memory part of a simulation's summary: what each pipeline rank's GPUs hold at their peak, and
// which ranks do not fit their GPUs.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/run/simulation_run.h"

namespace pipegrid::run {

/// `ranks`: per pipeline rank its stages, `peak_activations` (micro-batches of one virtual stage, a
/// split backward's W freeing them), `parameters_share` (the fraction of the model it holds × p: 1 for
/// an even split, 2 for DualPipe's two copies) and, with a model, bytes: `activations` (peak, I
/// freeing what W does not read), `weights`, `gradients`, `optimizer` (each its shard under ZeRO), from
/// ZeRO-2 on `unsharded_weights` and `unreduced_gradients` (zero_stage.h), `total`, `capacity` and `over`;
/// `over_capacity`: the ranks whose total exceeds their GPUs' memory.
nlohmann::json memory_json(const ResolvedRun& run);

}  // namespace pipegrid::run
