// Deadlocks named as people describe them: which rank waits for what, from whom, round a cycle — or
// along a chain that ends at a rank that will never run what is awaited (it skipped the op).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "schedules/deadlock_hint.h"
#include "schedules/schedule.h"
#include "schedules/timing.h"
#include "schedules/validate.h"

namespace pipegrid {

/// The waits of a run that cannot finish. cycle[i] is blocked at an op that waits for an action of
/// cycle[i + 1] (the last for the first), which that rank has not run and never will — or, when
/// `open`, the last waits for an action its rank does not run at all: that rank ends its step
/// without it (a rank that skips an op or runs fewer micro-batches), and the run hangs.
struct Deadlock {
  struct Wait {
    int rank;
    std::size_t position;  // of the op it is blocked at
    Action awaited;
    int awaited_rank;
  };
  std::vector<Wait> cycle;  // starts at its lowest rank; an open chain at the lowest blocked rank
  bool open = false;
  std::vector<Wait> blocked;  // every rank that did not finish its program, by rank

  bool finished(int rank) const;  // ran its whole program (it is not blocked)
  /// "rank 0 waits for 1B3 on rank 1, which waits for 0F4 on rank 0"; open: "rank 0 waits for 1B3
  /// on rank 1, which ends its step without running it".
  std::string chain() const;
  /// compute-order for a cycle, unmatched-receive for an open chain, naming the op never run.
  DeadlockHint hint() const;
  /// chain(), where each blocked rank is blocked (the chain's first, in its order), one line each,
  /// and last "fix: <hint>".
  std::string report(const Schedule& schedule, const OpLocator& locate = locate_in_program) const;
};

/// Follows the waits of a stalled run from rank to rank, starting at the lowest blocked rank, until
/// they close a cycle or reach an action its rank never runs.
Deadlock wait_cycle(const Schedule& schedule, const Stall& stall);

/// The checker: nullopt when the schedule can run to the end; otherwise the waits a run hits first.
/// The schedule must keep validate_ops(). When it is complete (validate()), the dependency graph
/// decides and the contention-free engine names the ranks' positions; when it misses ops, only a
/// replay can tell whether some rank waits for one: nullopt then says nobody does (the run would
/// finish, short of the missing work — validate_complete() refuses it).
std::optional<Deadlock> find_deadlock(const Schedule& schedule);

}  // namespace pipegrid
