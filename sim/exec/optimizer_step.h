// The end of a training step: the optimizer's update on every GPU, and the check before it — Megatron's
// all-reduce of the gradient norm and found-inf flag over the model-parallel group before any update, a
// barrier (optimizer.py, clip_grads.py), or the zero-bubble paper's post-validation (Qi et al. 2024, §4):
// a chain of tiny messages from the first pipeline rank to the last before each update, and one back in
// the next step's warmup before a rank's first backward, so that no rank waits for all.
#pragma once

#include <map>
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Mutex.hpp>
#include <utility>
#include <vector>

#include "sim/exec/exec_options.h"

namespace pipegrid::sim {

/// The barrier of the all-reduce check: the members of a group wait for the last to arrive, then for a
/// small all-reduce's latency, 2⌈log2 n⌉ hops of the slowest route to the group's first GPU (NCCL's
/// tree for tiny messages; its few bytes take no bandwidth worth counting).
class StepBarrier {
 public:
  /// Blocks the calling actor until every one of the `members` of `group` has arrived for `step`, plus
  /// the latency. The actor arrives for one GPU, or for each member of its lockstep TP group:
  /// `latencies` holds each one's route latency to the group's first GPU.
  void arrive_and_wait(int group, int members, int step, const std::vector<double>& latencies);

 private:
  struct Round {
    int arrived = 0;
    double max_latency = 0;
    double release = -1;  // when everyone goes on, once the last has arrived
  };
  std::map<std::pair<int, int>, Round> rounds_;  // by (group, step)
  simgrid::s4u::MutexPtr mutex_ = simgrid::s4u::Mutex::create();
  simgrid::s4u::ConditionVariablePtr changed_ = simgrid::s4u::ConditionVariable::create();
};

}  // namespace pipegrid::sim
