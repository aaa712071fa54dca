// Following waits from rank to rank — the one walk both static engines (the checker, deadlock.h; the
// comm engine, comm_timing.h) make to name a deadlock: round a cycle, or along an open chain to a
// rank that will never run or post what is awaited — and the frame of the words both say it in.
#pragma once

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <string>
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

// The frame of a found deadlock's words, over either engine's waits (Deadlock::Wait, CommDeadlock::Wait):
// each keeps its own wording of what a rank waits for (a compute action, or a peer's post).

/// Whether `rank` ran its whole program: it has no wait among `blocked`.
template <class Wait>
bool ran_to_end(const std::vector<Wait>& blocked, int rank) {
  return std::none_of(blocked.begin(), blocked.end(), [&](const Wait& w) { return w.rank == rank; });
}

/// "rank R waits for " what the first wait awaits, then ", which waits for " what each next one does;
/// `say_awaited(text, wait, end)` appends it, `end` on an open chain's last wait.
template <class Wait, class SayAwaited>
std::string chain_text(const std::vector<Wait>& cycle, bool open, SayAwaited say_awaited) {
  std::string text;
  for (std::size_t i = 0; i < cycle.size(); ++i) {
    const Wait& w = cycle[i];
    text += i == 0 ? fmt::format("rank {} waits for ", w.rank) : ", which waits for ";
    say_awaited(text, w, open && i + 1 == cycle.size());
  }
  return text;
}

/// Calls `at(wait)` for the chain's waits in its order, then for every other blocked rank's, by rank:
/// the order in which a report says where ranks are blocked.
template <class Wait, class At>
void chain_then_blocked(const std::vector<Wait>& cycle, const std::vector<Wait>& blocked, At at) {
  for (const Wait& w : cycle) at(w);
  for (const Wait& w : blocked)
    if (std::none_of(cycle.begin(), cycle.end(), [&](const Wait& c) { return c.rank == w.rank; })) at(w);
}

}  // namespace pipegrid
