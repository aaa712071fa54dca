// A rank actor's messages to and from the neighbouring pipeline ranks (gpu_run.h): comm batches,
// the receives an op waits for at its use, rendezvous sends waited at the step's end, and
// post-validation's check. Every member of a lockstep group posts its own messages; the actor waits
// for all the members' messages of one kind at once (Transfers::wait_all), as each member would wait
// for its own.
#include <algorithm>
#include <simgrid/s4u/Engine.hpp>
#include <stdexcept>

#include "schedules/messages.h"
#include "sim/exec/gpu_run.h"
#include "sim/exec/tags.h"

namespace pipegrid::sim {

namespace sg4 = simgrid::s4u;

namespace {

struct Message {
  MessageKey key;
  FlowInfo flow;
};

Message message(const JobPlan& plan, const Result& result, int src, int dst, int step) {
  const bool backward = result.flow == Flow::Backward;
  FlowInfo flow{FlowKind::PipelineP2p, src, dst, plan.costs.result_bytes(result.stage, backward), result.stage,
                result.microbatch, backward};
  return {MessageKey{dst, pipeline_tag(plan.results(result), static_cast<std::uint64_t>(step))}, flow};
}

// The channel of the GPU's next message to `dst`: the n-th one goes on channel n mod K
// (comm_timing.h numbers a pair's messages the same way).
std::int64_t next_channel(Transfers& transfers, int k, std::vector<SentTo>& sends_to, int dst) {
  auto it = std::find_if(sends_to.begin(), sends_to.end(), [dst](const auto& sent) { return sent.dst == dst; });
  if (it == sends_to.end()) it = sends_to.insert(sends_to.end(), {dst, transfers.open_channels(k), 0});
  return it->first_channel + it->sent++ % k;
}

}  // namespace

void GpuRun::wait_and_expose(const Waits& waits, double from) {
  const std::vector<FlowSpan> spans = job_.transfers.wait_all(waits);
  const double now = sg4::Engine::get_clock();
  for (std::size_t k = 0; k < members_.size(); ++k) members_[k].account->p2p_exposed += covered(from, now, spans[k]);
}

// Posts a batch's sends and receives together; a batch waited at once is waited for whole (the part
// of the wait with a flow on the wire is exposed p2p), one waited at its use leaves its receives to
// the op that reads them and, under rendezvous, its sends to the end of the step.
void GpuRun::run_batch(std::size_t index, const CommBatch& batch) {
  Transfers& transfers = job_.transfers;
  const bool rendezvous = job_.plan.options.p2p == P2pMode::Rendezvous;
  const bool now = batch.wait == CommWait::Now;
  std::vector<Waits>& waits = batch_waits_;  // per member, in its order
  waits.resize(members_.size());
  for (Waits& mine : waits) mine.clear();
  for (std::size_t k = 0; k < members_.size(); ++k) {
    Member& m = members_[k];
    for (const CommAction& a : batch.actions) {
      const Result r = *message_of(job_.plan.schedule.layout, a);
      if (is_send(a.kind)) {
        const Message msg = message(job_.plan, r, m.gpu, gpu_of_rank(m, receiver_rank(job_.plan.schedule, r)), step_);
        transfers.post_send(msg.key, msg.flow, /*eager=*/!rendezvous, /*sender_waits=*/rendezvous,
                            next_channel(job_.transfers, job_.plan.options.p2p_channels, m.sends_to, msg.flow.dst_gpu));
        if (rendezvous && now)
          waits[k].emplace_back(msg.key, true);
        else if (rendezvous)
          m.late_sends.push_back(msg.key);
      } else {
        const Message msg = message(job_.plan, r, gpu_of_rank(m, sender_rank(job_.plan.schedule, r)), m.gpu, step_);
        transfers.post_receive(msg.key, msg.flow);
        if (now)
          waits[k].emplace_back(msg.key, false);
        else
          m.unwaited_receives.emplace(job_.plan.results(r), msg.key);
      }
    }
  }
  if (waits.front().empty()) return;
  for (Member& m : members_) m.account->comm_batch = index;
  const double begin = waiting();
  // The members' i-th waits together: each member's waiter holds one message at a time.
  std::vector<std::vector<FlowSpan>>& spans = batch_spans_;
  spans.resize(members_.size());
  for (std::vector<FlowSpan>& mine : spans) mine.clear();
  for (std::size_t i = 0; i < waits.front().size(); ++i) {
    batch_round_.clear();
    for (const Waits& mine : waits) batch_round_.push_back(mine[i]);
    transfers.wait_all(batch_round_, round_spans_);
    for (std::size_t k = 0; k < members_.size(); ++k) spans[k].push_back(round_spans_[k]);
  }
  const double end = sg4::Engine::get_clock();
  for (std::size_t k = 0; k < members_.size(); ++k) {
    members_[k].account->p2p_exposed += covered(begin, end, spans[k]);
    members_[k].account->comm_batch.reset();
  }
}

// The receives the op reads that were posted to be waited at their use.
void GpuRun::receive_inputs(const Op& op) {
  for (int i = 0; i < op.size(); ++i) {
    const auto input = input_of(job_.plan.schedule.layout, op[i]);
    if (!input) continue;
    const std::size_t result = job_.plan.results(*input);
    if (!members_.front().unwaited_receives.contains(result)) continue;
    Waits round;
    for (Member& m : members_) {
      const auto it = m.unwaited_receives.find(result);
      if (it == m.unwaited_receives.end()) throw std::logic_error("GpuRun: lockstep members posted different receives");
      round.emplace_back(it->second, false);
      m.unwaited_receives.erase(it);
    }
    wait_and_expose(round, waiting());
  }
}

void GpuRun::wait_late_sends() {
  for (std::size_t i = 0; i < members_.front().late_sends.size(); ++i) {
    Waits round;
    for (const Member& m : members_) round.emplace_back(m.late_sends.at(i), true);
    wait_and_expose(round, waiting());
  }
  for (Member& m : members_) m.late_sends.clear();
}

// A few bytes of the optimizer's check to or from a neighbouring pipeline rank: sent eagerly,
// received and waited for at once.
void GpuRun::validation_messages(int rank, bool backward, bool send) {
  Waits receives;
  for (const Member& m : members_) {
    const int peer = gpu_of_rank(m, rank);
    const int src = send ? m.gpu : peer, dst = send ? peer : m.gpu;
    const MessageKey key{dst, validation_tag(static_cast<std::uint64_t>(step_), backward)};
    const FlowInfo flow{FlowKind::OptimizerCheck, src, dst, 0, -1, -1, backward};
    if (send) {
      job_.transfers.post_send(key, flow, /*eager=*/true);
    } else {
      job_.transfers.post_receive(key, flow);
      receives.emplace_back(key, false);
    }
  }
  if (!receives.empty()) job_.transfers.wait_all(receives);
}

}  // namespace pipegrid::sim
