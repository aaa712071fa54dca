// An op's context-parallel communication on a rank actor (gpu_run.h), after its compute and TP
// collectives: analytic, one α-β wait of what the ring's sends or Ulysses' all-to-alls add beyond
// the attention (schedules/cp_op_cost.h, priced as the contention-free engine prices it); as flows,
// the ring's steps each a block of the attention under the send of the next KV block to the next CP
// rank, or the all-to-alls' pieces to every CP peer. With flows the op's attention runs here, after
// its other kernels: on a network without contention the same total as interleaved layer by layer.
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include "sim/exec/cp_comm.h"
#include "sim/exec/gpu_run.h"
#include "sim/exec/tags.h"

namespace pipegrid::sim {

namespace sg4 = simgrid::s4u;

const CpStageComm& GpuRun::cp_stage(int stage) {
  if (cp_stages_.empty()) cp_stages_.resize(static_cast<std::size_t>(job_.plan.costs.num_stages()));
  std::optional<CpStageComm>& priced = cp_stages_[static_cast<std::size_t>(stage)];
  if (!priced) {
    std::vector<int> gpus;
    for (const Member& m : members_) gpus.push_back(m.gpu);
    priced = cp_stage_comm(job_.network, job_.plan.placement, job_.plan.costs.stage(stage), gpus, speed_,
                           job_.plan.options.cp_all_to_all);
  }
  return *priced;
}

bool GpuRun::cp_ring_flows() const {
  const ExecOptions& o = job_.plan.options;
  return job_.plan.placement.sizes().cp > 1 && o.cp_comm == CommFidelity::Flow && !o.cp_all_to_all;
}

double GpuRun::cp_ring_flops(const Action& a) const {
  const StageWork& w = job_.plan.costs.stage(a.stage);
  if (a.kind == Kind::F) return w.f_attention_flops;
  if ((a.kind == Kind::B || a.kind == Kind::I) && w.cp_forward_layers > 0)
    return w.i_attention_flops + w.f_attention_flops * w.cp_recomputed_layers / w.cp_forward_layers;
  return 0;
}

double GpuRun::cp_ring_flops(const Op& op) const {
  double flops = 0;
  for (int k = 0; k < op.size(); ++k) flops += cp_ring_flops(op[k]);
  return flops;
}

void GpuRun::run_cp(std::size_t pos, const Op& op) {
  if (job_.plan.placement.sizes().cp == 1 || job_.plan.options.cp_comm == CommFidelity::Off) return;
  if (job_.plan.options.cp_comm == CommFidelity::Flow) {
    run_cp_flows(pos, op);
    return;
  }
  double seconds = 0, bytes = 0;
  for (int k = 0; k < op.size(); ++k) {
    const CpStageComm& cp = cp_stage(op[k].stage);
    const StageWork& w = job_.plan.costs.stage(op[k].stage);
    if (op[k].kind == Kind::F) {
      seconds += cp.forward_extra();
      bytes += cp.forward_bytes(w.cp_kv_bytes, w.cp_q_bytes);
    }
    if (op[k].kind == Kind::B || op[k].kind == Kind::I) {
      seconds += cp.backward_extra();
      bytes += cp.backward_bytes(w.cp_kv_bytes, w.cp_q_bytes);
    }
  }
  if (bytes <= 0) return;
  const double start = sg4::Engine::get_clock();
  if (seconds > 0) sg4::this_actor::sleep_for(seconds);
  const double end = sg4::Engine::get_clock();
  // One row per op with the bytes of all its messages (hidden under the attention where it is empty).
  const char* name = job_.plan.options.cp_all_to_all ? "cp-alltoall" : "cp-send";
  for (Member& m : members_) {
    m.account->cp_exposed += seconds;
    job_.trace.write({m.gpu, Track::Comm, name, -1, -1, 0, -1, bytes, start, end});
  }
}

void GpuRun::run_cp_flows(std::size_t pos, const Op& op) {
  Member& me = members_.front();  // flows: one GPU per actor (tp_lockstep.h)
  const Placement& placement = job_.plan.placement;
  const int cp = placement.sizes().cp;
  const std::vector<int> group = placement.group(me.gpu, "cp");
  const int member = placement.rank_in(me.gpu, "cp");
  const int next = cp_next(placement, me.gpu), prev = cp_previous(placement, me.gpu);
  std::uint64_t index = 0;
  // One message: posted, the step's attention (if any) computed under it, then waited for; the wait
  // after the compute is exposed.
  const auto ring_step = [&](double bytes, double step_flops) {
    const std::uint64_t tag = context_tag(pos, index++);
    const double posted = sg4::Engine::get_clock();
    if (bytes > 0) {
      job_.transfers.post_send({next, tag}, FlowInfo{FlowKind::ContextParallel, me.gpu, next, bytes}, /*eager=*/true,
                               /*sender_waits=*/true);
      job_.transfers.post_receive({me.gpu, tag}, FlowInfo{FlowKind::ContextParallel, prev, me.gpu, bytes});
    }
    if (step_flops > 0) execute(op, step_flops);
    if (bytes <= 0) return;
    const double computed = sg4::Engine::get_clock();
    job_.transfers.wait({next, tag}, /*as_sender=*/true);
    job_.transfers.wait({me.gpu, tag}, /*as_sender=*/false);
    const double end = sg4::Engine::get_clock();
    me.account->cp_exposed += end - computed;
    job_.trace.write({me.gpu, Track::Comm, "cp-send", -1, -1, 0, -1, bytes, posted, end});
  };
  const auto all_to_all = [&](double bytes) {
    const std::uint64_t tag = context_tag(pos, index++, 0);
    const double start = sg4::Engine::get_clock();
    const double piece = bytes / cp;
    for (int j = 0; j < cp; ++j)
      if (j != member)
        job_.transfers.post_send({group[j], tag | static_cast<std::uint64_t>(member)},
                                 FlowInfo{FlowKind::ContextParallel, me.gpu, group[j], piece}, /*eager=*/true);
    for (int j = 0; j < cp; ++j)
      if (j != member)
        job_.transfers.post_receive({me.gpu, tag | static_cast<std::uint64_t>(j)},
                                    FlowInfo{FlowKind::ContextParallel, group[j], me.gpu, piece});
    for (int j = 0; j < cp; ++j)
      if (j != member) job_.transfers.wait({me.gpu, tag | static_cast<std::uint64_t>(j)}, /*as_sender=*/false);
    const double end = sg4::Engine::get_clock();
    me.account->cp_exposed += end - start;
    job_.trace.write({me.gpu, Track::Comm, "cp-alltoall", -1, -1, 0, -1, bytes, start, end});
  };
  for (int k = 0; k < op.size(); ++k) {
    const bool forward = op[k].kind == Kind::F, backward = op[k].kind == Kind::B || op[k].kind == Kind::I;
    if (!forward && !backward) continue;
    const StageWork& w = job_.plan.costs.stage(op[k].stage);
    const CpStageComm& c = cp_stage(op[k].stage);
    const double kv = w.cp_kv_bytes, q = w.cp_q_bytes;
    // The layers' attention passes in this action: F's forwards; a B's or I's recomputed forwards, then backwards.
    const int forwards = forward ? c.forward_layers : c.recomputed_layers;
    const int backwards = backward ? c.backward_layers : 0;
    for (int layer = 0; layer < forwards + backwards; ++layer) {
      const bool back = layer >= forwards;
      if (c.all_to_all) {
        for (double bytes : {q, kv / 2, kv / 2, q}) all_to_all(bytes);
        continue;
      }
      const double step_flops = (back ? c.backward_step : c.forward_step) * speed_;
      // TE's loops: forward, the next KV block under each step but the last; backward, under every
      // step: KV, then KV and dKV together, then dKV alone (cp_op_cost.h).
      for (int step = 0; step < cp; ++step) {
        double bytes = 0;
        if (!back) bytes = step < cp - 1 ? kv : 0;
        else bytes = step == 0 || step == cp - 1 ? kv : 2 * kv;
        ring_step(bytes, step_flops);
      }
    }
  }
}

}  // namespace pipegrid::sim
