// CommDeadlock (comm_timing.h) in words: its chain, its fix and its report.
#include <fmt/format.h>

#include "schedules/comm_timing.h"
#include "schedules/wait_chain.h"

namespace pipegrid {

bool CommDeadlock::finished(int rank) const { return ran_to_end(blocked, rank); }

std::string CommDeadlock::chain() const {
  return chain_text(cycle, open, [&](std::string& text, const Wait& w, bool end) {
    if (w.awaited_rank == w.rank) {
      text += fmt::format("{}, which {}", to_string(w.awaited),
                          end ? "its own program never runs" : "comes later in its own program");
      return;
    }
    text += fmt::format("rank {} to post {}", w.awaited_rank, to_string(w.awaited));
    if (end) text += finished(w.awaited_rank) ? ", which ends its step without posting it" : ", which never posts it";
  });
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
  chain_then_blocked(cycle, blocked, where);
  return text + "\nfix: " + hint().text;
}

}  // namespace pipegrid
