// deadlock.json read for the HTML report, in either of its formats: the executor's first one (time,
// cycle and blocked entries with gpu, pp, blocked_at, waiting_to, message, peer) and the one the
// three engines share (spec: engine, chain, open, blocked_since, waits_for, wait_for, hint). What the
// old format lacks is derived: the chain as the executor's text report words it, the rank each entry
// waits for, and the hint from the shared classifier (schedules/deadlock_hint.h).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace pipegrid::report {

struct DeadlockWait {
  int rank = -1;                       // pipeline rank (the executor's pp); -1 when unknown
  std::string gpu;                     // host name, or "rank R" for the static engines
  std::string blocked_at;              // the action or comm batch, as the text report names it
  std::optional<double> blocked_since; // absent in the old format: the chart takes its last action's end
  int waits_for = -1;                  // the rank it waits for; -1 when unknown (a collective's peers)
  std::string waits_for_gpu;           // the executor's peer host
  std::string action;                  // what it waits for: "1B3", the message "0F1"
  std::string what;                    // what the peer must do: compute, send, receive, collective
};

struct DeadlockView {
  std::string engine;  // checker, comm-engine, executor ("" in the old format)
  double time = 0;
  std::string chain;
  bool open = false;
  std::vector<DeadlockWait> cycle;
  std::vector<DeadlockWait> blocked;
  std::string hint_shape;
  std::string hint_text;
};

/// The view of a parsed deadlock.json; nlohmann's exceptions on a wrong type, InputError on a
/// missing time or cycle (the caller names the file).
DeadlockView read_deadlock(const nlohmann::json& json);

/// "rank 1 (gpu1)" or "gpu1" or "rank 1": how the page names the waiting side.
std::string wait_name(const DeadlockWait& wait);

}  // namespace pipegrid::report
