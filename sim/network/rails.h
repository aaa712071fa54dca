// The rails of a platform — through which NIC each GPU's traffic leaves its node, found from the
// platform's routes — and the rings a collective between nodes runs over them, as NCCL's ring search
// builds them: one ring per channel, each crossing between nodes on its own rail (collectives.h).
#pragma once

#include <map>
#include <simgrid/forward.h>
#include <vector>

namespace pipegrid::sim {

/// How a node's GPUs reach other nodes, found on first use from SimGrid's routes (no names read):
///  - the reference node of node A is the next node of the platform (by node number, cyclically);
///  - a GPU g of A leaves A through the links that its routes to every GPU of the reference node
///    all cross (on a generated platform g's PCIe, its NIC's PCIe and the NIC's InfiniBand port);
///    GPUs whose ways out share a link share a NIC: one rail;
///  - the rails are ordered by their first GPU (platform order), and rail c of one node faces rail c
///    of every other (NCCL's NIC index); on a generated platform rail c's leaf switch joins them.
/// A node has a single rail when the platform has one node, the node one GPU, some GPU's routes to
/// the reference node share no link, all the node's GPUs share their way out (one NIC), or a way out
/// is also on a route between two of the node's GPUs (a star whose GPU ports carry the node's own
/// traffic too).
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

  /// The rings of a ring collective over `group` (job GPUs), one per channel, each a permutation of
  /// the group, found once per group. Channels: C = the smallest number, over the group's nodes, of
  /// distinct rails among the node's members. C = 1 — when the group is within one node, when some
  /// node has one member, or its members share one NIC, or its rails cannot be found — gives the
  /// group itself, in its order: one ring, one path per hop, as without rails.
  ///
  /// For C ≥ 2, each ring visits the group's nodes in the order of their first member and, on each
  /// node, its members one after the other (over NVLink), entering at a member on one rail and
  /// leaving from a member on another: each hop between nodes goes from a member on a rail of its node
  /// to a member on the same rail of the next node (slot j — the node's j-th rail among its members —
  /// facing slot j, which is the same rail wherever the group has the same local GPUs on every
  /// node), so no traffic goes through a GPU outside the group and every crossing stays on its rail.
  /// With a single member on each rail a node cannot be entered and left on one rail, so the rails
  /// alternate: ring c leaves node k on slot c + (k mod 2) (mod C) and enters node k + 1 on it; with
  /// an odd number of nodes the last crossing takes slot c + 2 (C ≥ 3) — or, with C = 2, goes from
  /// slot c to slot c + 1, the one crossing that changes rail. So on each crossing the C rings take
  /// the C rails once each: every NIC of the group sends one channel and receives one. On a node, a
  /// ring enters at the first member (group order) on its entry slot, then the node's other members
  /// but its exit member in group order, and leaves from the first member on its exit slot.
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
