#include "sim/run/static_deadlock.h"

#include <fmt/format.h>

namespace pipegrid::run {

namespace {

using nlohmann::json;

// What the two engines' waits share, filled in by each.
struct WaitEntry {
  int rank;
  std::size_t position;
  std::string blocked_at;
  int awaited_rank;
  std::string awaited;
  WaitKind what;
};

json wait_json(const WaitEntry& w, const Timing& partial) {
  return {{"rank", w.rank},
          {"gpu", fmt::format("rank {}", w.rank)},
          {"position", w.position},
          {"blocked_at", w.blocked_at},
          {"blocked_since", partial.ranks[w.rank].finish},
          {"waits_for", {{"rank", w.awaited_rank}, {"action", w.awaited}, {"what", wait_kind_name(w.what)}}}};
}

template <typename Deadlock, typename EntryOf>
json to_json(const char* engine, const Deadlock& d, const Timing& partial, EntryOf entry_of) {
  json cycle = json::array(), blocked = json::array(), edges = json::array();
  for (const auto& w : d.cycle) cycle.push_back(wait_json(entry_of(w), partial));
  for (const auto& w : d.blocked) {
    const WaitEntry e = entry_of(w);
    blocked.push_back(wait_json(e, partial));
    edges.push_back({{"from", e.rank}, {"to", e.awaited_rank}, {"label", e.awaited}});
  }
  const DeadlockHint hint = d.hint();
  return {{"engine", engine},
          {"time", partial.makespan},
          {"chain", d.chain()},
          {"cycle", std::move(cycle)},
          {"open", d.open},
          {"blocked", std::move(blocked)},
          {"wait_for", {{"edges", std::move(edges)}}},
          {"hint", {{"shape", deadlock_shape_name(hint.shape)}, {"text", hint.text}}}};
}

}  // namespace

json deadlock_json(const Deadlock& deadlock, const Schedule& s, const Timing& partial) {
  return to_json("checker", deadlock, partial, [&](const Deadlock::Wait& w) {
    return WaitEntry{w.rank,         w.position,           to_string(s.programs[w.rank][w.position]),
                     w.awaited_rank, to_string(w.awaited), WaitKind::Compute};
  });
}

json deadlock_json(const CommDeadlock& deadlock, const Schedule& s, const Timing& partial) {
  return to_json("comm-engine", deadlock, partial, [&](const CommDeadlock::Wait& w) {
    const std::string at = w.in_batch                               ? to_string(s.comms[w.rank][w.position])
                           : w.position < s.programs[w.rank].size() ? to_string(s.programs[w.rank][w.position])
                                                                    : std::string("end of program");
    return WaitEntry{w.rank, w.position, at, w.awaited_rank, to_string(w.awaited), w.what};
  });
}

}  // namespace pipegrid::run
