// A GPU's expert-parallel group and the all-to-alls among it: every member sends each other member
// the tokens routed to that member's experts (dispatch) and gets back their results (combine).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/network/expert_flows.h"
#include "sim/exec/job.h"

namespace pipegrid::sim {

/// Dispatch and the gradient of combine carry tokens to the experts; combine and the gradient of
/// dispatch carry results back to the tokens' owners.
enum class ExpertDirection { ToExperts, FromExperts };

/// What one GPU's expert-parallel group carries, without a running job: its members, their shares of
/// the assignments and node-limited routing's cut of InfiniBand bytes. The executor's all-to-alls
/// (ExpertGroup) and the contention-free engine's price (contention_free.h) read the same numbers.
struct ExpertTraffic {
  ExpertTraffic(const Placement& placement, const ExpertRouting& routing, const std::vector<int>& node_of_gpu, int gpu);

  std::vector<int> members;    // job GPU indices
  int member = 0;              // this GPU's index among them
  std::vector<double> shares;  // of each member
  double internode_factor = 1;
  int top_k = 0;
  std::vector<int> nodes;      // of each member

  /// Token-expert assignments this GPU's experts receive per micro-batch: ep · T · k · share(me).
  double received_assignments(double tokens) const;
  /// What member `from` sends member `to`: T·k·share(to)·bytes (to experts) or T·k·share(from)·bytes,
  /// InfiniBand pairs scaled by node-limited routing.
  double pair_bytes(int from, int to, ExpertDirection direction, double bytes_per_assignment, double tokens) const;
  /// The α-β all-to-all: each member's ports carry its sends out and its receives in, NVLink and
  /// InfiniBand in parallel — the busiest port of the busiest member, plus the longest latency.
  double analytic_seconds(Network& network, ExpertDirection direction, double bytes_per_assignment,
                          double tokens) const;
};

/// The ep GPUs of one pipeline stage (same TP rank, a block of ep consecutive data-parallel
/// replicas) whose routed experts together make a layer's E: member j holds experts [jE/ep, (j+1)E/ep).
/// Members run the same program in step (they are replicas), so they meet in each all-to-all.
class ExpertGroup {
 public:
  ExpertGroup(Job& job, int gpu);

  int size() const { return static_cast<int>(members_.size()); }
  /// Token-expert assignments this GPU's experts receive per micro-batch: ep · T · k · share(me).
  double received_assignments(double tokens) const { return traffic_.received_assignments(tokens); }

  using Direction = ExpertDirection;

  /// One all-to-all, called by every member for the same op (`position`) and `phase`: member i sends
  /// member j T·k·share(j)·bytes (to experts) or T·k·share(i)·bytes (from experts), InfiniBand pairs
  /// scaled by node-limited routing. As flows — DeepEP's (expert_flows.h), all started at once, the
  /// member done when every flow it sends or receives is; or one per pair, the member done when it
  /// has what it receives — or as the slowest member's α-β time. `computing_meanwhile`: the actor has
  /// a computation running that waiting must not suspend.
  void all_to_all(Direction direction, double bytes_per_assignment, double tokens, std::uint64_t position,
                  int phase, bool computing_meanwhile = false);

 private:
  double pair_bytes(int from, int to, Direction direction, double bytes_per_assignment, double tokens) const {
    return traffic_.pair_bytes(from, to, direction, bytes_per_assignment, tokens);
  }
  double analytic_seconds(Direction direction, double bytes_per_assignment, double tokens);
  void pairwise_all_to_all(Direction direction, double bytes_per_assignment, double tokens, std::uint64_t position,
                      int phase, bool computing_meanwhile);
  void deepep_all_to_all(Direction direction, double bytes_per_assignment, double tokens, std::uint64_t position,
                    int phase, bool computing_meanwhile);

  Job& job_;
  int gpu_;
  ExpertTraffic traffic_;
  const int member_;
  const std::vector<int>& members_;  // job GPU indices (traffic_'s)
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
