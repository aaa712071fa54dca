// A rank actor's gradient reductions and parameter all-gathers (gpu_run.h), each member's on its own
// comm streams (comm_stream.h): a member's ring is the one its own actor would run, with the same
// flows and the same streams; the rank actor only launches and waits for them.
#include <algorithm>
#include <fmt/format.h>
#include <simgrid/s4u/Engine.hpp>

#include "sim/exec/gpu_run.h"
#include "sim/exec/tags.h"

namespace pipegrid::sim {

namespace sg4 = simgrid::s4u;

// Launches the reductions whose gradients are ready at the end of the op at `pos`.
void GpuRun::launch_ready(std::size_t pos) {
  const std::vector<GradientReduction>& plan = members_.front().reductions;
  while (next_reduction_ < plan.size() && plan[next_reduction_].position == pos) launch_next();
}

// Every member's next reduction of its plan.
void GpuRun::launch_next() {
  for (Member& m : members_) launch(m, m.reductions[next_reduction_]);
  ++next_reduction_;
}

// A reduction on the stream of its ring: flows round the ring, or its α-β time, traced as it runs.
// Returns its stream and its number there.
std::pair<std::size_t, std::size_t> GpuRun::launch(Member& m, const GradientReduction& r) {
  if (job_.plan.options.dp_comm == CommFidelity::Off) return {0, 0};
  const int gpu = m.gpu;
  while (m.streams.size() <= r.stream)
    m.streams.push_back(std::make_shared<CommStream>(job_.transfers, gpu, job_.gpus.hosts[gpu],
                                                     fmt::format("gpu{}-stream{}", gpu, m.streams.size())));
  if (job_.plan.options.dp_comm == CommFidelity::Analytic) {
    const auto [number, start, end] =
        m.streams[r.stream]->launch_timed(ring_allreduce_seconds(job_.network, r.group, r.bytes, r.phases));
    job_.trace.write({gpu, Track::Comm, r.kind, -1, -1, 0, -1, r.bytes, start, end});
    account_analytic_ring(job_.network, r.group, r.member, r.bytes, r.phases, start, end);
    return {r.stream, number};
  }
  Job& job = job_;
  const std::size_t number = m.streams[r.stream]->launch([&job, gpu, r, training_step = step_] {
    const double start = sg4::Engine::get_clock();
    // The tag of a step: its space and step, and the context that tells two collectives of one
    // space apart (packed into the context argument the ring passes back).
    const std::uint64_t packed =
        (static_cast<std::uint64_t>(r.space) << 40) | step_context(static_cast<std::uint64_t>(training_step), r.context);
    job.record.collectives.enter(gpu, {packed, r.kind, r.group, r.member});
    ring_allreduce_flows(job.transfers, r.group, r.member, r.bytes, r.flow_kind,
                         [](std::uint64_t packed_context, std::uint64_t step) {
                           return gradient_tag(static_cast<TagSpace>(packed_context >> 40), step,
                                               packed_context & ((std::uint64_t{1} << 40) - 1));
                         },
                         packed, r.phases, job.plan.options.ring_flows);
    job.record.collectives.leave(gpu, packed);
    job.trace.write({gpu, Track::Comm, r.kind, -1, -1, 0, -1, r.bytes, start, sg4::Engine::get_clock()});
  });
  return {r.stream, number};
}

// The distributed optimizer's all-gather of the parameters it updated, on the ring that
// reduce-scattered their gradients: waited at once, or by the first forward of their stage in the
// next step (Megatron's forward pre-hook with --overlap-param-gather).
// Launched in forward order (first layers first, the reverse of the backward's buckets), as Megatron
// dispatches them; a stage's first forward waits for its first bucket, and its compute's end for
// the others (the forward pre-hook of each bucket's layers, without cutting the op).
void GpuRun::gather_parameters() {
  if (!job_.plan.options.distributed_optimizer || job_.plan.options.dp_comm == CommFidelity::Off) return;
  for (Member& m : members_)
    for (auto it = m.reductions.rbegin(); it != m.reductions.rend(); ++it) {
      const GradientReduction& r = *it;
      if (r.phases != RingPhases::ReduceScatter || r.parameter_bytes <= 0) continue;
      GradientReduction gather = r;
      gather.kind = "dp-all-gather";
      gather.phases = RingPhases::AllGather;
      gather.bytes = r.parameter_bytes;
      gather.context = r.context | (std::uint64_t{1} << 31);
      const auto [stream, number] = launch(m, gather);
      m.gathers.push_back({r.stage, stream, number});
    }
  if (!job_.plan.options.param_gather_overlap) wait_for_gathers(-1);
}

// Waits for the parameter all-gathers of `stage` (-1: all of them), or only for its first.
void GpuRun::wait_for_gathers(int stage, bool first_only) {
  const double start = waiting();
  bool waited = false;
  for (Member& m : members_) {
    bool mine = false;
    std::erase_if(m.gathers, [&](const PendingGather& g) {
      if ((stage >= 0 && g.stage != stage) || (first_only && mine)) return false;
      m.streams[g.stream]->wait_for(g.number);
      mine = true;
      return true;
    });
    waited = waited || mine;
  }
  if (waited) add_dp_exposed(start);
}

// As flows, a wait for gradient collectives is exposed while the GPU's gradient flows were on the
// wire (waiting for a late replica is idle); an α-β collective is all wire.
void GpuRun::add_dp_exposed(double start) {
  const double end = sg4::Engine::get_clock();
  for (Member& m : members_) {
    const std::vector<FlowSpan> spans = job_.record.take_collective_spans(m.gpu, /*tensor_parallel=*/false);
    m.account->dp_exposed += job_.plan.options.dp_comm == CommFidelity::Flow ? covered(start, end, spans) : end - start;
  }
}

// After the last op: what is left of the plan (reductions after the step), then the wait for every
// stream — the gradients must be reduced before the optimizer.
void GpuRun::finish_gradients() {
  const std::vector<GradientReduction>& plan = members_.front().reductions;
  const double start = waiting();
  while (next_reduction_ < plan.size() && !plan[next_reduction_].after_grad_sync) launch_next();
  for (Member& m : members_)
    for (auto& stream : m.streams) stream->wait_all();
  waiting();
  while (next_reduction_ < plan.size()) launch_next();
  for (Member& m : members_)
    for (auto& stream : m.streams) stream->wait_all();
  add_dp_exposed(start);
}

}  // namespace pipegrid::sim
