// The rails of a platform — through which NIC each GPU's traffic leaves its node, found from the
// platform's routes — and the rings a collective between nodes runs over them, as NCCL's ring search
// builds them: one ring per channel, each crossing between nodes on its own rail (collectives.h).
#pragma once

#include <map>
#include <simgrid/forward.h>
#include <vector>

namespace pipegrid::sim {

/// How a node's GPUs reach other nodes, found on first use from SimGrid's routes (no names read): a GPU's
/// way out is the links its routes to every GPU of the next node all cross; GPUs whose ways out share a
/// link share a NIC, one rail; rails are ordered by their first GPU, and rail c of one node faces rail c
/// of every other (NCCL's NIC index). A node has one rail wherever distinct ways out cannot be found.
class Rails {
 public:
  /// `hosts`: every GPU of the platform, in Network's order for the job's GPUs (which come first),
  /// then the others; `node_of_gpu`: each one's node. The others are only read for their routes
  /// (a node's rails are found from all its GPUs); no flow starts or ends at them.
  Rails(std::vector<simgrid::s4u::Host*> hosts, std::vector<int> node_of_gpu);

  int node_of(int gpu) const { return node_of_gpu_[gpu]; }
  /// The node's rails: for each, the node's GPUs that leave it through that NIC, in platform order.
  /// One rail holding every GPU of the node when no rails were found.
  const std::vector<std::vector<int>>& of_node(int node);
  /// The rail of the node that the GPU leaves it through.
  int rail_of(int gpu);

  /// The rings of a ring collective over `group` (job GPUs), one per channel, each a permutation of the
  /// group, found once per group. C, the channels, is the smallest number over the group's nodes of
  /// distinct rails among the node's members; C = 1 gives the group itself, in its order. For C ≥ 2 each
  /// ring visits the nodes in order, a node's members over NVLink, and crosses from a member on one rail
  /// to a member on the same rail of the next node, so that on each crossing the C rings take the C
  /// rails once each (where one member holds each rail, the rails alternate from node to node: rails.cc).
  const std::vector<std::vector<int>>& rings(const std::vector<int>& group);
  int channels(const std::vector<int>& group) { return static_cast<int>(rings(group).size()); }

 private:
  void find(int node);

  std::vector<simgrid::s4u::Host*> hosts_;
  std::vector<int> node_of_gpu_;
  std::map<int, std::vector<int>> gpus_of_node_;                     // in platform order
  std::map<int, std::vector<std::vector<int>>> rails_;               // by node, once found
  std::vector<int> rail_of_gpu_;                                     // -1 until its node's rails are found
  std::map<std::vector<int>, std::vector<std::vector<int>>> rings_;  // by group, once built
};

}  // namespace pipegrid::sim
