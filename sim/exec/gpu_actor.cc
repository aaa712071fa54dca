// The actor of one GPU: its pipeline rank's program, op by op — receive the inputs, compute (with the
// tensor-parallel all-reduces inside), send the outputs — in the p2p semantics the user chose; then
// the gradient all-reduces. Both the send side and the receive side of every transfer come from the
// same programs (schedules/results.h), so no order is invented here.
#include <algorithm>
#include <map>
#include <unordered_map>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <memory>

#include "sim/exec/job.h"
#include "schedules/messages.h"
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
  }

  void run() {
    const auto& batches = job_.schedule.comms[at_.pp];
    std::size_t b = 0;
    for (std::size_t pos = 0; pos < program_.size(); ++pos) {
      account_.position = pos;
      for (; b < batches.size() && batches[b].before <= pos; ++b) run_batch(b, batches[b]);
      const Op& op = program_[pos];
      receive_inputs(op);
      compute(pos, op);
    }
    account_.position = program_.size();
    for (; b < batches.size(); ++b) run_batch(b, batches[b]);
    wait_late_sends();
    gradients();
    account_.finish = sg4::Engine::get_clock();
    account_.finished = true;
  }

 private:
  int gpu_of_rank(int rank) const { return job_.placement.gpu({at_.tp, at_.dp, rank}); }

  Message message(const Result& result, int src, int dst) const {
    const bool backward = result.flow == Flow::Backward;
    FlowInfo flow{FlowKind::PipelineP2p, src, dst, job_.costs.result_bytes(result.stage, backward), result.stage,
                  result.microbatch, backward};
    return {MessageKey{dst, pipeline_tag(job_.results(result))}, flow};
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
    const double begin = sg4::Engine::get_clock();
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
      const double from = sg4::Engine::get_clock();
      account_.p2p_exposed += covered(from, sg4::Engine::get_clock(), {job_.transfers.wait(key, false)});
    }
  }

  void wait_late_sends() {
    for (const MessageKey& key : late_sends_) {
      const double from = sg4::Engine::get_clock();
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
  // analytic TP all-reduces), as one wait of flops / speed + comm_seconds. A GPU runs one computation
  // at a time at its host's constant speed, so waiting that long is exactly what an exec of the FLOPs
  // would do — at one simcall instead of two and without the CPU model's sharing machinery, which
  // halves the cost of an op at 3072 GPUs (README, "Performance"). Overlapped kernels that share a
  // GPU's speed need real execs; they are not modelled here.
  void execute(const Op& op, double flops, double comm_seconds = 0) {
    const double start = sg4::Engine::get_clock();
    const double compute_seconds = flops / speed_;
    if (compute_seconds + comm_seconds > 0) sg4::this_actor::sleep_for(compute_seconds + comm_seconds);
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

  void collective_done(std::string_view kind, double bytes, double start, double& exposed) {
    const double end = sg4::Engine::get_clock();
    exposed += end - start;
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
      execute(op, flops,
              fidelity == CommFidelity::Analytic ? allreduces * tp_allreduce_seconds(bytes) : 0);
      return;
    }
    const std::vector<int> group = tp_group();
    for (int k = 0; k < allreduces; ++k) {
      execute(op, flops / allreduces);
      const double start = sg4::Engine::get_clock();
      ring_allreduce_flows(job_.transfers, group, at_.tp, bytes, FlowKind::TensorAllReduce,
                           [](std::uint64_t context, std::uint64_t step) {
                             return tensor_tag(context >> 14, context & 0x3FFF, step);
                           },
                           (static_cast<std::uint64_t>(pos) << 14) | static_cast<std::uint64_t>(k));
      collective_done("tp-allreduce", bytes, start, account_.tp_exposed);
    }
  }

  void gradient_allreduce(std::string_view kind, FlowKind flow_kind, TagSpace space, const std::vector<int>& group,
                          int member, double bytes, std::uint64_t context = 0) {
    if (group.size() < 2 || bytes <= 0 || job_.options.dp_comm == CommFidelity::Off) return;
    const double start = sg4::Engine::get_clock();
    if (job_.options.dp_comm == CommFidelity::Analytic) {
      sg4::this_actor::sleep_for(ring_allreduce_seconds(job_.network, group, bytes));
    } else {
      // The tag of a step: its space and step, and the context that tells two collectives of one
      // space apart (packed into the context argument the ring passes back).
      const std::uint64_t packed = (static_cast<std::uint64_t>(space) << 40) | context;
      ring_allreduce_flows(job_.transfers, group, member, bytes, flow_kind,
                           [](std::uint64_t packed_context, std::uint64_t step) {
                             return gradient_tag(static_cast<TagSpace>(packed_context >> 40), step,
                                                 packed_context & ((std::uint64_t{1} << 40) - 1));
                           },
                           packed);
    }
    collective_done(kind, bytes, start, account_.dp_exposed);
  }

  // DualPipe runs every model stage on two ranks, one per direction: the copies sum their gradients
  // before anything else. One all-reduce per group of ranks sharing stages, in the order of the groups
  // (the same on every member, so that their rings meet).
  void stage_copy_sums() {
    const Schedule& s = job_.schedule;
    std::map<std::vector<int>, std::pair<double, int>> groups;  // ranks → bytes, first model stage
    for (int stage = 0; stage < s.num_stages(); ++stage) {
      if (s.rank_of(stage) != at_.pp) continue;
      std::vector<int> ranks{at_.pp};
      for (int other = 0; other < s.num_stages(); ++other)
        if (other != stage && s.layout.model_stage[other] == s.layout.model_stage[stage] && s.rank_of(other) != at_.pp)
          ranks.push_back(s.rank_of(other));
      if (ranks.size() < 2) continue;
      std::sort(ranks.begin(), ranks.end());
      auto& [bytes, first_model_stage] = groups.try_emplace(ranks, 0.0, s.layout.model_stage[stage]).first->second;
      bytes += job_.costs.stage(stage).gradient_bytes;
      first_model_stage = std::min(first_model_stage, s.layout.model_stage[stage]);
    }
    for (const auto& [ranks, sum] : groups) {
      std::vector<int> group;
      for (int rank : ranks) group.push_back(gpu_of_rank(rank));
      const int member = static_cast<int>(std::find(ranks.begin(), ranks.end(), at_.pp) - ranks.begin());
      gradient_allreduce("stage-copy-allreduce", FlowKind::StageCopyAllReduce, TagSpace::StageCopies, group, member,
                         sum.first, static_cast<std::uint64_t>(sum.second));
    }
  }

  // After its last backward: the sums of stage copies (DualPipe), the data-parallel all-reduce of the
  // rank's gradients (a ring over the replicas), then the tied-embedding all-reduce between the first
  // and the last stage, in Megatron's finalize_model_grads order.
  void gradients() {
    stage_copy_sums();
    const Schedule& s = job_.schedule;
    double gradient_bytes = 0, embedding_bytes = 0;
    for (int stage = 0; stage < s.num_stages(); ++stage)
      if (s.rank_of(stage) == at_.pp) {
        gradient_bytes += job_.costs.stage(stage).gradient_bytes;
        embedding_bytes += job_.costs.stage(stage).embedding_gradient_bytes;
      }
    std::vector<int> replicas(job_.placement.sizes().dp);
    for (int d = 0; d < static_cast<int>(replicas.size()); ++d) replicas[d] = job_.placement.gpu({at_.tp, d, at_.pp});
    gradient_allreduce("dp-allreduce", FlowKind::DataAllReduce, TagSpace::Data, replicas, at_.dp, gradient_bytes);

    // Routed experts are replicated only across expert-parallel groups: their gradients go round the
    // replicas that hold the same experts (every ep-th one).
    double expert_bytes = 0;
    for (int stage = 0; stage < s.num_stages(); ++stage)
      if (s.rank_of(stage) == at_.pp) expert_bytes += job_.costs.stage(stage).expert_gradient_bytes;
    const int ep = job_.costs.routing().ep;
    if (expert_bytes > 0 && ep > 0) {
      std::vector<int> holders;
      for (int d = at_.dp % ep; d < job_.placement.sizes().dp; d += ep) holders.push_back(job_.placement.gpu({at_.tp, d, at_.pp}));
      gradient_allreduce("expert-dp-allreduce", FlowKind::DataAllReduce, TagSpace::Data, holders, at_.dp / ep,
                         expert_bytes, /*context=*/1);
    }

    const int first = s.rank_of(0), last = s.rank_of(s.num_stages() - 1);
    if (first != last && (at_.pp == first || at_.pp == last))
      gradient_allreduce("embedding-allreduce", FlowKind::EmbeddingAllReduce, TagSpace::Embedding,
                         {gpu_of_rank(first), gpu_of_rank(last)}, at_.pp == first ? 0 : 1, embedding_bytes);
  }

  Job& job_;
  int gpu_;
  GpuCoordinates at_;
  const std::vector<Op>& program_;
  GpuAccount& account_;
  double speed_;  // flop/s of this GPU, as the platform file gives it
  std::unique_ptr<MoeOp> moe_;  // with mixture-of-experts stages
  std::unordered_map<int, std::int64_t> sends_to_;                  // messages sent to each GPU so far
  std::unordered_map<std::size_t, MessageKey> unwaited_receives_;   // by result: posted, waited at the use
  std::vector<MessageKey> late_sends_;                              // rendezvous sends waited at the end
  double analytic_bytes_ = -1, analytic_seconds_ = 0;
};

}  // namespace

void run_gpu(Job& job, int gpu) { GpuRun(job, gpu).run(); }

}  // namespace pipegrid::sim
