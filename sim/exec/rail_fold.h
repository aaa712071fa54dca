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
//
// The fold also spares the accounting: a rail's copies cross links that mirror rail 0's (RailFold::
// mirror_of), whose account is then rail 0's link's, copied when the run ends (Network::close_load),
// instead of being kept eight times over. The analytic TP all-reduces do the same inside a group
// (RailFold::analytic_mirror_of): in lockstep every member accounts its ring hop over the same
// interval with the same bytes, so where member k's hop crosses a link that nothing else crosses, at
// the place member 0's hop crosses one that nothing else crosses either, the first link's account is
// the second's. At 3072 GPUs that is 7 of every 8 GPUs' NVLink links, most of the pieces the links'
// loads were given.
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
  /// Per link (Network::links()' indices): the rail-0 link it is the image of, where its account is
  /// that link's, else -1. A link of rail k > 0 mirrors its rail-0 image when the flows of the two are
  /// images of each other and nothing else reaches either: no analytic collective, so neither is on a
  /// route inside a TP group (the analytic all-reduces') and no collective between groups is analytic.
  std::vector<int> mirror_of;
  /// Per link, as mirror_of, for the analytic TP all-reduces: the link of member k > 0's ring hop whose
  /// account is member 0's hop's link at the same place, else -1. Only where the TP all-reduces are
  /// analytic and the job has no expert all-to-all (whose pairs inside a node could share a hop's
  /// route), each group's ring one hop per member, to the next, and both links on no other route the job needs.
  std::vector<int> analytic_mirror_of;
  /// The hops those mirrors lie on: member k's (src → dst) and member 0's of the same group (src0 → dst0).
  std::vector<AnalyticHopImage> analytic_hops;
};

/// The fold's rails where the conditions that need no route hold (TP > 1 in lockstep, no profile),
/// else nullopt with `why_not` saying which failed. mirror_of is left to rails_are_images.
std::optional<RailFold> rail_fold_layout(const SimulationInput& input, const Job& job, std::string& why_not);
/// Whether the routes make the fold exact (the rest of the conditions above), filling
/// `fold.mirror_of` and the analytic mirrors; else false with `why_not`. Reads the job's routes through `network` (cached
/// there for the run): call it once the platform is sealed.
bool rails_are_images(const SimulationInput& input, const Job& job, Network& network, RailFold& fold,
                      std::string& why_not);

}  // namespace pipegrid::sim
