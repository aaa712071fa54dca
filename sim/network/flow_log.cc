#include "sim/network/flow_log.h"

#include "common/log.h"

namespace pipegrid::sim {

bool logs_each_flow() { return log::network().should_log(spdlog::level::trace); }

void log_flow_started(std::uint64_t id, const FlowInfo& flow, double now, bool rides) {
  log::network().trace("flow {} started at {:.9g} s: {} gpu{} -> gpu{}, {:.6g} bytes{}", id, now,
                       flow_kind_name(flow.kind), flow.src_gpu, flow.dst_gpu, flow.bytes,
                       rides ? " (a rail's copy, carried with it)" : "");
}

void log_flow_ended(std::uint64_t id, const FlowInfo& flow, double start, double end, bool finished) {
  log::network().trace("flow {} {} at {:.9g} s: {} gpu{} -> gpu{}, {:.6g} bytes, {:.6g} s on the wire", id,
                       finished ? "finished" : "cut", end, flow_kind_name(flow.kind), flow.src_gpu, flow.dst_gpu,
                       flow.bytes, end - start);
}

void log_flow_counts(const FlowCounts& counts, double now) {
  log::network().debug(
      "flows: {} started, {} finished, {} cut by the platform, in {} SimGrid activities; the "
      "network closed at t = {:.9g} s",
      counts.started, counts.finished, counts.cut, counts.simgrid_comms, now);
}

}  // namespace pipegrid::sim
