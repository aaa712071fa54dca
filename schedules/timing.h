// The contention-free engine of compute-only schedules: each rank runs its program in order; an action
// starts when its rank is free and the actions it depends on have ended (plus a fixed latency when
// they ran on another rank). Transfers delay only their receiver — async p2p, the zero-bubble paper's
// model (its ILP's constraints (4)-(5)), which reproduces its Table 5 (tests/schedules/zero_bubble_test.cc); the
// same as the comm engine (comm_timing.h) runs for the torch plan's lowering with async p2p. It is
// the checker's replay and the fast path for the largest schedules.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "schedules/action_times.h"
#include "schedules/schedule.h"

namespace pipegrid {

struct TimingOptions {
  double p2p_latency = 0;     // L: a result reaches another rank L after the op that made it ends
  bool record_spans = false;  // keep every op's start and end (timelines, traces)
};

struct OpSpan {
  double start = 0;
  double end = 0;
};

struct RankTiming {
  double busy = 0;    // time spent computing
  double idle = 0;    // makespan − busy
  double start = 0;   // when its first op starts
  double finish = 0;  // when its last op ends
};

/// Where a schedule that cannot finish got stuck: the first op every unfinished rank cannot start,
/// and the action it waits for. A run of the same programs on real GPUs would hang right there.
struct Stall {
  struct Wait {
    int rank;
    std::size_t position;  // index of the blocked op in the rank's program
    Action awaited;        // the F, or the B / I, it needs and nobody has produced
    int awaited_rank;      // the rank of the awaited action's stage
    /// The awaited action is not in what its rank has left to run: that rank ended its step without
    /// it, or will (a schedule that misses ops). Its kind is then B or I as the stage's other
    /// micro-batches run it.
    bool never_runs = false;
  };
  std::vector<Wait> waits;  // one per unfinished rank, by rank
};

struct Timing {
  double makespan = 0;
  double bubble_fraction = 0;  // 1 − total compute / (p × makespan)
  /// The zero-bubble paper's cost (§5.3): the longest time any rank spends from its first op's start
  /// to its last op's end — the makespan without the ramp before the last rank can start.
  double longest_rank_span = 0;
  std::vector<RankTiming> ranks;
  std::vector<std::vector<OpSpan>> spans;  // spans[rank][position], when recorded
  std::vector<std::size_t> ops_run;        // per rank: how many ops of its program ran (all, unless stalled)
  std::optional<Stall> stall;              // set when the schedule deadlocks; the times are then partial
};

/// Fills what follows from each rank's busy time, start and finish (`finish[r]`): the makespan, idle
/// times, the longest rank span and the bubble fraction. Both contention-free engines end with it.
void close_timing(Timing& timing, const std::vector<double>& finish);

/// Times a validated schedule. Each op is started once and each dependency looked at a bounded number
/// of times: a rank that must wait parks on the one action it waits for and is woken when that action
/// ends, so the cost is linear in the number of actions (no rescans of idle ranks).
/// A schedule that keeps validate_ops() but misses ops is run only to see where it stalls
/// (find_deadlock): a rank that waits for a missing op stops there, and its timing means nothing else.
Timing time_schedule(const Schedule& schedule, const ActionTimes& times, const TimingOptions& options = {});

}  // namespace pipegrid
