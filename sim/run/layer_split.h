// --layer-split: how many transformer layers each model stage holds. `even` keeps the model's own rule
// (as many each, --uneven-layers spreading a remainder); a list sets them; `balanced` chooses the counts
// that even out the stages' compute per micro-batch, the embedding and the LM head included, so the
// heavy first and last stages get fewer layers (Megatron-Core's --decoder-first/last-pipeline-num-layers
// and --pipeline-model-parallel-layout run such splits).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/model/compute_model.h"
#include "sim/model/parallelism.h"
#include "sim/model/stage_cost.h"
#include "sim/platform/platform_facts.h"
#include "sim/run/run_spec.h"

namespace pipegrid::run {

/// The counts of `stages` contiguous groups of the layers whose compute takes `layer_seconds` (in
/// order) that make the slowest group as fast as it can be, each group at least one layer. Ties go to
/// the split that ends each group earliest.
std::vector<int> balanced_layers(const std::vector<double>& layer_seconds, int stages);

/// Each layer's compute per micro-batch (F, B and W) on one GPU of its stage, the first with the
/// embedding and the last with the LM head and loss, priced as resolve_compute prices a stage.
struct LayerPricing {
  const ModelSpec& model;
  model::Precision precision;
  int gradient_bytes = 4;
  std::string platform;
  std::vector<platform::GpuHost> job_gpus;
  double reference_speed = 0;
};
std::vector<double> layer_seconds(const LayerPricing& pricing, const model::Parallelism& parallelism);

/// One GPU's compute for a micro-batch of a stage (F, B and W), in seconds: `work` at
/// `reference_speed`, a MoE stage's routed experts on its average assignments.
double microbatch_seconds(const model::ComputeWork& work, const model::StageCost& stage, double reference_speed);

/// summary.json's inputs.model.layer_split: the rule, each model stage's layers and micro-batch
/// compute (seconds), and the slowest stage.
nlohmann::json layer_split_json(const input::LayerSplitText& split, const std::vector<int>& layers,
                                const std::vector<double>& seconds);

/// The layers of each model stage `parallelism` should hold under the model's --layer-split: empty for
/// `even` (Parallelism's own rule).
std::vector<int> stage_layers(const LayerPricing& pricing, const model::Parallelism& parallelism);

}  // namespace pipegrid::run
