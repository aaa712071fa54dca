#include "sim/exec/tp_lockstep.h"

#include <algorithm>

namespace pipegrid::sim {

namespace {

bool runs_in_lockstep(const Job& job, const std::vector<int>& group) {
  const int lead = group.front();
  return std::all_of(group.begin(), group.end(), [&](int gpu) {
    return job.node_of_gpu[gpu] == job.node_of_gpu[lead] && !job.varying_speed[gpu] &&
           job.hosts[gpu]->get_speed() == job.hosts[lead]->get_speed();
  });
}

}  // namespace

std::vector<std::vector<int>> rank_actors(const Job& job) {
  const ParallelSizes& sizes = job.placement.sizes();
  const bool may = job.options.tp_lockstep && sizes.tp > 1 && job.options.tp_comm != CommFidelity::Flow &&
                   !job.costs.routing().enabled();
  std::vector<std::vector<int>> actors;
  for (int pp = 0; pp < sizes.pp; ++pp)
    for (int dp = 0; dp < sizes.dp; ++dp) {
      std::vector<int> group;
      for (int tp = 0; tp < sizes.tp; ++tp) group.push_back(job.placement.gpu({tp, dp, pp}));
      if (may && runs_in_lockstep(job, group)) {
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
