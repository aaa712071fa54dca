#include "sim/exec/job.h"

namespace pipegrid::sim {

Job::Job(const Schedule& schedule_, const Placement& placement_, const JobCosts& costs_, ExecOptions options_,
         std::vector<simgrid::s4u::Host*> hosts_, Network& network_, Transfers& transfers_, TraceWriter& trace_)
    : schedule(schedule_),
      placement(placement_),
      costs(costs_),
      options(options_),
      hosts(std::move(hosts_)),
      network(network_),
      transfers(transfers_),
      trace(trace_),
      results(schedule_.num_stages(), schedule_.microbatches),
      accounts(placement_.num_gpus()),
      backward_kind(static_cast<std::size_t>(schedule_.num_stages()) * schedule_.microbatches, Kind::B),
      collective_spans(placement_.num_gpus()) {
  network.on_flow_end([this](const FlowInfo& flow, double start, double end) {
    if (flow.kind == FlowKind::PipelineP2p || flow.kind == FlowKind::ExpertAllToAll) return;
    for (int gpu : {flow.src_gpu, flow.dst_gpu})
      if (gpu < static_cast<int>(collective_spans.size())) collective_spans[gpu].push_back({flow.kind, {start, end}});
  });
  for (const auto& program : schedule.programs)
    for (const Op& op : program)
      for (int i = 0; i < op.size(); ++i)
        if (op[i].kind == Kind::I)
          backward_kind[static_cast<std::size_t>(op[i].stage) * schedule.microbatches + op[i].microbatch] = Kind::I;
}

std::vector<FlowSpan> Job::take_collective_spans(int gpu, bool tensor_parallel) {
  std::vector<FlowSpan> taken;
  auto& log = collective_spans[gpu];
  std::erase_if(log, [&](const std::pair<FlowKind, FlowSpan>& entry) {
    if ((entry.first == FlowKind::TensorAllReduce) != tensor_parallel) return false;
    taken.push_back(entry.second);
    return true;
  });
  return taken;
}

Action Job::producer(const Result& r) const {
  if (r.flow == Flow::Forward) return Action{r.stage, r.microbatch, Kind::F};
  return Action{r.stage, r.microbatch,
                backward_kind[static_cast<std::size_t>(r.stage) * schedule.microbatches + r.microbatch]};
}

}  // namespace pipegrid::sim
