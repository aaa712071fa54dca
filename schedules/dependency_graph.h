// The dependency graph of a schedule, as Boost.Graph sees it: the checker's independent view of what
// the engines compute step by step.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "schedules/action_times.h"
#include "schedules/schedule.h"

namespace pipegrid {

/// One op of a schedule, by where it sits.
struct OpRef {
  int rank;
  std::size_t position;
  friend bool operator==(const OpRef&, const OpRef&) = default;
};

/// One vertex per op and an edge from every op to each op that must wait for it: the next op on
/// its rank (program order) and the ops that read its results (data edges, results.h). A pair is one
/// vertex carrying the edges of both its actions. Stored as compressed sparse rows, so that millions of
/// ops fit in memory (docs/performance.md). Built from a validated schedule.
class DependencyGraph {
 public:
  explicit DependencyGraph(const Schedule& schedule);
  ~DependencyGraph();

  std::size_t num_ops() const;
  std::size_t num_dependencies() const;
  OpRef op(std::size_t vertex) const;

  /// A cycle of ops, each waiting for the one before it (the last for the first); empty when the
  /// graph is acyclic, i.e. when no run of the schedule can deadlock.
  std::vector<OpRef> find_cycle() const;

  /// The length of the longest path, with each op weighted by its duration and p2p_latency on every
  /// edge between ranks: the makespan of a contention-free run, found without simulating it.
  double critical_path_length(const ActionTimes& times, double p2p_latency = 0) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pipegrid
