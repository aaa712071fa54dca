// CommDeadlock (comm_timing.h) in words: its chain, its fix and its report.
#include <algorithm>
#include <fmt/format.h>

#include "schedules/comm_timing.h"

namespace pipegrid {

bool CommDeadlock::finished(int rank) const {
  return std::none_of(blocked.begin(), blocked.end(), [&](const Wait& w) { return w.rank == rank; });
}

std::string CommDeadlock::chain() const {
  std::string text;
  for (std::size_t i = 0; i < cycle.size(); ++i) {
    const Wait& w = cycle[i];
    const bool end = open && i + 1 == cycle.size();
    text += i == 0 ? fmt::format("rank {} waits for ", w.rank) : ", which waits for ";
    if (w.awaited_rank == w.rank) {
      text += fmt::format("{}, which {}", to_string(w.awaited),
                          end ? "its own program never runs" : "comes later in its own program");
      continue;
    }
    text += fmt::format("rank {} to post {}", w.awaited_rank, to_string(w.awaited));
    if (end) text += finished(w.awaited_rank) ? ", which ends its step without posting it" : ", which never posts it";
  }
  return text;
}

DeadlockHint CommDeadlock::hint() const {
  std::vector<WaitKind> waits;
  for (const Wait& w : cycle) waits.push_back(w.what);
  DeadlockHint hint = deadlock_hint(waits, open);
  if (open)
    hint.text += fmt::format("; rank {} never posts {}", cycle.back().awaited_rank, to_string(cycle.back().awaited));
  return hint;
}

std::string CommDeadlock::report(const Schedule& s, const OpLocator& locate_op, const CommLocator& locate_batch) const {
  std::string text = "deadlock: " + chain();
  const auto where = [&](const Wait& w) {
    if (w.in_batch)
      text += fmt::format("\n  rank {} is blocked at {} ({})", w.rank, to_string(s.comms[w.rank][w.position]),
                          locate_batch(w.rank, w.position));
    else if (w.position < s.programs[w.rank].size())
      text += fmt::format("\n  rank {} is blocked at {} ({})", w.rank, to_string(s.programs[w.rank][w.position]),
                          locate_op(w.rank, w.position));
    else
      text += fmt::format("\n  rank {} is blocked at the end of its program, waiting for its sends", w.rank);
  };
  for (const Wait& w : cycle) where(w);
  for (const Wait& w : blocked)
    if (std::none_of(cycle.begin(), cycle.end(), [&](const Wait& c) { return c.rank == w.rank; })) where(w);
  return text + "\nfix: " + hint().text;
}

}  // namespace pipegrid
