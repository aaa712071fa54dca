#include "sim/exec/job.h"

#include <algorithm>
#include <simgrid/s4u/Actor.hpp>

namespace pipegrid::sim {

namespace {

// Adds [start, end] to a union of disjoint intervals sorted by start. Flows end in time order, so a new
// one can only reach back over the last few intervals.
void add_to_union(std::vector<FlowSpan>& spans, FlowSpan span) {
  while (!spans.empty() && spans.back().end >= span.start) {
    span.start = std::min(span.start, spans.back().start);
    span.end = std::max(span.end, spans.back().end);
    spans.pop_back();
  }
  spans.push_back(span);
}

}  // namespace

JobPlan::JobPlan(const Schedule& schedule_, const Placement& placement_, const JobCosts& costs_,
                 const ExecOptions& options_)
    : schedule(schedule_),
      placement(placement_),
      costs(costs_),
      options(options_),
      results(schedule_.num_stages(), schedule_.microbatches),
      backward_kind(static_cast<std::size_t>(schedule_.num_stages()) * schedule_.microbatches, Kind::B),
      first_forward(first_forwards(schedule_)) {
  for (const auto& program : schedule.programs)
    for (const Op& op : program)
      for (int i = 0; i < op.size(); ++i)
        if (op[i].kind == Kind::I)
          backward_kind[static_cast<std::size_t>(op[i].stage) * schedule.microbatches + op[i].microbatch] = Kind::I;
}

Action JobPlan::producer(const Result& r) const {
  if (r.flow == Flow::Forward) return Action{r.stage, r.microbatch, Kind::F};
  return Action{r.stage, r.microbatch,
                backward_kind[static_cast<std::size_t>(r.stage) * schedule.microbatches + r.microbatch]};
}

JobRecord::JobRecord(int gpus, Network& network)
    : accounts(gpus), collectives(gpus), collective_spans(2 * static_cast<std::size_t>(gpus)) {
  network.on_flow_end([this](const FlowInfo& flow, double start, double end) {
    // The expert layers' own collectives are exposed where MoeOp waits for them (a2a).
    if (flow.kind == FlowKind::PipelineP2p || flow.kind == FlowKind::ExpertAllToAll ||
        flow.kind == FlowKind::ExpertTensorCollective || flow.kind == FlowKind::OptimizerCheck ||
        flow.kind == FlowKind::ContextParallel)
      return;
    for (int gpu : {flow.src_gpu, flow.dst_gpu})
      if (gpu >= 0 && 2 * gpu + 1 < static_cast<int>(collective_spans.size()))
        add_to_union(collective_spans[2 * gpu + (flow.kind == FlowKind::TensorAllReduce)], {start, end});
  });
}

std::vector<FlowSpan> JobRecord::take_collective_spans(int gpu, bool tensor_parallel) {
  return std::exchange(collective_spans[2 * static_cast<std::size_t>(gpu) + tensor_parallel], {});
}

void compute_at_peak(const GpuHosts& gpus, int gpu, double seconds) {
  if (seconds <= 0) return;
  // A wait costs one simcall and no CPU model; on a host of constant speed it ends when the exec would.
  if (!gpus.varying_speed[gpu])
    simgrid::s4u::this_actor::sleep_for(seconds);
  else
    simgrid::s4u::this_actor::execute(seconds * gpus.hosts[gpu]->get_speed());
}

}  // namespace pipegrid::sim
