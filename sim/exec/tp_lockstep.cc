#include "sim/exec/tp_lockstep.h"

#include <algorithm>

namespace pipegrid::sim {

namespace {

bool runs_in_lockstep(const GpuHosts& gpus, const std::vector<int>& group) {
  const int lead = group.front();
  return std::all_of(group.begin(), group.end(), [&](int gpu) {
    return gpus.node_of_gpu[gpu] == gpus.node_of_gpu[lead] && !gpus.varying_speed[gpu] &&
           gpus.hosts[gpu]->get_speed() == gpus.hosts[lead]->get_speed();
  });
}

}  // namespace

std::vector<std::vector<int>> rank_actors(const JobPlan& plan, const GpuHosts& gpus) {
  const ParallelSizes& sizes = plan.placement.sizes();
  // Context parallelism's flows are each member's own, as the TP collectives' are.
  const bool cp_flows = sizes.cp > 1 && plan.options.cp_comm == CommFidelity::Flow;
  const bool may = plan.options.tp_lockstep && sizes.tp > 1 && plan.options.tp_comm != CommFidelity::Flow &&
                   !cp_flows && !plan.costs.routing().enabled();
  std::vector<std::vector<int>> actors;
  for (int pp = 0; pp < sizes.pp; ++pp)
    for (int dp = 0; dp < sizes.dp; ++dp)
      for (int cp = 0; cp < sizes.cp; ++cp) {
        std::vector<int> group;
        for (int tp = 0; tp < sizes.tp; ++tp) group.push_back(plan.placement.gpu({tp, dp, pp, cp}));
        if (may && runs_in_lockstep(gpus, group)) {
          actors.push_back(std::move(group));
          continue;
        }
        for (int gpu : group) actors.push_back({gpu});
      }
  // In GPU order of their first member, as one actor per GPU would be created.
  std::sort(actors.begin(), actors.end());
  return actors;
}

}  // namespace pipegrid::sim
