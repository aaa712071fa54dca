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
      const std::vector<int> group = job_.plan.placement.gradient_group(m.gpu);
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

// An overlapped pair (DualPipeV's F&B) gathers for each of its halves that gathers, each priced
// against its own compute, as OpTimes::fsdp_of sums them.
void GpuRun::fsdp_analytic(std::size_t pos, const Op& op) {
  const FsdpGathers mode = job_.plan.options.fsdp;
  const bool keep_last = mode == FsdpGathers::PerOpKeepLast;
  struct Gathered {
    Action action;
    FsdpOpTiming timing;
    FsdpOpUnits bytes;
    double from;  // where its gathers start, from the op's start
  };
  std::vector<Gathered> gathered;
  double exposed = 0, offset = 0;
  for (int i = 0; i < op.size(); ++i) {
    const Action& a = op[i];
    const double compute = job_.plan.costs.flops(a) / speed_;
    if (!pipegrid::fsdp_gathers(mode, a, job_.plan.first_forward[static_cast<std::size_t>(a.stage)])) {
      offset += compute;
      continue;
    }
    const StageWork& work = job_.plan.costs.stage(a.stage);
    const bool backward = a.kind != Kind::F;
    gathered.push_back({a, fsdp_op_timing(fsdp_op_units(fsdp_seconds(a.stage), compute, backward, keep_last)),
                        fsdp_op_units({work.fsdp_root_parameter_bytes, work.fsdp_block_parameter_bytes, work.fsdp_blocks},
                                      0, backward, keep_last),
                        offset});
    exposed += gathered.back().timing.exposed;
    offset += compute + gathered.back().timing.exposed;
  }
  // The gathers ran from the op's start: the links' fold keeps what they need until they are accounted.
  const int lead = members_.front().gpu;
  const std::size_t slot = static_cast<std::size_t>(job_.plan.placement.num_gpus() + lead);
  const double start = sg4::Engine::get_clock();
  job_.network.ledger().hold_analytic(slot, start - 1e-6);
  compute(pos, op);
  if (exposed > 0) {
    waiting();
    sg4::this_actor::sleep_for(exposed);
    for (Member& m : members_) m.account->dp_exposed += exposed;
  }
  for (Member& m : members_) {
    const std::vector<int> group = job_.plan.placement.gradient_group(m.gpu);
    const int member = job_.plan.placement.rank_in_gradient_group(m.gpu);
    for (const Gathered& g : gathered)
      for (std::size_t k = 0; k < g.bytes.gather.size(); ++k) {
        if (g.bytes.gather[k] <= 0) continue;
        const double from = start + g.from + g.timing.gather_start[k], to = start + g.from + g.timing.gather_end[k];
        job_.trace.write({m.gpu, Track::Comm, "fsdp-allgather", g.action.stage, g.action.microbatch, 0, -1,
                          g.bytes.gather[k], from, to});
        account_analytic_ring(job_.network, group, member, g.bytes.gather[k], RingPhases::AllGather, from, to);
      }
  }
  job_.network.ledger().release_analytic(slot);
}

// As flows, the units of each half that gathers in turn (a pair's halves one after the other), the
// compute cut at them.
void GpuRun::fsdp_flows(std::size_t pos, const Op& op) {
  const FsdpGathers mode = job_.plan.options.fsdp;
  struct Unit {
    Action action;
    std::uint64_t number;  // 0 the root, blocks 1…L
    double bytes, flops;
  };
  std::vector<Unit> units;
  for (int i = 0; i < op.size(); ++i) {
    const Action& a = op[i];
    // Without the attention the CP ring's flows run after the op (compute() → run_cp).
    const double flops = job_.plan.costs.flops(a) - (cp_ring_flows() ? cp_ring_flops(a) : 0);
    if (!pipegrid::fsdp_gathers(mode, a, job_.plan.first_forward[static_cast<std::size_t>(a.stage)])) {
      units.push_back({a, 0, 0, flops});
      continue;
    }
    const StageWork& work = job_.plan.costs.stage(a.stage);
    const bool backward = a.kind != Kind::F;
    const FsdpOpUnits mine =
        fsdp_op_units({work.fsdp_root_parameter_bytes, work.fsdp_block_parameter_bytes, work.fsdp_blocks}, flops, backward,
                      mode == FsdpGathers::PerOpKeepLast);
    const std::size_t root = mine.gather.size() - static_cast<std::size_t>(work.fsdp_blocks);
    for (std::size_t k = 0; k < mine.gather.size(); ++k) {
      const std::size_t block = k - root;  // unused for the root
      const std::uint64_t number =
          k < root ? 0 : backward ? static_cast<std::uint64_t>(work.fsdp_blocks - static_cast<int>(block)) : block + 1;
      units.push_back({a, number, mine.gather[k], mine.compute[k]});
    }
  }
  const std::size_t n = units.size();
  // Per member, the stream number of each unit's gather (none for a unit not gathered).
  std::vector<std::vector<std::optional<std::size_t>>> launched(members_.size(), std::vector<std::optional<std::size_t>>(n));
  const auto launch_gather = [&](std::size_t k) {
    const Unit& u = units[k];
    if (u.bytes <= 0) return;
    for (std::size_t i = 0; i < members_.size(); ++i) {
      Member& m = members_[i];
      GradientReduction g{"fsdp-allgather", FlowKind::DataAllReduce, TagSpace::Fsdp,
                          fsdp_context(true, u.action.kind != Kind::F, static_cast<std::uint64_t>(u.action.stage),
                                       static_cast<std::uint64_t>(u.action.microbatch), u.number),
                          job_.plan.placement.gradient_group(m.gpu), job_.plan.placement.rank_in_gradient_group(m.gpu),
                          u.bytes, 0, 1, fsdp_stream_};
      g.phases = RingPhases::AllGather;
      launched[i][k] = launch(m, g).second;
    }
  };
  launch_gather(0);
  for (std::size_t k = 0; k < n; ++k) {
    if (units[k].bytes > 0) {
      const double start = waiting();
      for (std::size_t i = 0; i < members_.size(); ++i) members_[i].streams[fsdp_stream_]->wait_for(*launched[i][k]);
      add_dp_exposed(start);
    }
    if (k + 1 < n) launch_gather(k + 1);
    // The op's TP collectives run with its last unit (analytic or off: after it, as compute() has them).
    if (k + 1 < n)
      execute(op, units[k].flops);
    else
      compute(pos, op, units[k].flops);
  }
}

}  // namespace pipegrid::sim
