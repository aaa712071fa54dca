#include "sim/run/memory_report.h"

#include <algorithm>

#include "schedules/memory.h"

namespace pipegrid::run {

nlohmann::json memory_json(const ResolvedRun& run) {
  const Schedule& schedule = run.input.schedule;
  const std::vector<int> peaks = peak_activations(schedule);
  std::vector<double> activation_peaks;
  if (run.memory)
    activation_peaks =
        peak_activation_memory(schedule, {run.memory->activation_bytes, run.memory->kept_for_weight_gradient});
  nlohmann::json ranks = nlohmann::json::array(), over = nlohmann::json::array();
  const double model_stages = schedule.layout.num_model_stages();
  for (int r = 0; r < schedule.ranks; ++r) {
    std::vector<int> stages;
    for (int s = 0; s < schedule.num_stages(); ++s)
      if (schedule.rank_of(s) == r) stages.push_back(s);
    nlohmann::json rank{{"rank", r},
                        {"stages", stages},
                        {"peak_activations", peaks[r]},
                        {"parameters_share", static_cast<double>(stages.size()) / model_stages * schedule.ranks}};
    if (run.memory) {
      const MemoryPlan& plan = *run.memory;
      model::StaticMemory held;
      const auto add = [](double& sum, double value, bool summed) { sum = summed ? sum + value : std::max(sum, value); };
      for (int s : stages) {
        const model::StaticMemory& stage = plan.static_bytes[s];
        held.weights += stage.weights;
        held.gradients += stage.gradients;
        held.optimizer += stage.optimizer;
        add(held.unsharded_weights, stage.unsharded_weights, plan.sum_unsharded);
        add(held.unreduced_gradients, stage.unreduced_gradients, plan.sum_unreduced);
        held.fp8_weights += stage.fp8_weights;
      }
      const double total = activation_peaks[r] + held.total();
      rank.update({{"activations", activation_peaks[r]}, {"weights", held.weights}, {"gradients", held.gradients},
                   {"optimizer", held.optimizer}, {"total", total}, {"capacity", run.rank_capacity[r]},
                   {"over", total > run.rank_capacity[r]}});
      // From ZeRO-2 on, what the rank holds whole besides its shards (zero_stage.h); absent below, so a
      // run without ZeRO keeps its summary byte for byte.
      if (held.fp8_weights > 0) rank["fp8_weights"] = held.fp8_weights;
      if (plan.zero >= 2) rank.update({{"unsharded_weights", held.unsharded_weights}, {"unreduced_gradients", held.unreduced_gradients}});
      if (total > run.rank_capacity[r]) over.push_back(r);
    }
    ranks.push_back(std::move(rank));
  }
  return {{"ranks", std::move(ranks)}, {"over_capacity", std::move(over)}};
}

}  // namespace pipegrid::run
