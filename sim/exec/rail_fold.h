// One SimGrid comm for the TP members' copies of a flow (--rail-fold auto, the default). In a
// lockstep TP group (tp_lockstep.h) the members send the same bytes at the same time, each to the
// same TP index of another group — over its own rail on a rail-optimised platform (the generated DGX
// and SuperPOD ones: GPU k of every node on NIC k, leaf k). Where the rails are images of each
// other, SimGrid's max-min sharing gives every rail's copy the rate of rail 0's, so the network
// carries rail 0's flow and accounts each copy on its own links (Network::use_rail_fold): a TP of 8
// starts an eighth of the comms.
//
// Exact (the same makespan, step ends, per-GPU accounts and link report as --rail-fold off, to
// rounding) when, as checked here before the run:
//  - every TP group runs in lockstep, TP > 1;
//  - every route the job needs (needed_routes.h, and the rails' ones) between two TP groups joins two
//    GPUs of one TP index (inside a group only the analytic all-reduces read routes);
//  - each such route from rail k is the image of the route between the rail-0 GPUs of the same two
//    groups: as many links, each of the bandwidth, latency and sharing policy of its rail-0 link,
//    through one map from rail 0's links to rail k's that sends no two links to one;
//  - no link carries the flows of two rails;
//  - nothing of the platform varies in time (no speed, state, bandwidth or latency profile).
// At run time the network checks the last condition that matters, that the copies start together:
// a comm that does not gather one copy per rail ends the run (an internal error naming --rail-fold
// off), as the fold would no longer be exact.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/exec/executor.h"
#include "sim/exec/job.h"

namespace pipegrid::sim {

struct RailFold {
  std::vector<int> rail_of_gpu;  // per job GPU: its TP index
  std::vector<int> rail0_gpu;    // per job GPU: the TP-index-0 GPU of its group
  int rails = 0;
};

/// The fold where it is exact, else nullopt with `why_not` saying which condition failed. Reads the
/// job's routes through `network` (cached there for the run): call it once the platform is sealed.
std::optional<RailFold> exact_rail_fold(const SimulationInput& input, const Job& job, Network& network,
                                        std::string& why_not);

}  // namespace pipegrid::sim
