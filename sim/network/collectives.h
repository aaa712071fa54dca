// Collectives among groups of GPUs, at the fidelity the user chose: real flows over the platform
// (a ring, step by step), an α-β formula with no flows, or nothing.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/network/fidelity.h"
#include "sim/network/transfers.h"

namespace pipegrid::sim {


/// Which part of the ring to run: the whole all-reduce, or one of its halves — the reduce-scatter
/// (each member ends with 1/n of the sum: the distributed optimizer's gradients) or the all-gather
/// (each member's 1/n reaches every other: its updated parameters). n − 1 steps each.
enum class RingPhases { AllReduce, ReduceScatter, AllGather };

/// A ring all-reduce of `bytes` among `group` (GPU indices in ring order), run by the member at
/// `member`: 2(n − 1) steps — n − 1 of reduce-scatter, n − 1 of all-gather — each sending bytes / n
/// to the next member and waiting for the previous member's piece (NCCL's ring algorithm). A member
/// sends its pieces in order, one after the other, as a NCCL channel does: were they concurrent flows,
/// a member arriving late would burst its backlog and the shared link would deliver the first piece
/// no sooner than the last. On an uncontended ring it takes 2(n − 1)/n · S / bw + 2(n − 1) · latency;
/// a member arriving late delays it by as much, once. Every member must call it.
///
/// Between nodes, one ring per channel, as NCCL's ring search builds them without PXN (when the
/// network knows the platform's rails, Network::use_rails): C channels — the number of distinct
/// rails among the group's members on each node, the smallest over its nodes (Rails::rings) — each
/// carrying S / C round its own order of the group, every hop a flow between two members: over
/// NVLink within a node, and between nodes from a member on one rail to the next node's member on
/// the same rail, so that each ring crosses on its own rails and each of the C rails carries one
/// channel each way. The channels run at once but in step: a member posts its pieces of a step on
/// every channel, then waits for all of them (NCCL's channels run independently, which differs only
/// where the rails are unevenly loaded). Channel c's step s is step s · C + c for `tag_of_step`. With
/// C = 1 (a group within one node, a node with one member — a DP ring at TP 8 — or one NIC, or rails
/// that cannot be found) it is the single ring above, in the group's order, unchanged.
void ring_allreduce_flows(Transfers& transfers, const std::vector<int>& group, int member, double bytes, FlowKind kind,
                          std::uint64_t (*tag_of_step)(std::uint64_t context, std::uint64_t step),
                          std::uint64_t context, RingPhases phases = RingPhases::AllReduce);

/// The same ring as a formula: over the rings ring_allreduce_flows runs (C of them, each carrying
/// S / C; C = 1: the group's own), with bw_c the smallest bottleneck bandwidth of the routes of ring
/// c's hops and L_c the largest of their latencies,
///   max over c of  2(n − 1)/n · (S / C) / bw_c + 2(n − 1) · L_c.
/// It assumes the group's links are its own: the flows take exactly that when nothing else — no
/// other ring of the node sharing its rails, no other channel of the same ring — shares a link
/// direction with them.
/// A half (reduce-scatter or all-gather) takes half of it: (n − 1)/n · (S / C) / bw_c + (n − 1) · L_c.
double ring_allreduce_seconds(Network& network, const std::vector<int>& group, double bytes,
                              RingPhases phases = RingPhases::AllReduce);

/// What the formula's ring would have carried, for the link report: the member at `member` sends
/// 2(n − 1)/n · S / C (a half: (n − 1)/n · S / C) to its next member on each of the C rings, over
/// [start, end]; every member calls it for its own hops (Network::account_analytic). No flow runs.
void account_analytic_ring(Network& network, const std::vector<int>& group, int member, double bytes,
                           RingPhases phases, double start, double end);

/// One member's hops of account_analytic_ring, found once for a group whose collectives recur (a TP
/// group's, at every op): the member, the next member on each ring, and the hops' share of S.
struct AnalyticRingHops {
  int me = -1;
  std::vector<int> next;    // one per ring; empty: the group has no hops
  double hops_per_size = 0;  // 2(n − 1)/n, or (n − 1)/n for a half
  bool split = false;        // over several rings: each hop carries hops_per_size · (S / C)
};
AnalyticRingHops analytic_ring_hops(Network& network, const std::vector<int>& group, int member, RingPhases phases);
/// account_analytic_ring over hops found before: the same bytes, to the bit.
void account_analytic_hops(Network& network, const AnalyticRingHops& hops, double bytes, double start, double end);

}  // namespace pipegrid::sim
