#include "sim/exec/group_landing.h"

namespace pipegrid::sim {

std::vector<GroupLanding> group_landings(const Placement& placement, const std::vector<PlatformGpu>& gpus,
                                         bool experts) {
  std::vector<GroupLanding> landings;
  for (std::string_view kind : kGroupKinds) {
    const bool expert_kind = kind == "ep" || kind == "etp" || kind == "edp";
    if (expert_kind && !experts) continue;
    GroupLanding landing{std::string(kind), 0, 0, 0, placement.group(0, kind)};
    landing.size = static_cast<int>(landing.rank0.size());
    // Each group once: from its first member.
    for (int g = 0; g < placement.num_gpus(); ++g) {
      if (placement.rank_in(g, kind) != 0) continue;
      ++landing.groups;
      bool one_node = true;
      for (int member : placement.group(g, kind)) one_node = one_node && gpus[member].node == gpus[g].node;
      landing.within_node += one_node ? 1 : 0;
    }
    landings.push_back(std::move(landing));
  }
  return landings;
}

}  // namespace pipegrid::sim
