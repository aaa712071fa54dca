// A deadlock the SimGrid executor ran into: every GPU blocked, each waiting for a peer that will
// never post the matching send or receive, or never enter the collective it waits in. Named as a
// cycle of waits, like the static checker's, with the fix its shape suggests (schedules/deadlock_hint.h).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "schedules/deadlock_hint.h"
#include "sim/exec/job.h"

namespace pipegrid::sim {

/// One thing a blocked GPU waits for from another GPU.
struct RuntimeEdge {
  int to_gpu = -1;
  WaitKind kind = WaitKind::PeerSend;
  std::string action;  // what it awaits: a message (0F1) or the collective to enter (embedding-allreduce)
  std::string text;    // "waits for gpu1 to receive 0F1", "waits for gpu2 to enter the embedding all-reduce"
};

struct RuntimeWait {
  int gpu;
  std::size_t position;  // the op it is blocked at (the program's size: after its last op)
  std::optional<std::size_t> batch;  // the comm batch it is blocked at, if any
  BlockedOn on;          // its wait on a message, as the transfers know it
  double since = 0;      // when its compute began the wait it is stuck in
  std::vector<RuntimeEdge> edges;  // what it waits for, the one a cycle or chain follows first
  std::string blocked_at;          // the batch, op or collective, as the report names it
  std::string message;             // the message of `on`: 0F1, its part of the data-parallel all-reduce, …
};

struct RuntimeDeadlock {
  double time = 0;                  // simulated time when SimGrid found every actor blocked
  std::vector<RuntimeWait> cycle;   // cycle[i] waits for cycle[i + 1] (the last for the first)
  std::vector<int> cycle_edge;      // the edge of cycle[i] that leads to cycle[i + 1]
  bool open = false;                // the waits end at a GPU that finished its step: `cycle` is a chain
  std::vector<RuntimeWait> blocked; // every GPU that did not finish

  /// "deadlock at 3 s: node0-gpu0 waits for node0-gpu1 to receive 0F1, which waits for node0-gpu0 to
  /// receive 1B0", then one line per GPU of the cycle: where it is blocked; last "fix: <hint>".
  std::string report(const JobPlan& plan, const GpuHosts& gpus) const;
  /// The first line's chain, without "deadlock at …: ".
  std::string chain(const GpuHosts& gpus) const;
  DeadlockHint hint(const JobPlan& plan, const GpuHosts& gpus) const;
  nlohmann::json to_json(const JobPlan& plan, const GpuHosts& gpus) const;
};

/// nullopt when every GPU finished; otherwise the cycle of waits among the GPUs that did not.
std::optional<RuntimeDeadlock> find_runtime_deadlock(const JobPlan& plan, const GpuHosts& gpus,
                                                     const JobRecord& record, const Transfers& transfers,
                                                     double time);

}  // namespace pipegrid::sim
