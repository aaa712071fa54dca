#include "schedules/deadlock.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <stdexcept>

#include "schedules/dependency_graph.h"

namespace pipegrid {

std::string Deadlock::chain() const {
  std::string text;
  for (std::size_t i = 0; i < cycle.size(); ++i) {
    const Wait& w = cycle[i];
    text += i == 0 ? fmt::format("rank {} waits for ", w.rank) : ", which waits for ";
    text += to_string(w.awaited);
    text += w.awaited_rank == w.rank ? ", which comes later in its own program"
                                     : fmt::format(" on rank {}", w.awaited_rank);
  }
  return text;
}

std::string Deadlock::report(const Schedule& schedule, const OpLocator& locate) const {
  std::string text = "deadlock: " + chain();
  for (const Wait& w : cycle)
    text += fmt::format("\n  rank {} is blocked at {} ({})", w.rank, to_string(schedule.programs[w.rank][w.position]),
                        locate(w.rank, w.position));
  return text;
}

Deadlock wait_cycle(const Schedule& schedule, const Stall& stall) {
  std::map<int, const Stall::Wait*> waiting;
  for (const auto& w : stall.waits) waiting[w.rank] = &w;
  if (waiting.empty()) throw std::logic_error("wait_cycle: the run did not stall");
  std::vector<int> path;
  std::map<int, std::size_t> seen_at;
  int rank = waiting.begin()->first;
  while (!seen_at.contains(rank)) {
    seen_at[rank] = path.size();
    path.push_back(rank);
    const int next = schedule.rank_of(waiting.at(rank)->awaited.stage);
    if (!waiting.contains(next)) throw std::logic_error("wait_cycle: a rank waits for a rank that finished");
    rank = next;
  }
  std::vector<int> ranks(path.begin() + static_cast<std::ptrdiff_t>(seen_at[rank]), path.end());
  std::rotate(ranks.begin(), std::min_element(ranks.begin(), ranks.end()), ranks.end());
  Deadlock deadlock;
  for (int r : ranks) {
    const Stall::Wait& w = *waiting.at(r);
    deadlock.cycle.push_back({r, w.position, w.awaited, schedule.rank_of(w.awaited.stage)});
  }
  return deadlock;
}

std::optional<Deadlock> find_deadlock(const Schedule& schedule) {
  if (DependencyGraph(schedule).find_cycle().empty()) return std::nullopt;
  const Timing replay = time_schedule(schedule, ActionTimes{});
  if (!replay.stall) throw std::logic_error("find_deadlock: the graph has a cycle but the engine finished");
  return wait_cycle(schedule, *replay.stall);
}

}  // namespace pipegrid
