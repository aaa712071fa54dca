#include "schedules/deadlock.h"

#include <fmt/format.h>
#include <map>
#include <stdexcept>

#include "schedules/dependency_graph.h"
#include "schedules/schedule_log.h"
#include "schedules/wait_chain.h"

namespace pipegrid {

bool Deadlock::finished(int rank) const { return ran_to_end(blocked, rank); }

std::string Deadlock::chain() const {
  return chain_text(cycle, open, [&](std::string& text, const Wait& w, bool end) {
    text += to_string(w.awaited);
    if (w.awaited_rank == w.rank)
      text += end ? ", which its own program never runs" : ", which comes later in its own program";
    else
      text += fmt::format(" on rank {}", w.awaited_rank);
    if (end && w.awaited_rank != w.rank)
      text += finished(w.awaited_rank) ? ", which ends its step without running it" : ", which never runs it";
  });
}

DeadlockHint Deadlock::hint() const {
  DeadlockHint hint = deadlock_hint(std::vector<WaitKind>(cycle.size(), WaitKind::Compute), open);
  if (open)
    hint.text += fmt::format("; rank {} never runs {}", cycle.back().awaited_rank, to_string(cycle.back().awaited));
  return hint;
}

std::string Deadlock::report(const Schedule& schedule, const OpLocator& locate) const {
  std::string text = "deadlock: " + chain();
  const auto where = [&](const Wait& w) {
    text += fmt::format("\n  rank {} is blocked at {} ({})", w.rank, to_string(schedule.programs[w.rank][w.position]),
                        locate(w.rank, w.position));
  };
  chain_then_blocked(cycle, blocked, where);
  return text + "\nfix: " + hint().text;
}

Deadlock wait_cycle(const Schedule& /*schedule*/, const Stall& stall) {
  std::map<int, const Stall::Wait*> waiting;
  std::map<int, WaitStep> steps;
  for (const auto& w : stall.waits) {
    waiting[w.rank] = &w;
    // A rank that still has the awaited action to run has not finished, so it is stalled too.
    steps[w.rank] = {w.awaited_rank, w.never_runs};
  }
  const WaitChain chain = follow_waits(steps);
  Deadlock deadlock;
  deadlock.open = chain.open;
  const auto wait_of = [](const Stall::Wait& w) {
    return Deadlock::Wait{w.rank, w.position, w.awaited, w.awaited_rank};
  };
  for (int r : chain.ranks) deadlock.cycle.push_back(wait_of(*waiting.at(r)));
  for (const auto& [rank, w] : waiting) deadlock.blocked.push_back(wait_of(*w));
  return deadlock;
}

namespace {

std::optional<Deadlock> first_deadlock(const Schedule& schedule) {
  // A schedule that misses ops can hang without any cycle (a rank waits for an op its peer never
  // runs), which the graph cannot show: the replay decides alone.
  const bool complete = is_complete(schedule);
  if (complete && DependencyGraph(schedule).find_cycle().empty()) return std::nullopt;
  const Timing replay = time_schedule(schedule, ActionTimes{});
  if (!replay.stall) {
    if (complete) throw std::logic_error("find_deadlock: the graph has a cycle but the engine finished");
    return std::nullopt;
  }
  return wait_cycle(schedule, *replay.stall);
}

}  // namespace

std::optional<Deadlock> find_deadlock(const Schedule& schedule) {
  std::optional<Deadlock> deadlock = first_deadlock(schedule);
  log_checked(schedule, deadlock ? &*deadlock : nullptr);
  return deadlock;
}

}  // namespace pipegrid
