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

/// A ring all-reduce, or one half of it, of `bytes` among `group` (GPU indices in ring order), run by
/// the member at `member`; every member must call it. NCCL's ring algorithm: n − 1 steps per half, each
/// sending bytes / n to the next member and waiting for the previous member's piece, a member's pieces
/// one after the other as a NCCL channel sends them (as concurrent flows, a member arriving late would
/// burst its backlog). Between nodes, where the network knows the rails, one ring per channel, each on
/// its own rails and carrying S / C, in step (Rails::rings); channel c's step s is step s · C + c for
/// `tag_of_step`.
/// `RingFlows::Streamed` runs each channel's steps as one flow to the next member of all their bytes,
/// as NCCL streams a ring's slices without waiting for whole steps: the member ends when its flow out
/// and its predecessor's flow in have ended, plus (steps − 1) hop latencies, the steps' latencies that
/// one flow does not pay (its own hop's: on a rail-optimised fat tree every hop of a ring has the same).
/// Its flows end alike only where the ring's hops are alike: a hop slower than the others delays its
/// own flow, not every step of the ring as it does step by step.
void ring_allreduce_flows(Transfers& transfers, const std::vector<int>& group, int member, double bytes, FlowKind kind,
                          std::uint64_t (*tag_of_step)(std::uint64_t context, std::uint64_t step),
                          std::uint64_t context, RingPhases phases = RingPhases::AllReduce,
                          RingFlows flows = RingFlows::Auto);

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

/// One message of `bytes` from `src` to `dst` as a formula: bytes / bw + L over the route, bw and L as
/// a ring's hop takes them (the NVLink efficiency inside a node). Context parallelism's ring sends.
double p2p_seconds(Network& network, int src, int dst, double bytes);

/// An all-to-all among `group` in which each member holds `bytes` and sends 1/n of it to each other
/// member, all at once: the longest of the pieces' L + (bytes / n) / bw, every member waiting for
/// all of them (DeepSpeed-Ulysses' all-to-alls of Q, K, V and the output).
double all_to_all_seconds(Network& network, const std::vector<int>& group, double bytes);

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
