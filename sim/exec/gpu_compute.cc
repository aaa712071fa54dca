// An op's compute on a rank actor (gpu_run.h), with its tensor-parallel all-reduces, and the gradient
// buckets that become ready part-way through it. A lockstep group computes as one: one wait for its
// members (of equal speed), each member's account and trace filled as its own actor would.
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include "sim/exec/gpu_run.h"
#include "sim/exec/tags.h"

namespace pipegrid::sim {

namespace sg4 = simgrid::s4u;

namespace {

std::string_view kind_name(Kind kind) {
  switch (kind) {
    case Kind::F: return "F";
    case Kind::B: return "B";
    case Kind::I: return "I";
    case Kind::W: return "W";
  }
  return "?";
}

void trace_compute(TraceSink& trace, int gpu, const Op& op, double start, double end) {
  for (int i = 0; i < op.size(); ++i)
    trace.write({gpu, Track::Compute, kind_name(op[i].kind), op[i].stage, op[i].microbatch, 0, -1, 0, start, end});
}

}  // namespace

// The α-β time of one TP all-reduce, computed once: every op of a rank uses the same group and size.
double GpuRun::tp_allreduce_seconds(double bytes) {
  if (bytes != analytic_bytes_) {
    analytic_bytes_ = bytes;
    analytic_seconds_ = ring_allreduce_seconds(job_.network, tp_group(members_.front()), bytes);
  }
  return analytic_seconds_;
}

std::vector<int> GpuRun::tp_group(const Member& m) const {
  std::vector<int> group(job_.plan.placement.sizes().tp);
  for (int t = 0; t < static_cast<int>(group.size()); ++t) group[t] = job_.plan.placement.gpu({t, m.at.dp, m.at.pp, m.at.cp});
  return group;
}

// Computes the op, followed by `comm_seconds` of communication that is not overlapped with it (the
// analytic TP collectives). A GPU runs one computation at a time: on a host of constant speed that
// is one wait of flops / speed + comm_seconds — exactly what an exec of the FLOPs would take, at one
// simcall instead of two and without the CPU model's sharing machinery, which makes an op much cheaper
// at thousands of GPUs (docs/performance.md). Where the host has a speed profile the compute is an exec
// (compute_at_peak), which the profile slows from the moment it changes (such a GPU has an actor of
// its own: tp_lockstep.h). The members' exposed TP time grows by `comm_seconds`; compute() traces it.
void GpuRun::execute(const Op& op, double flops, double comm_seconds) {
  const int lead = members_.front().gpu;
  const auto set_computing = [&](bool computing) {
    for (Member& m : members_) m.account->computing = computing;
  };
  const double start = sg4::Engine::get_clock();
  const double compute_seconds = flops / speed_;
  // Gradient buckets that become ready part-way through this compute start at that point (the
  // last, ready at the op's end, with the op's own communication done: launch_ready).
  const std::vector<GradientReduction>& plan = members_.front().reductions;
  double left = compute_seconds;
  while (next_reduction_ < plan.size() && plan[next_reduction_].position == op_position_ &&
         plan[next_reduction_].fraction < 1 && op_compute_total_ > 0) {
    const double at = plan[next_reduction_].fraction * op_compute_total_ - op_compute_done_;
    if (at > left) break;
    set_computing(true);
    if (at > 0) compute_at_peak(job_.gpus, lead, at);
    op_compute_done_ += std::max(at, 0.0);
    left -= std::max(at, 0.0);
    launch_next();
  }
  op_compute_done_ += left;
  set_computing(true);
  if (job_.gpus.varying_speed[lead]) {
    compute_at_peak(job_.gpus, lead, left);
    set_computing(false);
    if (comm_seconds > 0) sg4::this_actor::sleep_for(comm_seconds);
  } else if (left + comm_seconds > 0) {
    sg4::this_actor::sleep_for(left + comm_seconds);
  }
  set_computing(false);
  const double end = sg4::Engine::get_clock();
  const double computed = end - start - comm_seconds;
  for (Member& m : members_) {
    m.account->busy += computed;
    trace_compute(job_.trace, m.gpu, op, start, start + computed);
    if (comm_seconds > 0) m.account->tp_exposed += comm_seconds;
  }
}

// The α-β time the op's TP collectives add to its compute (tp_op_cost.h): run after the compute back
// to back (sequence parallelism's native pairs under their GEMMs), or with --tp-comm-overlap each under
// an equal share of the op's GEMMs.
double GpuRun::tp_analytic_seconds(const Op& op, const TpCollectives& calls, double bytes) {
  const auto [dgrad, wgrad] = job_.plan.costs.tp_backward_gemm_seconds(op, speed_);
  const TpOpCost cost{calls, tp_allreduce_seconds(bytes), job_.plan.costs.tp_gemm_seconds(op, speed_), dgrad, wgrad};
  return job_.plan.options.tp_comm_overlap ? cost.overlapped_extra(job_.plan.options.tp_overlap_rs_slowdown)
                                           : cost.serial();
}

// The op's computation with its tensor-parallel collectives: as flows, the compute is cut into as
// many equal slices as there are collectives (one after each, as after attention and after the MLP
// of every layer); analytic or off, the collectives follow the compute as one α-β wait (same total).
void GpuRun::compute(std::size_t pos, const Op& op, double given_flops) {
  if (moe_ && moe_->applies(op)) {
    moe_->run(pos, op);
    return;
  }
  // The ring's attention runs with its sends, as flows (gpu_cp.cc); ZeRO-3's flows give a unit's
  // share, already without it (gpu_fsdp.cc).
  const double flops =
      given_flops >= 0 ? given_flops : job_.plan.costs.flops(op) - (cp_ring_flows() ? cp_ring_flops(op) : 0);
  compute_with_tp(pos, op, flops);
  run_cp(pos, op);
}

void GpuRun::compute_with_tp(std::size_t pos, const Op& op, double flops) {
  const TpCollectives calls =
      job_.plan.placement.sizes().tp > 1 ? job_.plan.costs.tp_collectives(op) : TpCollectives{};
  const double bytes = job_.plan.costs.tp_allreduce_bytes(op);
  const CommFidelity fidelity = calls.any() ? job_.plan.options.tp_comm : CommFidelity::Off;
  if (fidelity != CommFidelity::Flow) {
    const double comm_seconds = fidelity == CommFidelity::Analytic ? tp_analytic_seconds(op, calls, bytes) : 0;
    // Their interval is known when the wait ends; until then the links' fold keeps what it may need
    // from the op's start (less a µs for the clock's rounding of the wait). One hold for the actor's
    // members, in the slot of its first GPU.
    const int slot = members_.front().gpu;
    const double start = sg4::Engine::get_clock();
    if (comm_seconds > 0) job_.network.ledger().hold_analytic(slot, start - 1e-6);
    execute(op, flops, comm_seconds);
    // The collectives ran last, back to back (overlapped: over the whole op); the trace has one row
    // per kind, the links' report what their rings carried.
    const double end = sg4::Engine::get_clock();
    if (comm_seconds > 0) {
      // (The trace's start and the links' are computed as they always were, to the bit.)
      const bool overlap = job_.plan.options.tp_comm_overlap;
      const double traced_from = overlap ? start : start + (end - start - comm_seconds);
      const double carried_from = overlap ? start : end - comm_seconds;
      for (Member& m : members_) {
        trace_tp_rows(m.gpu, calls, bytes, traced_from, end);
        if (!m.tp_hops) m.tp_hops = analytic_ring_hops(job_.network, tp_group(m), m.at.tp, RingPhases::AllReduce);
        // Over the all-reduce's hops: half its bytes per half ring.
        account_analytic_hops(job_.network, *m.tp_hops, bytes * calls.halves() / 2, carried_from, end);
      }
      job_.network.ledger().release_analytic(slot);
    }
    return;
  }
  run_tp_flows(pos, op, flops, calls, bytes);
}

// An MoE action's TP collectives (moe_op.h computes its phases): after its attention, back to back and
// exposed, at --tp-comm's fidelity — their GEMMs are not split out of the phase, so --tp-comm-overlap
// leaves them serial — then its context-parallel messages (analytic or off: simulation_run.cc). Such
// a GPU has an actor of its own (tp_lockstep.h).
void GpuRun::action_tp_collectives(std::size_t pos, const Action& action, int first_ring) {
  const Op op(action);
  run_tp_collectives_only(pos, op, first_ring);
  run_cp(pos, op);
}

void GpuRun::run_tp_collectives_only(std::size_t pos, const Op& op, int first_ring) {
  const TpCollectives calls = job_.plan.placement.sizes().tp > 1 ? job_.plan.costs.tp_collectives(op) : TpCollectives{};
  if (!calls.any() || job_.plan.options.tp_comm == CommFidelity::Off) return;
  const double bytes = job_.plan.costs.tp_allreduce_bytes(op);
  Member& me = members_.front();
  if (job_.plan.options.tp_comm == CommFidelity::Analytic) {
    const double start = sg4::Engine::get_clock();
    const double seconds = TpOpCost{calls, tp_allreduce_seconds(bytes), 0}.serial();
    job_.network.ledger().hold_analytic(me.gpu, start - 1e-6);
    if (seconds > 0) sg4::this_actor::sleep_for(seconds);
    const double end = sg4::Engine::get_clock();
    me.account->tp_exposed += end - start;
    trace_tp_rows(me.gpu, calls, bytes, start, end);
    if (!me.tp_hops) me.tp_hops = analytic_ring_hops(job_.network, tp_group(me), me.at.tp, RingPhases::AllReduce);
    account_analytic_hops(job_.network, *me.tp_hops, bytes * calls.halves() / 2, start, end);
    job_.network.ledger().release_analytic(me.gpu);
    return;
  }
  const std::vector<int> group = tp_group(me);
  int k = first_ring;
  for (int r = 0; r < calls.allreduces; ++r) run_tp_ring(pos, k++, group, me, RingPhases::AllReduce, bytes);
  for (int r = 0; r < std::max(calls.all_gathers, calls.reduce_scatters); ++r) {
    if (r < calls.all_gathers) run_tp_ring(pos, k++, group, me, RingPhases::AllGather, bytes);
    if (r < calls.reduce_scatters) run_tp_ring(pos, k++, group, me, RingPhases::ReduceScatter, bytes);
  }
}

// The analytic collectives of an op as trace rows, one per kind with the bytes of all of them, the
// interval [from, end] shared in proportion to their ring halves.
void GpuRun::trace_tp_rows(int gpu, const TpCollectives& calls, double bytes, double from, double end) {
  const struct {
    const char* name;
    int count, halves;
  } rows[] = {{"tp-allreduce", calls.allreduces, 2 * calls.allreduces},
              {"tp-reducescatter", calls.reduce_scatters, calls.reduce_scatters},
              {"tp-allgather", calls.all_gathers, calls.all_gathers}};
  const double per_half = (end - from) / calls.halves();
  int left = calls.halves();
  double at = from;
  for (const auto& row : rows) {
    if (row.count == 0) continue;
    left -= row.halves;
    const double until = left == 0 ? end : at + per_half * row.halves;
    job_.trace.write({gpu, Track::Comm, row.name, -1, -1, 0, -1, bytes * row.count, at, until});
    at = until;
  }
}

// As flows, each member runs its own rings: such a GPU has an actor of its own (tp_lockstep.h). The
// compute is cut into one equal slice per collective, each followed by its ring: all-reduces, or
// sequence parallelism's all-gathers and reduce-scatters alternating (before the column-parallel GEMM,
// after the row-parallel one). With --tp-comm-overlap a ring runs under its slice's share of the
// GEMMs: the ring first, then what of that share it did not cover and the slice's other kernels.
// Without it, sequence parallelism's native pairs (tp_op_cost.h) run so under their dgrad or wgrad
// GEMM's share.
void GpuRun::run_tp_flows(std::size_t pos, const Op& op, double flops, const TpCollectives& calls, double bytes) {
  Member& me = members_.front();
  const std::vector<int> group = tp_group(me);
  std::vector<RingPhases> rings(static_cast<std::size_t>(calls.allreduces), RingPhases::AllReduce);
  for (int k = 0; k < std::max(calls.all_gathers, calls.reduce_scatters); ++k) {
    if (k < calls.all_gathers) rings.push_back(RingPhases::AllGather);
    if (k < calls.reduce_scatters) rings.push_back(RingPhases::ReduceScatter);
  }
  const int n = static_cast<int>(rings.size());
  const bool overlap = job_.plan.options.tp_comm_overlap && calls.allreduces == 0;
  const double gemm_share = overlap ? job_.plan.costs.tp_gemm_seconds(op, speed_) / n : 0;
  const auto [dgrad, wgrad] = job_.plan.costs.tp_backward_gemm_seconds(op, speed_);
  int native_gathers = overlap ? 0 : calls.native_gathers, native_scatters = overlap ? 0 : calls.native_scatters;
  for (int k = 0; k < n; ++k) {
    const RingPhases phase = rings[static_cast<std::size_t>(k)];
    double slice = flops / n;
    double share = gemm_share;
    bool under_gemm = overlap;
    if (phase == RingPhases::AllGather && native_gathers > 0) {
      --native_gathers;
      share = TpOpCost::native_share(dgrad, calls.native_gathers);
      under_gemm = true;
    } else if (phase == RingPhases::ReduceScatter && native_scatters > 0) {
      --native_scatters;
      share = TpOpCost::native_share(wgrad, calls.native_scatters);
      under_gemm = true;
    }
    if (under_gemm) {
      const double slowdown =
          overlap && phase == RingPhases::ReduceScatter ? job_.plan.options.tp_overlap_rs_slowdown : 1;
      const double start = sg4::Engine::get_clock();
      run_tp_ring(pos, k, group, me, phase, bytes);
      const double ring = sg4::Engine::get_clock() - start;
      // Accounted as the α-β path does: the GEMM share is compute, what the pair takes beyond it
      // (the ring's excess, or the SMs the reduce-scatter took) exposed TP communication.
      const double gemm_ran_with_ring = share - std::max(share * slowdown - ring, 0.0);
      me.account->tp_exposed = std::max(0.0, me.account->tp_exposed - gemm_ran_with_ring);
      me.account->busy += gemm_ran_with_ring;
      // The slice's GEMM share ran with the ring; what of it outlasts the ring is still to run.
      slice += (std::max(share * slowdown - ring, 0.0) - share) * speed_;
      execute(op, std::max(slice, 0.0));
      continue;
    }
    execute(op, slice);
    run_tp_ring(pos, k, group, me, phase, bytes);
  }
}

void GpuRun::run_tp_ring(std::size_t pos, int k, const std::vector<int>& group, Member& me, RingPhases phase,
                         double bytes) {
  const double start = waiting();
  ring_allreduce_flows(job_.transfers, group, me.at.tp, bytes, FlowKind::TensorAllReduce,
                       [](std::uint64_t context, std::uint64_t step) {
                         return tensor_tag(context >> 14, context & 0x3FFF, step);
                       },
                       (static_cast<std::uint64_t>(pos) << 14) | static_cast<std::uint64_t>(k), phase,
                       job_.plan.options.ring_flows);
  const double end = sg4::Engine::get_clock();
  me.account->tp_exposed += covered(start, end, job_.record.take_collective_spans(me.gpu, /*tensor_parallel=*/true));
  const char* name = phase == RingPhases::AllReduce       ? "tp-allreduce"
                     : phase == RingPhases::ReduceScatter ? "tp-reducescatter"
                                                          : "tp-allgather";
  job_.trace.write({me.gpu, Track::Comm, name, -1, -1, 0, -1, bytes, start, end});
}

}  // namespace pipegrid::sim
