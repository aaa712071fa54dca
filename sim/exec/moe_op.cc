#include "sim/exec/moe_op.h"

#include <algorithm>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>

#include "sim/exec/tags.h"
#include "sim/network/collectives.h"

namespace pipegrid::sim {

namespace sg4 = simgrid::s4u;

// The second action of a pair numbers its TP rings from here (tensor_tag keeps 14 bits of the index).
constexpr int kSecondActionRings = 4096;

// The FLOPs and bytes of one action's phases on this GPU.
struct MoeOp::Chunk {
  double attention = 0;  // FLOPs: non-expert compute (F, I, I + W, or W)
  double experts = 0;    // FLOPs: shared experts on own tokens + routed ones on the tokens received
  double dispatch_bytes = 0, combine_bytes = 0;  // per assignment, as the all-to-alls carry them
  double tokens = 0;
  double received = 0;  // assignments the all-to-all brings this GPU's experts
  bool forward = false;
};

MoeOp::MoeOp(Job& job, int gpu, double speed, TpCollectives tp_collectives)
    : job_(job), gpu_(gpu), account_(job.record.accounts[gpu]), speed_(speed), group_(job, gpu),
      tp_collectives_(std::move(tp_collectives)) {
  etp_group_ = job.plan.placement.group(gpu, "etp");
  etp_member_ = job.plan.placement.rank_in(gpu, "etp");
}

bool MoeOp::applies(const Op& op) const {
  for (int i = 0; i < op.size(); ++i)
    if (job_.plan.costs.stage(op[i].stage).moe.moe_layers > 0) return true;
  return false;
}

MoeOp::Chunk MoeOp::chunk_of(const Action& a) const {
  const MoeWork& w = job_.plan.costs.stage(a.stage).moe;
  // Which of F, I, W the action computes: B is I + W.
  const bool f = a.kind == Kind::F, i = a.kind == Kind::B || a.kind == Kind::I, wt = a.kind == Kind::B || a.kind == Kind::W;
  const auto part = [&](const double* flops) { return (f ? flops[0] : 0) + (i ? flops[1] : 0) + (wt ? flops[2] : 0); };
  Chunk c;
  c.attention = part(w.non_expert);
  c.received = group_.received_assignments(w.tokens);
  // The ETP group's members hold the same experts (column slices) and received alike: after the
  // all-gather each slice sees etp times this GPU's receipts.
  c.experts = part(w.shared) + c.received * w.etp * part(w.routed);
  c.dispatch_bytes = w.dispatch_bytes;
  // Gradients travel in bf16 whichever way: only the forward dispatch may be narrower (FP8).
  c.combine_bytes = w.combine_bytes;
  if (!f) c.dispatch_bytes = w.combine_bytes;
  c.tokens = w.tokens;
  c.forward = f;
  return c;
}

void MoeOp::compute(const Action& a, std::string_view phase, double seconds) {
  const double start = sg4::Engine::get_clock();
  account_.computing = true;
  compute_at_peak(job_.gpus, gpu_, seconds);
  account_.computing = false;
  // A speed profile stretches the compute; at constant speed it took `seconds` exactly.
  if (job_.gpus.varying_speed[gpu_]) seconds = sg4::Engine::get_clock() - start;
  account_.busy += seconds;
  job_.trace.write({gpu_, Track::Compute, phase, a.stage, a.microbatch, 0, -1, 0, start, start + seconds});
}

void MoeOp::communicate(const Action& a, std::string_view phase, ExpertGroup::Direction direction, double bytes,
                        std::size_t position, int tag_phase) {
  const double start = sg4::Engine::get_clock();
  group_.all_to_all(direction, bytes, job_.plan.costs.stage(a.stage).moe.tokens, position, tag_phase);
  const double end = sg4::Engine::get_clock();
  account_.a2a_exposed += end - start;
  job_.trace.write({gpu_, Track::Comm, phase, a.stage, a.microbatch, 0, -1, 0, start, end});
}

// Megatron-Core's MoEAlltoAllTokenDispatcher with expert tensor parallelism (token_dispatcher.py):
// dispatch_postprocess all-gathers the all-to-all's output over the ETP group
// (gather_from_sequence_parallel_region), combine_preprocess reduce-scatters the experts' partial
// sums over it (reduce_scatter_to_sequence_parallel_region) before the combine all-to-all; autograd
// runs each as the other backward. A ring of S = etp · (this GPU's receipts) · bytes, n − 1 steps of S/n.
void MoeOp::expert_tensor_ring(const Action& a, std::size_t position, int ring, double assignments,
                               double bytes_per_assignment) {
  const int n = static_cast<int>(etp_group_.size());
  if (n < 2 || job_.plan.options.ep_comm == CommFidelity::Off) return;
  const bool gather = ring % 2 == 0;
  const RingPhases phases = gather ? RingPhases::AllGather : RingPhases::ReduceScatter;
  const double bytes = n * assignments * bytes_per_assignment;
  const double start = sg4::Engine::get_clock();
  if (job_.plan.options.ep_comm == CommFidelity::Analytic) {
    double& known_bytes = etp_bytes_[gather ? 0 : 1];
    double& seconds = etp_seconds_[gather ? 0 : 1];
    if (bytes != known_bytes) {
      known_bytes = bytes;
      seconds = ring_allreduce_seconds(job_.network, etp_group_, bytes, phases);
    }
    account_analytic_ring(job_.network, etp_group_, etp_member_, bytes, phases, start, start + seconds);
    sg4::this_actor::sleep_for(seconds);
  } else {
    ring_allreduce_flows(job_.transfers, etp_group_, etp_member_, bytes, FlowKind::ExpertTensorCollective,
                         [](std::uint64_t context, std::uint64_t step) {
                           return expert_tag(context >> 2, 4 + (context & 3), step);
                         },
                         (static_cast<std::uint64_t>(position) << 2) | static_cast<std::uint64_t>(ring), phases,
                         job_.plan.options.ring_flows);
  }
  const double end = sg4::Engine::get_clock();
  account_.a2a_exposed += end - start;
  job_.trace.write({gpu_, Track::Comm, gather ? "etp-allgather" : "etp-reducescatter", a.stage, a.microbatch, 0, -1,
                    bytes, start, end});
}

void MoeOp::run_alone(std::size_t position, const Action& a, int first_ring) {
  const Chunk c = chunk_of(a);
  using D = ExpertGroup::Direction;
  if (a.kind == Kind::W) {
    compute(a, "W", (c.attention + c.experts) / speed_);
    return;
  }
  if (c.forward) {
    compute(a, "F-attention", c.attention / speed_);
    tp_collectives_(position, a, first_ring);
    communicate(a, "dispatch", D::ToExperts, c.dispatch_bytes, position, 0);
    expert_tensor_ring(a, position, 0, c.received, c.dispatch_bytes);
    compute(a, "F-experts", c.experts / speed_);
    expert_tensor_ring(a, position, 1, c.received, c.combine_bytes);
    communicate(a, "combine", D::FromExperts, c.combine_bytes, position, 1);
  } else {
    communicate(a, "combine-grad", D::ToExperts, c.combine_bytes, position, 2);
    expert_tensor_ring(a, position, 2, c.received, c.combine_bytes);
    compute(a, "B-experts", c.experts / speed_);
    expert_tensor_ring(a, position, 3, c.received, c.combine_bytes);
    communicate(a, "dispatch-grad", D::FromExperts, c.dispatch_bytes, position, 3);
    compute(a, "B-attention", c.attention / speed_);
    tp_collectives_(position, a, first_ring);
  }
}

void MoeOp::run_pair(std::size_t position, const Action& fa, const Action& ba) {
  const Chunk f = chunk_of(fa), b = chunk_of(ba);
  const double slow = 1 / (1 - job_.plan.options.comm_sm_fraction);
  using D = ExpertGroup::Direction;
  struct Slot {
    const Action* computing;
    std::string_view compute_phase;
    double flops;
    const Action* communicating;
    std::string_view comm_phase;
    D direction;
    double bytes;
    int tag_phase;
  };
  const Slot slots[] = {
      {&fa, "F-attention", f.attention, &ba, "combine-grad", D::ToExperts, b.combine_bytes, 2},
      {&ba, "B-experts", b.experts, &fa, "dispatch", D::ToExperts, f.dispatch_bytes, 0},
      {&fa, "F-experts", f.experts, &ba, "dispatch-grad", D::FromExperts, b.dispatch_bytes, 3},
      {&ba, "B-attention", b.attention, &fa, "combine", D::FromExperts, f.combine_bytes, 1},
  };
  for (const Slot& slot : slots) {
    const double start = sg4::Engine::get_clock();
    double seconds = slot.flops / speed_ * slow;
    // The computation runs as an activity of its own while this actor takes part in the all-to-all.
    sg4::ExecPtr work = seconds > 0 ? sg4::this_actor::exec_async(seconds * speed_) : nullptr;
    group_.all_to_all(slot.direction, slot.bytes, job_.plan.costs.stage(slot.communicating->stage).moe.tokens, position,
                      slot.tag_phase, /*computing_meanwhile=*/work != nullptr);
    const double comm_end = sg4::Engine::get_clock();
    if (work) work->wait();
    const double end = sg4::Engine::get_clock();
    // Under a speed profile the exec ends when the host's varying speed lets it.
    const double compute_end = work && job_.gpus.varying_speed[gpu_] ? work->get_finish_time() : start + seconds;
    seconds = compute_end - start;
    account_.busy += seconds;
    const double exposed = std::max(0.0, comm_end - compute_end);
    account_.a2a_exposed += exposed;
    account_.a2a_exposed_in_pairs += exposed;
    account_.a2a_hidden += (comm_end - start) - exposed;
    job_.trace.write({gpu_, Track::Compute, slot.compute_phase, slot.computing->stage, slot.computing->microbatch, 0,
                      -1, 0, start, compute_end});
    job_.trace.write({gpu_, Track::Comm, slot.comm_phase, slot.communicating->stage, slot.communicating->microbatch,
                      0, -1, 0, start, comm_end});
    (void)end;
  }
  // The pair's TP collectives (sequence parallelism's, --tp > 1) after its slots; ETP > 1 is refused
  // with pairs (simulation_run.cc).
  tp_collectives_(position, fa, 0);
  tp_collectives_(position, ba, kSecondActionRings);
}

void MoeOp::run(std::size_t position, const Op& op) {
  if (op.is_pair()) {
    const Action& a = op.first;
    const Action& b = *op.second;
    const bool both_moe =
        job_.plan.costs.stage(a.stage).moe.moe_layers > 0 && job_.plan.costs.stage(b.stage).moe.moe_layers > 0;
    if (both_moe && (a.kind == Kind::F) != (b.kind == Kind::F)) {
      run_pair(position, a.kind == Kind::F ? a : b, a.kind == Kind::F ? b : a);
      return;
    }
  }
  for (int i = 0; i < op.size(); ++i) {
    if (job_.plan.costs.stage(op[i].stage).moe.moe_layers > 0) {
      run_alone(position, op[i], i * kSecondActionRings);
    } else {  // a dense chunk in an op with an MoE one: its computation, in one piece
      compute(op[i], std::string_view("dense"), job_.plan.costs.flops(op[i]) / speed_);
      tp_collectives_(position, op[i], i * kSecondActionRings);
    }
  }
}

}  // namespace pipegrid::sim
