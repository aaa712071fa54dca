// Deadlocks named as people describe them: which rank waits for what, from whom, round a cycle.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "schedules/schedule.h"
#include "schedules/timing.h"
#include "schedules/validate.h"

namespace pipegrid {

/// A cycle of waits between ranks: cycle[i] is blocked at an op that waits for an action of
/// cycle[i + 1] (the last for the first), which that rank has not run and never will.
struct Deadlock {
  struct Wait {
    int rank;
    std::size_t position;  // of the op it is blocked at
    Action awaited;
    int awaited_rank;
  };
  std::vector<Wait> cycle;  // starts at its lowest rank

  /// "rank 0 waits for 1B3 on rank 1, which waits for 0F4 on rank 0".
  std::string chain() const;
  /// chain() and where each rank of the cycle is blocked, one line each.
  std::string report(const Schedule& schedule, const OpLocator& locate = locate_in_program) const;
};

/// Follows the waits of a stalled run from rank to rank until they close a cycle (every rank waited
/// for is itself stalled, so they always do).
Deadlock wait_cycle(const Schedule& schedule, const Stall& stall);

/// The checker: nullopt when the schedule can run to the end; otherwise the cycle of waits a run
/// hits first. The dependency graph decides; the contention-free engine names the ranks' positions.
/// The schedule must be valid (validate.h).
std::optional<Deadlock> find_deadlock(const Schedule& schedule);

}  // namespace pipegrid
