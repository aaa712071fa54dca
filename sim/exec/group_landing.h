// Where a job's parallel groups land on the platform: for each kind of group (tp, cp, dp, pp and the
// expert layers' ep, etp, edp), rank 0's group and how many groups stay within one node — what
// summary.json's "layout" and `platform info --layout` show.
#pragma once

#include <string>
#include <vector>

#include "sim/exec/placement.h"

namespace pipegrid::sim {

struct GroupLanding {
  std::string kind;        // one of kGroupKinds
  int size = 0;            // GPUs per group
  int groups = 0;          // groups of this kind in the job
  int within_node = 0;     // of them, those whose GPUs share one node
  std::vector<int> rank0;  // GPU 0's group (job GPU indices, in group order)
};

/// Every kind of group, in kGroupKinds order; the expert kinds only when `experts`.
std::vector<GroupLanding> group_landings(const Placement& placement, const std::vector<PlatformGpu>& gpus,
                                         bool experts);

}  // namespace pipegrid::sim
