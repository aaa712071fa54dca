// Which flows an expert-parallel all-to-all runs: one per pair of members, or DeepEP's two hops
// (deepseek-ai/DeepEP, csrc/kernels/internode.cu, its "normal" kernels for training): InfiniBand
// once per target node, to the GPU of that node on the sender's rail, then NVLink inside the node.
#pragma once

#include <vector>

#include "sim/network/fidelity.h"

namespace pipegrid::sim {


/// Where a member of an expert-parallel group is: its node and its index among its node's GPUs.
struct MemberPlace {
  int node = 0;
  int local = 0;
};

/// The places of `members` (GPU indices), given each GPU's node (`node_of_gpu`, in the platform's
/// order: by node, then index in the node, as the job's GPUs are the platform's first).
std::vector<MemberPlace> member_places(const std::vector<int>& members, const std::vector<int>& node_of_gpu);

/// The member of `node` that receives over InfiniBand what member `from` sends to that node's members
/// and forwards it over NVLink (in combine: that reduces their results for `from` and sends them
/// back): the member with from's index in its node (DeepEP's same-rail peer), or, where the node has
/// no member there, the one at from's position among its own node's members, modulo that node's count.
int deepep_forwarder(const std::vector<MemberPlace>& places, int from, int node);

/// One flow of an all-to-all between members. Its bytes are share · T · k · bytes per assignment.
struct ExpertFlow {
  int src = 0;
  int dst = 0;
  double share = 0;
  bool internode = false;
};

/// DeepEP's flows of one all-to-all, by source then destination, at most one per ordered pair;
/// `shares`: each member's share of the assignments. Dispatch sends over NVLink inside the node and over
/// InfiniBand once per other node, to the sender's forwarder there (bytes times `internode_factor`,
/// node-limited routing's M/k), which forwards over NVLink, one flow per destination it serves; combine
/// is the reverse, reduced. A group on one node has NVLink flows only, as pairwise.
std::vector<ExpertFlow> deepep_flows(const std::vector<MemberPlace>& places, const std::vector<double>& shares,
                                     double internode_factor, bool to_experts);

}  // namespace pipegrid::sim
