// The actor of one GPU: its pipeline rank's program, op by op — receive the inputs, compute (with the
// tensor-parallel all-reduces inside), send the outputs — in the p2p semantics the user chose; then
// the gradient all-reduces. Both the send side and the receive side of every transfer come from the
// same programs (schedules/results.h), so no order is invented here.
#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <unordered_map>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <memory>

#include "sim/exec/job.h"
#include "schedules/messages.h"
#include "sim/exec/comm_stream.h"
#include "sim/exec/gradient_plan.h"
#include "sim/exec/moe_op.h"
#include "sim/exec/tags.h"

namespace pipegrid::sim {

namespace {

namespace sg4 = simgrid::s4u;

struct Message {
  MessageKey key;
  FlowInfo flow;
};

// The part of [from, to] during which at least one of the flows was on the wire.
double covered(double from, double to, std::vector<FlowSpan> spans) {
  std::sort(spans.begin(), spans.end(), [](const FlowSpan& a, const FlowSpan& b) { return a.start < b.start; });
  double total = 0, reach = from;
  for (const FlowSpan& s : spans) {
    const double begin = std::max(s.start, reach), end = std::min(s.end, to);
    if (end > begin) total += end - begin;
    reach = std::max(reach, end);
  }
  return total;
}

std::string_view kind_name(Kind kind) {
  switch (kind) {
    case Kind::F: return "F";
    case Kind::B: return "B";
    case Kind::I: return "I";
    case Kind::W: return "W";
  }
  return "?";
}

class GpuRun {
 public:
  GpuRun(Job& job, int gpu)
      : job_(job),
        gpu_(gpu),
        at_(job.placement.coordinates(gpu)),
        program_(job.schedule.programs[at_.pp]),
        account_(job.accounts[gpu]),
        speed_(job.hosts[gpu]->get_speed()) {
    if (job.costs.routing().enabled()) moe_ = std::make_unique<MoeOp>(job, gpu, speed_);
    reductions_ = plan_gradient_reductions(job, gpu);
    // Post-validation's check comes back from the next rank before the first op that needs anything
    // from that rank (the zero-bubble runtime places it before the first compute that is not a chunk-0
    // forward): the last rank passes it on at once.
    validation_point_ = at_.pp + 1 == job.schedule.ranks ? 0 : program_.size();
    for (std::size_t pos = 0; pos < program_.size() && validation_point_ == program_.size(); ++pos)
      for (int i = 0; i < program_[pos].size(); ++i)
        if (const auto in = input_of(job.schedule.layout, program_[pos][i]);
            in && program_[pos][i].kind != Kind::W && job.schedule.rank_of(in->stage) == at_.pp + 1)
          validation_point_ = pos;
  }

  void run() {
    for (step_ = 0; step_ < job_.options.steps; ++step_) {
      run_program();
      wait_late_sends();
      finish_gradients();
      optimizer();
      gather_parameters();
      account_.step_ends.push_back(sg4::Engine::get_clock());
    }
    // The last step's overlapped all-gathers have no next forward to hide behind: the run ends with
    // them, its last step does not (a steady state would have them under the next step).
    wait_for_gathers(-1);
    for (auto& stream : streams_) stream->close();
    account_.finish = sg4::Engine::get_clock();
    account_.finished = true;
  }

 private:
  // One step's program: its comm batches and compute ops, in order.
  void run_program() {
    const auto& batches = job_.schedule.comms[at_.pp];
    std::size_t b = 0;
    next_reduction_ = 0;
    for (std::size_t pos = 0; pos < program_.size(); ++pos) {
      account_.position = pos;
      for (; b < batches.size() && batches[b].before <= pos; ++b) run_batch(b, batches[b]);
      const Op& op = program_[pos];
      if (pos == validation_point_ && step_ > 0) validate_previous_step();
      if (!gathers_.empty())
        for (int i = 0; i < op.size(); ++i)
          if (op[i].kind == Kind::F) wait_for_gathers(op[i].stage, /*first_only=*/true);
      receive_inputs(op);
      op_position_ = pos;
      op_compute_total_ = job_.costs.flops(op) / speed_;
      op_compute_done_ = 0;
      compute(pos, op);
      if (!gathers_.empty())
        for (int i = 0; i < op.size(); ++i)
          if (op[i].kind == Kind::F) wait_for_gathers(op[i].stage);
      launch_ready(pos);
    }
    account_.position = program_.size();
    for (; b < batches.size(); ++b) run_batch(b, batches[b]);
  }

  // The optimizer's check, then its update. Under the all-reduce check every GPU of the group waits
  // for the last; under post-validation a rank waits only for the partial check of the rank before it
  // and passes its own on.
  void optimizer() {
    const int p = job_.schedule.ranks;
    const double start = waiting();
    if (job_.options.optimizer_sync == OptimizerSync::AllReduce) {
      const int group = job_.options.sync_whole_job ? 0 : at_.dp;
      const int members = job_.options.sync_whole_job ? job_.placement.num_gpus() : job_.placement.sizes().tp * p;
      const int first = job_.options.sync_whole_job ? 0 : job_.placement.gpu({0, at_.dp, 0});
      const double latency = first == gpu_ ? 0 : job_.network.effective_latency(gpu_, first);
      job_.step_barrier.arrive_and_wait(group, members, step_, latency);
    } else if (job_.options.optimizer_sync == OptimizerSync::PostValidation && p > 1) {
      if (at_.pp > 0) validation_message(at_.pp - 1, false, /*send=*/false);
      if (at_.pp + 1 < p) validation_message(at_.pp + 1, false, /*send=*/true);
    }
    account_.sync_wait += sg4::Engine::get_clock() - start;
    const auto& seconds = job_.options.optimizer_seconds;
    if (!seconds.empty() && seconds[at_.pp] > 0) {
      const double begin = sg4::Engine::get_clock();
      sg4::this_actor::sleep_for(seconds[at_.pp]);
      account_.busy += seconds[at_.pp];
      job_.trace.write({gpu_, Track::Compute, "optimizer", -1, -1, 0, -1, 0, begin, sg4::Engine::get_clock()});
    }
  }

  // Post-validation's chain back from the last rank, in the next step before a rank's first op that
  // needs the next rank: the full check of the previous step reaches it from the rank after it and goes
  // on to the one before.
  void validate_previous_step() {
    const int p = job_.schedule.ranks;
    if (job_.options.optimizer_sync != OptimizerSync::PostValidation || p < 2) return;
    const double start = waiting();
    if (at_.pp + 1 < p) validation_message(at_.pp + 1, true, /*send=*/false);
    if (at_.pp > 0) validation_message(at_.pp - 1, true, /*send=*/true);
    account_.sync_wait += sg4::Engine::get_clock() - start;
  }

  // A few bytes of the optimizer's check to or from a neighbouring pipeline rank: sent eagerly,
  // received and waited for at once.
  void validation_message(int rank, bool backward, bool send) {
    const int peer = gpu_of_rank(rank);
    const int src = send ? gpu_ : peer, dst = send ? peer : gpu_;
    const MessageKey key{dst, validation_tag(static_cast<std::uint64_t>(step_), backward)};
    const FlowInfo flow{FlowKind::OptimizerCheck, src, dst, 0, -1, -1, backward};
    if (send) {
      job_.transfers.post_send(key, flow, /*eager=*/true);
    } else {
      job_.transfers.post_receive(key, flow);
      job_.transfers.wait(key, /*as_sender=*/false);
    }
  }

  // The compute begins a wait that may block: a deadlock report says since when (GpuAccount).
  double waiting() { return account_.blocked_since = sg4::Engine::get_clock(); }

  int gpu_of_rank(int rank) const { return job_.placement.gpu({at_.tp, at_.dp, rank}); }

  Message message(const Result& result, int src, int dst) const {
    const bool backward = result.flow == Flow::Backward;
    FlowInfo flow{FlowKind::PipelineP2p, src, dst, job_.costs.result_bytes(result.stage, backward), result.stage,
                  result.microbatch, backward};
    return {MessageKey{dst, pipeline_tag(job_.results(result), static_cast<std::uint64_t>(step_))}, flow};
  }

  // The channel of this GPU's next message to `dst`: the n-th one goes on channel n mod K
  // (comm_timing.h numbers a pair's messages the same way).
  std::int64_t next_channel(int dst) {
    const int k = job_.options.p2p_channels;
    const std::int64_t n = sends_to_[dst]++;
    return (static_cast<std::int64_t>(gpu_) * static_cast<std::int64_t>(job_.hosts.size()) + dst) * k + n % k;
  }

  // Posts a batch's sends and receives together; a batch waited at once is waited for whole (the part
  // of the wait with a flow on the wire is exposed p2p), one waited at its use leaves its receives to
  // the op that reads them and, under rendezvous, its sends to the end of the step.
  void run_batch(std::size_t index, const CommBatch& batch) {
    Transfers& transfers = job_.transfers;
    const bool rendezvous = job_.options.p2p == P2pMode::Rendezvous;
    const bool now = batch.wait == CommWait::Now;
    std::vector<std::pair<MessageKey, bool>> waits;  // key, as sender
    for (const CommAction& a : batch.actions) {
      const Result r = *message_of(job_.schedule.layout, a);
      if (is_send(a.kind)) {
        const Message m = message(r, gpu_, gpu_of_rank(receiver_rank(job_.schedule, r)));
        transfers.post_send(m.key, m.flow, /*eager=*/!rendezvous, /*sender_waits=*/rendezvous,
                            next_channel(m.flow.dst_gpu));
        if (rendezvous && now)
          waits.emplace_back(m.key, true);
        else if (rendezvous)
          late_sends_.push_back(m.key);
      } else {
        const Message m = message(r, gpu_of_rank(sender_rank(job_.schedule, r)), gpu_);
        transfers.post_receive(m.key, m.flow);
        if (now)
          waits.emplace_back(m.key, false);
        else
          unwaited_receives_.emplace(job_.results(r), m.key);
      }
    }
    if (waits.empty()) return;
    account_.comm_batch = index;
    const double begin = waiting();
    std::vector<FlowSpan> spans;
    for (const auto& [key, as_sender] : waits) spans.push_back(transfers.wait(key, as_sender));
    account_.p2p_exposed += covered(begin, sg4::Engine::get_clock(), spans);
    account_.comm_batch.reset();
  }

  // The receives the op reads that were posted to be waited at their use.
  void receive_inputs(const Op& op) {
    for (int i = 0; i < op.size(); ++i) {
      const auto input = input_of(job_.schedule.layout, op[i]);
      if (!input) continue;
      const auto it = unwaited_receives_.find(job_.results(*input));
      if (it == unwaited_receives_.end()) continue;
      const MessageKey key = it->second;
      unwaited_receives_.erase(it);
      const double from = waiting();
      account_.p2p_exposed += covered(from, sg4::Engine::get_clock(), {job_.transfers.wait(key, false)});
    }
  }

  void wait_late_sends() {
    for (const MessageKey& key : late_sends_) {
      const double from = waiting();
      account_.p2p_exposed += covered(from, sg4::Engine::get_clock(), {job_.transfers.wait(key, true)});
    }
    late_sends_.clear();
  }

  // The α-β time of one TP all-reduce, computed once: every op of a GPU uses the same group and size.
  double tp_allreduce_seconds(double bytes) {
    if (bytes != analytic_bytes_) {
      analytic_bytes_ = bytes;
      analytic_seconds_ = ring_allreduce_seconds(job_.network, tp_group(), bytes);
    }
    return analytic_seconds_;
  }

  std::vector<int> tp_group() const {
    std::vector<int> group(job_.placement.sizes().tp);
    for (int t = 0; t < static_cast<int>(group.size()); ++t) group[t] = job_.placement.gpu({t, at_.dp, at_.pp});
    return group;
  }

  void trace_compute(const Op& op, double start, double end) {
    for (int i = 0; i < op.size(); ++i)
      job_.trace.write({gpu_, Track::Compute, kind_name(op[i].kind), op[i].stage, op[i].microbatch, 0, -1, 0, start,
                        end});
  }

  // Computes the op, followed by `comm_seconds` of communication that is not overlapped with it (the
  // analytic TP all-reduces). A GPU runs one computation at a time: on a host of constant speed that
  // is one wait of flops / speed + comm_seconds — exactly what an exec of the FLOPs would take, at one
  // simcall instead of two and without the CPU model's sharing machinery, which halves the cost of an
  // op at 3072 GPUs (README, "Performance"). Where the host has a speed profile the compute is an exec
  // (compute_at_peak), which the profile slows from the moment it changes.
  void execute(const Op& op, double flops, double comm_seconds = 0) {
    const double start = sg4::Engine::get_clock();
    const double compute_seconds = flops / speed_;
    // Gradient buckets that become ready part-way through this compute start at that point (the
    // last, ready at the op's end, with the op's own communication done: launch_ready).
    double left = compute_seconds;
    while (next_reduction_ < reductions_.size() && reductions_[next_reduction_].position == op_position_ &&
           reductions_[next_reduction_].fraction < 1 && op_compute_total_ > 0) {
      const double at = reductions_[next_reduction_].fraction * op_compute_total_ - op_compute_done_;
      if (at > left) break;
      account_.computing = true;
      if (at > 0) compute_at_peak(job_, gpu_, at);
      op_compute_done_ += std::max(at, 0.0);
      left -= std::max(at, 0.0);
      launch(reductions_[next_reduction_++]);
    }
    op_compute_done_ += left;
    account_.computing = true;
    if (job_.varying_speed[gpu_]) {
      compute_at_peak(job_, gpu_, left);
      account_.computing = false;
      if (comm_seconds > 0) sg4::this_actor::sleep_for(comm_seconds);
    } else if (left + comm_seconds > 0) {
      sg4::this_actor::sleep_for(left + comm_seconds);
    }
    account_.computing = false;
    const double end = sg4::Engine::get_clock();
    const double computed = end - start - comm_seconds;
    account_.busy += computed;
    trace_compute(op, start, start + computed);
    if (comm_seconds > 0) {
      account_.tp_exposed += comm_seconds;
      job_.trace.write({gpu_, Track::Comm, "tp-allreduce", -1, -1, 0, -1, job_.costs.tp_allreduce_bytes(op) *
                        job_.costs.tp_allreduces(op), start + computed, end});
    }
  }

  // A wait for a collective as flows: the part of it with one of the GPU's flows on the wire is exposed
  // communication; waiting for a peer that has not arrived is idle time.
  void collective_done(std::string_view kind, double bytes, double start, double& exposed) {
    const double end = sg4::Engine::get_clock();
    exposed += covered(start, end, job_.take_collective_spans(gpu_, /*tensor_parallel=*/true));
    job_.trace.write({gpu_, Track::Comm, kind, -1, -1, 0, -1, bytes, start, end});
  }

  // The op's computation with its tensor-parallel all-reduces: as flows, the compute is cut into as
  // many equal slices as there are all-reduces (one after each, as after attention and after the MLP
  // of every layer); analytic or off, the all-reduces follow the compute as one α-β wait (same total).
  void compute(std::size_t pos, const Op& op) {
    if (moe_ && moe_->applies(op)) {
      moe_->run(pos, op);
      return;
    }
    const double flops = job_.costs.flops(op);
    const int allreduces = job_.placement.sizes().tp > 1 ? job_.costs.tp_allreduces(op) : 0;
    const double bytes = job_.costs.tp_allreduce_bytes(op);
    const CommFidelity fidelity = allreduces > 0 ? job_.options.tp_comm : CommFidelity::Off;
    if (fidelity != CommFidelity::Flow) {
      const double comm_seconds = fidelity == CommFidelity::Analytic ? allreduces * tp_allreduce_seconds(bytes) : 0;
      // Their interval is known when the wait ends; until then the links' fold keeps what it may need
      // from the op's start (less a µs for the clock's rounding of the wait).
      if (comm_seconds > 0) job_.network.hold_analytic(gpu_, sg4::Engine::get_clock() - 1e-6);
      execute(op, flops, comm_seconds);
      // The all-reduces ran last, back to back: the links' report counts what their rings carried.
      const double end = sg4::Engine::get_clock();
      if (comm_seconds > 0) {
        account_analytic_ring(job_.network, tp_group(), at_.tp, allreduces * bytes, RingPhases::AllReduce,
                              end - comm_seconds, end);
        job_.network.release_analytic(gpu_);
      }
      return;
    }
    const std::vector<int> group = tp_group();
    for (int k = 0; k < allreduces; ++k) {
      execute(op, flops / allreduces);
      const double start = waiting();
      ring_allreduce_flows(job_.transfers, group, at_.tp, bytes, FlowKind::TensorAllReduce,
                           [](std::uint64_t context, std::uint64_t step) {
                             return tensor_tag(context >> 14, context & 0x3FFF, step);
                           },
                           (static_cast<std::uint64_t>(pos) << 14) | static_cast<std::uint64_t>(k));
      collective_done("tp-allreduce", bytes, start, account_.tp_exposed);
    }
  }

  // Launches the reductions whose gradients are ready at the end of the op at `pos`.
  void launch_ready(std::size_t pos) {
    while (next_reduction_ < reductions_.size() && reductions_[next_reduction_].position == pos)
      launch(reductions_[next_reduction_++]);
  }

  // A reduction on the stream of its ring: flows round the ring, or its α-β time, traced as it runs.
  // Returns its stream and its number there.
  std::pair<std::size_t, std::size_t> launch(const GradientReduction& r) {
    if (job_.options.dp_comm == CommFidelity::Off) return {0, 0};
    while (streams_.size() <= r.stream)
      streams_.push_back(std::make_shared<CommStream>(job_.transfers, gpu_, job_.hosts[gpu_],
                                                      fmt::format("gpu{}-stream{}", gpu_, streams_.size())));
    if (job_.options.dp_comm == CommFidelity::Analytic) {
      const auto [number, start, end] =
          streams_[r.stream]->launch_timed(ring_allreduce_seconds(job_.network, r.group, r.bytes, r.phases));
      job_.trace.write({gpu_, Track::Comm, r.kind, -1, -1, 0, -1, r.bytes, start, end});
      account_analytic_ring(job_.network, r.group, r.member, r.bytes, r.phases, start, end);
      return {r.stream, number};
    }
    const std::size_t number = streams_[r.stream]->launch([this, r, training_step = step_] {
      const double start = sg4::Engine::get_clock();
      // The tag of a step: its space and step, and the context that tells two collectives of one
      // space apart (packed into the context argument the ring passes back).
      const std::uint64_t packed =
          (static_cast<std::uint64_t>(r.space) << 40) | step_context(static_cast<std::uint64_t>(training_step), r.context);
      job_.collectives.enter(gpu_, {packed, r.kind, r.group, r.member});
      ring_allreduce_flows(job_.transfers, r.group, r.member, r.bytes, r.flow_kind,
                           [](std::uint64_t packed_context, std::uint64_t step) {
                             return gradient_tag(static_cast<TagSpace>(packed_context >> 40), step,
                                                 packed_context & ((std::uint64_t{1} << 40) - 1));
                           },
                           packed, r.phases);
      job_.collectives.leave(gpu_, packed);
      job_.trace.write({gpu_, Track::Comm, r.kind, -1, -1, 0, -1, r.bytes, start, sg4::Engine::get_clock()});
    });
    return {r.stream, number};
  }

  // The distributed optimizer's all-gather of the parameters it updated, on the ring that
  // reduce-scattered their gradients: waited at once, or by the first forward of their stage in the
  // next step (Megatron's forward pre-hook with --overlap-param-gather).
  // Launched in forward order (first layers first, the reverse of the backward's buckets), as Megatron
  // dispatches them; a stage's first forward waits for its first bucket, and its compute's end for
  // the others (the forward pre-hook of each bucket's layers, without cutting the op).
  void gather_parameters() {
    if (!job_.options.distributed_optimizer || job_.options.dp_comm == CommFidelity::Off) return;
    for (auto it = reductions_.rbegin(); it != reductions_.rend(); ++it) {
      const GradientReduction& r = *it;
      if (r.phases != RingPhases::ReduceScatter || r.parameter_bytes <= 0) continue;
      GradientReduction gather = r;
      gather.kind = "dp-all-gather";
      gather.phases = RingPhases::AllGather;
      gather.bytes = r.parameter_bytes;
      gather.context = r.context | (std::uint64_t{1} << 31);
      const auto [stream, number] = launch(gather);
      gathers_.push_back({r.stage, stream, number});
    }
    if (!job_.options.param_gather_overlap) wait_for_gathers(-1);
  }

  // Waits for the parameter all-gathers of `stage` (-1: all of them), or only for its first.
  void wait_for_gathers(int stage, bool first_only = false) {
    const double start = waiting();
    bool waited = false;
    std::erase_if(gathers_, [&](const PendingGather& g) {
      if ((stage >= 0 && g.stage != stage) || (first_only && waited)) return false;
      streams_[g.stream]->wait_for(g.number);
      waited = true;
      return true;
    });
    if (!waited) return;
    const double end = sg4::Engine::get_clock();
    const std::vector<FlowSpan> spans = job_.take_collective_spans(gpu_, /*tensor_parallel=*/false);
    account_.dp_exposed += job_.options.dp_comm == CommFidelity::Flow ? covered(start, end, spans) : end - start;
  }

  // After the last op: what is left of the plan (reductions after the step), then the wait for every
  // stream — the gradients must be reduced before the optimizer.
  void finish_gradients() {
    const double start = waiting();
    while (next_reduction_ < reductions_.size() && !reductions_[next_reduction_].after_grad_sync)
      launch(reductions_[next_reduction_++]);
    for (auto& stream : streams_) stream->wait_all();
    waiting();
    while (next_reduction_ < reductions_.size()) launch(reductions_[next_reduction_++]);
    for (auto& stream : streams_) stream->wait_all();
    // As flows, the wait is exposed while the GPU's gradient flows were on the wire (waiting for a
    // late replica is idle); an α-β all-reduce is all wire.
    const double end = sg4::Engine::get_clock();
    const std::vector<FlowSpan> spans = job_.take_collective_spans(gpu_, /*tensor_parallel=*/false);
    account_.dp_exposed += job_.options.dp_comm == CommFidelity::Flow ? covered(start, end, spans) : end - start;
  }

  Job& job_;
  int gpu_;
  GpuCoordinates at_;
  const std::vector<Op>& program_;
  GpuAccount& account_;
  double speed_;  // flop/s of this GPU, as the platform file gives it
  std::unique_ptr<MoeOp> moe_;  // with mixture-of-experts stages
  std::vector<GradientReduction> reductions_;  // plan_gradient_reductions, in launch order
  std::size_t next_reduction_ = 0;
  std::vector<std::shared_ptr<CommStream>> streams_;
  struct PendingGather {
    int stage;
    std::size_t stream, number;
  };
  std::vector<PendingGather> gathers_;  // parameter all-gathers not yet waited for  // one per ring this GPU reduces gradients on
  std::unordered_map<int, std::int64_t> sends_to_;                  // messages sent to each GPU so far
  std::unordered_map<std::size_t, MessageKey> unwaited_receives_;   // by result: posted, waited at the use
  std::vector<MessageKey> late_sends_;                              // rendezvous sends waited at the end
  double analytic_bytes_ = -1, analytic_seconds_ = 0;
  int step_ = 0;                                        // the training step being run
  std::size_t validation_point_ = 0;  // where post-validation's check of the previous step is awaited
  std::size_t op_position_ = 0;                         // the op being computed
  double op_compute_total_ = 0, op_compute_done_ = 0;   // its compute seconds, and how many have run
};

}  // namespace

void run_gpu(Job& job, int gpu) { GpuRun(job, gpu).run(); }

}  // namespace pipegrid::sim
