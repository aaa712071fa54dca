// The program of one pipeline rank run by one SimGrid actor for one GPU, or for every member of a TP
// group in lockstep (tp_lockstep.h): inputs received, compute (the TP all-reduces inside), outputs sent,
// then gradient reductions and the optimizer; each member's account, trace rows and waits stay its own.
// Internal to the executor: gpu_actor.cc (the step), gpu_p2p.cc, gpu_compute.cc, gpu_gradients.cc.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "schedules/cp_op_cost.h"
#include "sim/network/collectives.h"
#include "sim/exec/comm_stream.h"
#include "sim/exec/gradient_plan.h"
#include "sim/exec/job.h"
#include "sim/exec/moe_op.h"

namespace pipegrid::sim {

/// The part of [from, to] during which at least one of the flows was on the wire.
double covered(double from, double to, const std::vector<FlowSpan>& spans);
/// The same for one flow.
double covered(double from, double to, const FlowSpan& span);

/// A GPU's pipeline messages to one destination: the first of their channels
/// (Transfers::open_channels) and how many were sent so far.
struct SentTo {
  int dst;
  std::int64_t first_channel;
  std::int64_t sent;
};

class GpuRun {
 public:
  /// `gpus`: one GPU, or the members of one TP group in TP order (all of one pipeline rank).
  GpuRun(Job& job, std::vector<int> gpus);
  void run();

 private:
  struct PendingGather {
    int stage;
    std::size_t stream, number;
  };
  // What is each member's own.
  struct Member {
    int gpu;
    GpuCoordinates at;
    GpuAccount* account;
    std::vector<GradientReduction> reductions;  // plan_gradient_reductions, in launch order
    std::vector<std::shared_ptr<CommStream>> streams;  // one per ring the GPU reduces gradients on
    std::vector<PendingGather> gathers;                // parameter all-gathers not yet waited for
    // Per destination GPU: a stage has two or three pipeline peers, so a short list searched in order
    // (a hash map here showed in perf's profile of a large run).
    std::vector<SentTo> sends_to;
    std::unordered_map<std::size_t, MessageKey> unwaited_receives;  // by result: posted, waited at the use
    std::vector<MessageKey> late_sends;                             // rendezvous sends waited at the end
    // Its hops of the analytic TP all-reduces, found at the first (Rails::rings looks a group up in
    // a map, which per op and member showed in perf's profile of a large run).
    std::optional<AnalyticRingHops> tp_hops;
  };
  using Waits = std::vector<std::pair<MessageKey, bool>>;  // key, as sender

  // gpu_actor.cc: the step.
  void run_program();
  void optimizer();
  void validate_previous_step();
  double waiting();
  // gpu_p2p.cc: messages between pipeline ranks.
  int gpu_of_rank(const Member& m, int rank) const { return job_.plan.placement.gpu({m.at.tp, m.at.dp, rank, m.at.cp}); }
  void run_batch(std::size_t index, const CommBatch& batch);
  void receive_inputs(const Op& op);
  void wait_late_sends();
  void validation_messages(int rank, bool backward, bool send);
  // Waits for the members' messages (`waits[k]`: member k's, one per member) at once: the time spent
  // with a member's flow on the wire is its exposed p2p.
  void wait_and_expose(const Waits& waits, double from);
  // gpu_compute.cc: an op's compute.
  // `flops` < 0: the op's own.
  void compute(std::size_t pos, const Op& op, double flops = -1);
  void execute(const Op& op, double flops, double comm_seconds = 0);
  double tp_allreduce_seconds(double bytes);
  double tp_analytic_seconds(const Op& op, const TpCollectives& calls, double bytes);
  void trace_tp_rows(int gpu, const TpCollectives& calls, double bytes, double from, double end);
  void run_tp_flows(std::size_t pos, const Op& op, double flops, const TpCollectives& calls, double bytes);
  void run_tp_ring(std::size_t pos, int k, const std::vector<int>& group, Member& me, RingPhases phase, double bytes);
  std::vector<int> tp_group(const Member& m) const;
  void compute_with_tp(std::size_t pos, const Op& op, double flops);
  // gpu_cp.cc: context parallelism's sends or all-to-alls after the op's compute.
  void run_cp(std::size_t pos, const Op& op);
  void run_cp_flows(std::size_t pos, const Op& op);
  const CpStageComm& cp_stage(int stage);
  bool cp_ring_flows() const;
  double cp_ring_flops(const Op& op) const;
  double cp_ring_flops(const Action& a) const;  // what the ring's flows run of one action
  void action_tp_collectives(std::size_t pos, const Action& action, int first_ring);
  void run_tp_collectives_only(std::size_t pos, const Op& op, int first_ring);
  // gpu_gradients.cc: gradient and parameter collectives on the members' comm streams.
  void launch_ready(std::size_t pos);
  void launch_next();
  std::pair<std::size_t, std::size_t> launch(Member& m, const GradientReduction& r);
  void gather_parameters();
  void wait_for_gathers(int stage, bool first_only = false);
  void finish_gradients();
  void add_dp_exposed(double start);
  // gpu_fsdp.cc: ZeRO-3's all-gathers around an op's compute.
  bool fsdp_gathers(const Op& op) const;
  void compute_fsdp(std::size_t pos, const Op& op);
  void fsdp_analytic(std::size_t pos, const Op& op);
  void fsdp_flows(std::size_t pos, const Op& op);
  const FsdpUnits& fsdp_seconds(int stage);

  Job& job_;
  std::vector<Member> members_;
  int rank_;
  const std::vector<Op>& program_;
  double speed_;  // flop/s of the members, as the platform file gives it (equal in a group)
  std::unique_ptr<MoeOp> moe_;  // with mixture-of-experts stages (one GPU per actor)
  std::size_t next_reduction_ = 0;  // the members' plans launch at the same points
  std::size_t fsdp_stream_ = 0;     // ZeRO-3's all-gathers: a stream after the plan's
  std::vector<std::optional<FsdpUnits>> fsdp_seconds_;  // per stage, found at its first use
  double analytic_bytes_ = -1, analytic_seconds_ = 0;
  std::vector<std::optional<CpStageComm>> cp_stages_;  // per virtual stage, priced at its first op
  int step_ = 0;                       // the training step being run
  // run_batch's working lists, kept from batch to batch (allocating them per batch showed in perf's
  // profile of a large run): per member its waits, one round of waits, the spans.
  std::vector<Waits> batch_waits_;
  Waits batch_round_;
  std::vector<FlowSpan> round_spans_;
  std::vector<std::vector<FlowSpan>> batch_spans_;
  std::size_t validation_point_ = 0;   // where post-validation's check of the previous step is awaited
  std::size_t op_position_ = 0;        // the op being computed
  double op_compute_total_ = 0, op_compute_done_ = 0;  // its compute seconds, and how many have run
};

}  // namespace pipegrid::sim
