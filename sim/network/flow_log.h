// What the network logs of its flows (common/log.h's `network` logger): at trace each flow as it
// starts and ends, at debug how many there were once the run is over. The network asks whether trace
// is on once, when it is made, so that a run that does not log them pays one test of a flag per flow.
#pragma once

#include <cstdint>

#include "sim/network/flow.h"

namespace pipegrid::sim {

/// Whether each flow is logged (the `network` logger at trace).
bool logs_each_flow();

/// A flow started at `now` as flow `id`; `rides`: as a copy on another rail of a flow already started.
void log_flow_started(std::uint64_t id, const FlowInfo& flow, double now, bool rides);
/// A flow that started at `start` ended at `end`: finished, or cut (a link went down, the job failed).
void log_flow_ended(std::uint64_t id, const FlowInfo& flow, double start, double end, bool finished);

/// A run's flows, counted as the network started and ended them.
struct FlowCounts {
  std::uint64_t started = 0;        // flows asked for (a rail's copy counts)
  std::uint64_t simgrid_comms = 0;  // activities SimGrid carried them in
  std::uint64_t finished = 0;
  std::uint64_t cut = 0;  // ended by a failure
};
/// At debug: the counts, once the run is over.
void log_flow_counts(const FlowCounts& counts, double now);

}  // namespace pipegrid::sim
