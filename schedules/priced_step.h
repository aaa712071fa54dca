// A training step of a job priced from a model, timed without SimGrid: each data-parallel replica's
// pipeline by the comm engine (comm_timing.h) with its own op times and message costs, then its
// ranks' step ends (step_end.h) and the optimizer's check across the replicas it spans. It is what the
// SimGrid executor computes with analytic collectives on a network where no two flows share a link
// (tests/exec/engines_agree_model_test.cc); contention is what it leaves out.
#pragma once

#include <vector>

#include "schedules/comm_timing.h"
#include "schedules/step_end.h"

namespace pipegrid {

/// One data-parallel replica's pipeline ranks (each the lockstep group of its TP GPUs).
struct PricedReplica {
  OpTimes ops{std::vector<StageOpTimes>{}};
  std::vector<MessageCost> forward_messages, backward_messages;  // per virtual stage (CommTimingOptions)
  std::vector<RankStepEnd> ranks;                                // per pipeline rank
};

struct PricedJob {
  std::vector<PricedReplica> replicas;
  /// The optimizer's check: none, a barrier of each replica's model-parallel group, or one barrier of
  /// the whole job (the distributed optimizer); the latency each barrier adds after its last arrival.
  enum class Check { None, PerReplica, WholeJob } check = Check::PerReplica;
  std::vector<double> check_latency;  // per replica, or one for the whole job
};

struct PricedStep {
  double step_time = 0;              // the last rank's step end over every replica
  std::vector<CommTiming> replicas;  // each replica's pipeline; stops at the first that deadlocks
  std::vector<std::vector<double>> rank_ends;  // [replica][rank]: its step end
  bool deadlocked() const { return !replicas.empty() && replicas.back().deadlock.has_value(); }
};

/// Times a lowered schedule (validate_comms) for every replica; `options` gives the p2p semantics and
/// channels (its message costs and spans are set here).
PricedStep time_priced_step(const Schedule& lowered, const PricedJob& job, CommTimingOptions options);

}  // namespace pipegrid
