#include "sim/run/layer_split.h"

#include <algorithm>
#include <fmt/format.h>
#include <limits>
#include <numeric>

#include "common/input_error.h"
#include "sim/run/compute_costs.h"

namespace pipegrid::run {

std::vector<int> balanced_layers(const std::vector<double>& layer_seconds, int stages) {
  const int layers = static_cast<int>(layer_seconds.size());
  if (stages < 1 || stages > layers)
    throw std::invalid_argument(fmt::format("balanced_layers: {} stages for {} layers", stages, layers));
  std::vector<double> prefix(layers + 1, 0);
  std::partial_sum(layer_seconds.begin(), layer_seconds.end(), prefix.begin() + 1);
  // slowest[s][i]: the best slowest group for the first i layers in s groups; cut[s][i] where the
  // last of those groups begins. The linear-partition recurrence, O(S·L²).
  constexpr double kNone = std::numeric_limits<double>::infinity();
  std::vector<std::vector<double>> slowest(stages + 1, std::vector<double>(layers + 1, kNone));
  std::vector<std::vector<int>> cut(stages + 1, std::vector<int>(layers + 1, 0));
  slowest[0][0] = 0;
  for (int s = 1; s <= stages; ++s)
    for (int i = s; i <= layers - (stages - s); ++i)
      for (int j = s - 1; j < i; ++j) {
        const double worst = std::max(slowest[s - 1][j], prefix[i] - prefix[j]);
        if (worst < slowest[s][i]) {
          slowest[s][i] = worst;
          cut[s][i] = j;
        }
      }
  std::vector<int> counts(stages);
  for (int s = stages, i = layers; s >= 1; --s) {
    counts[s - 1] = i - cut[s][i];
    i = cut[s][i];
  }
  return counts;
}

std::vector<double> layer_seconds(const LayerPricing& pricing, const model::Parallelism& parallelism) {
  const model::Transformer& m = pricing.model.transformer;
  // One layer a stage: the first stage's is the layer and the embedding, the last's the layer and the head.
  model::Parallelism probe = parallelism;
  probe.pp = m.layers;
  probe.chunks = 1;
  probe.uneven_layers = false;
  probe.stage_layers.clear();
  const std::vector<model::StageCost> stages = model::stage_costs(m, probe, pricing.precision);
  StageLayoutView view;
  view.ranks = m.layers;
  for (int s = 0; s < m.layers; ++s) {
    view.model_stage.push_back(s);
    view.rank.push_back(s);
  }
  const ComputeCosts costs = resolve_compute(pricing.model, pricing.gradient_bytes, pricing.platform, probe, stages,
                                             view, pricing.job_gpus, pricing.reference_speed, 1);
  std::vector<double> seconds;
  for (int s = 0; s < m.layers; ++s) seconds.push_back(microbatch_seconds(costs.work[s], stages[s], pricing.reference_speed));
  return seconds;
}

double microbatch_seconds(const model::ComputeWork& w, const model::StageCost& stage, double reference_speed) {
  // A MoE stage's routed experts run the GPU's average assignments (ComputeWork's phases).
  const model::MoeStageCost& moe = stage.moe;
  const model::Flops flops =
      moe.moe_layers > 0 ? w.non_expert + w.shared + moe.assignments * w.routed_per_assignment : w.total;
  return (flops.forward + flops.backward_input + flops.backward_weight) / reference_speed;
}

nlohmann::json layer_split_json(const input::LayerSplitText& split, const std::vector<int>& layers,
                                const std::vector<double>& seconds) {
  constexpr const char* kRules[] = {"even", "balanced", "explicit"};
  const auto slowest = std::max_element(seconds.begin(), seconds.end()) - seconds.begin();
  return {{"rule", kRules[static_cast<int>(split.rule)]},
          {"layers", layers},
          {"stage_seconds", seconds},
          {"slowest_stage", slowest}};
}

std::vector<int> stage_layers(const LayerPricing& pricing, const model::Parallelism& parallelism) {
  const input::LayerSplitText& split = pricing.model.layer_split;
  switch (split.rule) {
    case input::LayerSplitText::Rule::Even: return {};
    case input::LayerSplitText::Rule::Explicit: return split.layers;
    case input::LayerSplitText::Rule::Balanced: break;
  }
  const int stages = parallelism.num_stages(), layers = pricing.model.transformer.layers;
  if (layers < stages)
    throw InputError(fmt::format("--layer-split balanced: --layers {} is fewer than the {} stages (--pp {} × --chunks {})",
                                 layers, stages, parallelism.pp, parallelism.chunks));
  return balanced_layers(layer_seconds(pricing, parallelism), stages);
}

}  // namespace pipegrid::run
