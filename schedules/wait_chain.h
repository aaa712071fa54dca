// Following waits from rank to rank — the one walk both static engines (the checker, deadlock.h; the
// comm engine, comm_timing.h) make to name a deadlock: round a cycle, or along an open chain to a
// rank that will never run or post what is awaited.
#pragma once

#include <map>
#include <vector>

namespace pipegrid {

/// What a blocked rank waits for: the rank that must act, and whether it never will (its remaining
/// program lacks the action: it skipped the op, or ran fewer micro-batches).
struct WaitStep {
  int awaited_rank;
  bool never;
};

struct WaitChain {
  std::vector<int> ranks;  // a cycle from its lowest rank, or the open chain from its first rank
  bool open = false;
};

/// From the lowest blocked rank, follows each wait to the rank it waits for until the walk closes a
/// cycle or reaches a wait that is `never` met. Every rank waited for without `never` must be blocked
/// too (in `waits`); std::logic_error otherwise, and when `waits` is empty.
WaitChain follow_waits(const std::map<int, WaitStep>& waits);

}  // namespace pipegrid
