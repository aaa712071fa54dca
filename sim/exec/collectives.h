// Collectives among groups of GPUs, at the fidelity the user chose: real flows over the platform
// (a ring, step by step), an α-β formula with no flows, or nothing.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/exec/transfers.h"

namespace pipegrid::sim {

enum class CommFidelity { Flow, Analytic, Off };

/// A ring all-reduce of `bytes` among `group` (GPU indices in ring order), run by the member at
/// `member`: 2(n − 1) steps — n − 1 of reduce-scatter, n − 1 of all-gather — each sending bytes / n
/// to the next member and waiting for the previous member's piece (NCCL's ring algorithm). A member
/// sends its pieces in order, one after the other, as a NCCL channel does: were they concurrent flows,
/// a member arriving late would burst its backlog and the shared link would deliver the first piece
/// no sooner than the last. On an uncontended ring it takes 2(n − 1)/n · S / bw + 2(n − 1) · latency;
/// a member arriving late delays it by as much, once. Every member must call it.
void ring_allreduce_flows(Transfers& transfers, const std::vector<int>& group, int member, double bytes,
                          FlowKind kind, std::uint64_t (*tag_of_step)(std::uint64_t context, std::uint64_t step),
                          std::uint64_t context);

/// The same ring as a formula, from the slowest neighbour route (bottleneck bandwidth) and the
/// largest neighbour latency: 2(n − 1)/n · S / bw + 2(n − 1) · latency.
double ring_allreduce_seconds(Network& network, const std::vector<int>& group, double bytes);

}  // namespace pipegrid::sim
