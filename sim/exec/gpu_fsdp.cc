// ZeRO-3's parameter all-gathers around a rank actor's op (gpu_run.h), as PyTorch FSDP2 runs them
// under torchtitan (schedules/fsdp_op_cost.h says which ops gather which units). Analytic: the op's
// compute and TP collectives, then what the gathers' prefetch did not hide, as one wait — the
// contention-free engine's OpTimes::fsdp_of to the bit. As flows: each unit's ring all-gather on a
// comm stream of its own (FSDP2's all-gather stream), the next unit's launched as a unit's compute
// starts, the compute cut at the units.
#include <algorithm>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include "sim/exec/gpu_run.h"
#include "sim/exec/tags.h"

namespace pipegrid::sim {

namespace sg4 = simgrid::s4u;

bool GpuRun::fsdp_gathers(const Op& op) const {
  const FsdpGathers mode = job_.plan.options.fsdp;
  if (mode == FsdpGathers::None || job_.plan.options.dp_comm == CommFidelity::Off) return false;
  for (int i = 0; i < op.size(); ++i)
    if (pipegrid::fsdp_gathers(mode, op[i], job_.plan.first_forward[static_cast<std::size_t>(op[i].stage)])) return true;
  return false;
}

// A stage's units' α-β all-gather times over each member's data-parallel group, the longest member's
// (as the contention-free engine takes them).
const FsdpUnits& GpuRun::fsdp_seconds(int stage) {
  std::optional<FsdpUnits>& units = fsdp_seconds_[static_cast<std::size_t>(stage)];
  if (!units) {
    const StageWork& work = job_.plan.costs.stage(stage);
    units = FsdpUnits{0, 0, work.fsdp_blocks};
    for (const Member& m : members_) {
      const std::vector<int> group = data_parallel_group(job_.plan, m.gpu);
      units->root = std::max(units->root,
                             ring_allreduce_seconds(job_.network, group, work.fsdp_root_parameter_bytes, RingPhases::AllGather));
      units->block = std::max(units->block,
                              ring_allreduce_seconds(job_.network, group, work.fsdp_block_parameter_bytes, RingPhases::AllGather));
    }
  }
  return *units;
}

void GpuRun::compute_fsdp(std::size_t pos, const Op& op) {
  if (job_.plan.options.dp_comm == CommFidelity::Analytic)
    fsdp_analytic(pos, op);
  else
    fsdp_flows(pos, op);
}

void GpuRun::fsdp_analytic(std::size_t pos, const Op& op) {
  const Action& a = op.first;  // ZeRO-3 runs no overlapped pairs (the run layer refuses DualPipe)
  const StageWork& work = job_.plan.costs.stage(a.stage);
  const bool backward = a.kind != Kind::F, keep_last = job_.plan.options.fsdp == FsdpGathers::PerOpKeepLast;
  const FsdpOpTiming timing = fsdp_op_timing(fsdp_op_units(fsdp_seconds(a.stage), op_compute_total_, backward, keep_last));
  const FsdpOpUnits bytes = fsdp_op_units(
      {work.fsdp_root_parameter_bytes, work.fsdp_block_parameter_bytes, work.fsdp_blocks}, 0, backward, keep_last);
  // The gathers ran from the op's start: the links' fold keeps what they need until they are accounted.
  const int lead = members_.front().gpu;
  const std::size_t slot = static_cast<std::size_t>(job_.plan.placement.num_gpus() + lead);
  const double start = sg4::Engine::get_clock();
  job_.network.ledger().hold_analytic(slot, start - 1e-6);
  compute(pos, op);
  if (timing.exposed > 0) {
    waiting();
    sg4::this_actor::sleep_for(timing.exposed);
    for (Member& m : members_) m.account->dp_exposed += timing.exposed;
  }
  for (Member& m : members_) {
    const std::vector<int> group = data_parallel_group(job_.plan, m.gpu);
    const int member = job_.plan.placement.rank_in(m.gpu, "dp");
    for (std::size_t k = 0; k < bytes.gather.size(); ++k) {
      if (bytes.gather[k] <= 0) continue;
      const double from = start + timing.gather_start[k], to = start + timing.gather_end[k];
      job_.trace.write({m.gpu, Track::Comm, "fsdp-allgather", a.stage, a.microbatch, 0, -1, bytes.gather[k], from, to});
      account_analytic_ring(job_.network, group, member, bytes.gather[k], RingPhases::AllGather, from, to);
    }
  }
  job_.network.ledger().release_analytic(slot);
}

void GpuRun::fsdp_flows(std::size_t pos, const Op& op) {
  const Action& a = op.first;
  const StageWork& work = job_.plan.costs.stage(a.stage);
  const bool backward = a.kind != Kind::F;
  const FsdpOpUnits units = fsdp_op_units({work.fsdp_root_parameter_bytes, work.fsdp_block_parameter_bytes, work.fsdp_blocks},
                                          job_.plan.costs.flops(op), backward,
                                          job_.plan.options.fsdp == FsdpGathers::PerOpKeepLast);
  const std::size_t n = units.gather.size();
  // Per member, the stream number of each unit's gather (none for a unit not gathered).
  std::vector<std::vector<std::optional<std::size_t>>> launched(members_.size(), std::vector<std::optional<std::size_t>>(n));
  const auto launch_gather = [&](std::size_t k) {
    if (units.gather[k] <= 0) return;
    // The unit's number: 0 the root (first when it is gathered), blocks 1…L.
    const std::size_t root = n - static_cast<std::size_t>(work.fsdp_blocks), block = k - root;
    const std::uint64_t unit = k < root ? 0 : backward ? static_cast<std::uint64_t>(work.fsdp_blocks) - block : block + 1;
    for (std::size_t i = 0; i < members_.size(); ++i) {
      Member& m = members_[i];
      GradientReduction g{"fsdp-allgather", FlowKind::DataAllReduce, TagSpace::Fsdp,
                          fsdp_context(true, backward, static_cast<std::uint64_t>(a.stage),
                                       static_cast<std::uint64_t>(a.microbatch), unit),
                          data_parallel_group(job_.plan, m.gpu), job_.plan.placement.rank_in(m.gpu, "dp"),
                          units.gather[k], 0, 1, fsdp_stream_};
      g.phases = RingPhases::AllGather;
      launched[i][k] = launch(m, g).second;
    }
  };
  launch_gather(0);
  for (std::size_t k = 0; k < n; ++k) {
    if (units.gather[k] > 0) {
      const double start = waiting();
      for (std::size_t i = 0; i < members_.size(); ++i) members_[i].streams[fsdp_stream_]->wait_for(*launched[i][k]);
      add_dp_exposed(start);
    }
    if (k + 1 < n) launch_gather(k + 1);
    // The op's TP collectives run with its last unit (analytic or off: after it, as compute() has them).
    if (k + 1 < n)
      execute(op, units.compute[k]);
    else
      compute(pos, op, units.compute[k]);
  }
}

}  // namespace pipegrid::sim
