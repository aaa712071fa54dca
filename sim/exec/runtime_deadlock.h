// A deadlock the SimGrid executor ran into: every GPU blocked, each waiting for a peer that will
// never post the matching send or receive. Named as a cycle of waits, like the static checker's.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sim/exec/job.h"

namespace pipegrid::sim {

struct RuntimeWait {
  int gpu;
  std::size_t position;  // the op it is blocked at (the program's size: after its last op)
  std::optional<std::size_t> batch;  // the comm batch it is blocked at, if any
  BlockedOn on;
};

struct RuntimeDeadlock {
  double time = 0;                  // simulated time when SimGrid found every actor blocked
  std::vector<RuntimeWait> cycle;   // cycle[i] waits for cycle[i + 1] (the last for the first)
  std::vector<RuntimeWait> blocked; // every GPU that did not finish

  /// "deadlock at 3 s: node0-gpu0 waits for node0-gpu1 to receive 0F1, which waits for node0-gpu0 to
  /// receive 1B0", then one line per GPU of the cycle: where it is blocked.
  std::string report(const Job& job) const;
  nlohmann::json to_json(const Job& job) const;
};

/// nullopt when every GPU finished; otherwise the cycle of waits among the GPUs that did not.
std::optional<RuntimeDeadlock> find_runtime_deadlock(const Job& job, double time);

}  // namespace pipegrid::sim
