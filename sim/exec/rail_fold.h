// One SimGrid comm for the TP members' copies of a flow (--rail-fold auto): where the rails are
// images of each other, the network carries rail 0's flow and accounts each copy on its own links.
// The conditions that make it exact, checked here before the run, and the mirrored links' accounts
// are in docs/design.md ("Folded rails", "What a link carried, and when").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/exec/simulation_io.h"
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
std::optional<RailFold> rail_fold_layout(const SimulationInput& input, const JobPlan& plan, const GpuHosts& gpus,
                                        std::string& why_not);
/// Whether the routes make the fold exact (the rest of the conditions above), filling
/// `fold.mirror_of` and the analytic mirrors; else false with `why_not`. Reads the job's routes through `network` (cached
/// there for the run): call it once the platform is sealed.
bool rails_are_images(const SimulationInput& input, Network& network, RailFold& fold, std::string& why_not);

}  // namespace pipegrid::sim
