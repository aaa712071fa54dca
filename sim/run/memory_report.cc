#include "sim/run/memory_report.h"

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
      model::StaticMemory held;
      for (int s : stages) {
        held.weights += run.memory->static_bytes[s].weights;
        held.gradients += run.memory->static_bytes[s].gradients;
        held.optimizer += run.memory->static_bytes[s].optimizer;
      }
      const double total = activation_peaks[r] + held.total();
      rank.update({{"activations", activation_peaks[r]}, {"weights", held.weights}, {"gradients", held.gradients},
                   {"optimizer", held.optimizer}, {"total", total}, {"capacity", run.rank_capacity[r]},
                   {"over", total > run.rank_capacity[r]}});
      if (total > run.rank_capacity[r]) over.push_back(r);
    }
    ranks.push_back(std::move(rank));
  }
  return {{"ranks", std::move(ranks)}, {"over_capacity", std::move(over)}};
}

}  // namespace pipegrid::run
