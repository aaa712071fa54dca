// A GPU's expert-parallel group and the all-to-alls among it: every member sends each other member
// the tokens routed to that member's experts (dispatch) and gets back their results (combine).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/network/expert_flows.h"
#include "sim/exec/job.h"

namespace pipegrid::sim {

/// The ep GPUs of one pipeline stage (same TP rank, a block of ep consecutive data-parallel
/// replicas) whose routed experts together make a layer's E: member j holds experts [jE/ep, (j+1)E/ep).
/// Members run the same program in step (they are replicas), so they meet in each all-to-all.
class ExpertGroup {
 public:
  ExpertGroup(Job& job, int gpu);

  int size() const { return static_cast<int>(members_.size()); }
  /// Token-expert assignments this GPU's experts process per micro-batch: ep · T · k · share(me).
  double received_assignments(double tokens) const;

  /// Dispatch and the gradient of combine carry tokens to the experts; combine and the gradient of
  /// dispatch carry results back to the tokens' owners.
  enum class Direction { ToExperts, FromExperts };

  /// One all-to-all, called by every member for the same op (`position`) and `phase`: member i sends
  /// member j T·k·share(j)·bytes (to experts) or T·k·share(i)·bytes (from experts), InfiniBand pairs
  /// scaled by node-limited routing. As flows — DeepEP's (expert_flows.h), all started at once, the
  /// member done when every flow it sends or receives is; or one per pair, the member done when it
  /// has what it receives — or as the slowest member's α-β time. `computing_meanwhile`: the actor has
  /// a computation running that waiting must not suspend.
  void all_to_all(Direction direction, double bytes_per_assignment, double tokens, std::uint64_t position,
                  int phase, bool computing_meanwhile = false);

 private:
  double pair_bytes(int from, int to, Direction direction, double bytes_per_assignment, double tokens) const;
  double analytic_seconds(Direction direction, double bytes_per_assignment, double tokens);
  void pairwise_all_to_all(Direction direction, double bytes_per_assignment, double tokens, std::uint64_t position,
                      int phase, bool computing_meanwhile);
  void deepep_all_to_all(Direction direction, double bytes_per_assignment, double tokens, std::uint64_t position,
                    int phase, bool computing_meanwhile);

  Job& job_;
  int gpu_;
  int member_;
  std::vector<int> members_;        // job GPU indices
  std::vector<double> shares_;      // of each member
  double internode_factor_ = 1;     // node-limited routing's cut of InfiniBand bytes
  struct AnalyticCase {
    Direction direction;
    double bytes_per_assignment, tokens, seconds;
  };
  std::vector<AnalyticCase> analytic_;  // computed once per kind of all-to-all (O(ep²) each)
  /// DeepEP's flows this member sends and receives, per direction (ToExperts, FromExperts): the peer
  /// member and the flow's share (bytes = share · T · k · bytes per assignment).
  struct Peer {
    int member;
    double share;
  };
  std::vector<Peer> sends_[2], receives_[2];
};

}  // namespace pipegrid::sim
