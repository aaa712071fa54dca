#include "schedules/comm_plan.h"

#include <fmt/format.h>
#include <set>
#include <stdexcept>

#include "schedules/framework_plans.h"
#include "schedules/messages.h"
#include "schedules/schedule_log.h"

namespace pipegrid {

namespace {

// The cross-rank results an op reads, and those it produces for another rank.
std::vector<Result> inputs_from_others(const Schedule& s, int rank, const Op& op) {
  std::vector<Result> results;
  for (int i = 0; i < op.size(); ++i)
    if (const auto in = input_of(s.layout, op[i]); in && op[i].kind != Kind::W && s.rank_of(in->stage) != rank)
      results.push_back(*in);
  return results;
}

std::vector<Result> outputs_to_others(const Schedule& s, int rank, const Op& op) {
  std::vector<Result> results;
  for (int i = 0; i < op.size(); ++i)
    if (const auto out = output_of(op[i])) {
      const int reader = reader_stage(s.layout, *out);
      if (reader >= 0 && s.rank_of(reader) != rank) results.push_back(*out);
    }
  return results;
}

void add_batch(std::vector<CommBatch>& batches, std::size_t before, CommWait wait, std::vector<CommAction> actions) {
  if (!actions.empty()) batches.push_back({before, wait, std::move(actions)});
}

// torch.distributed.pipelining's _add_send_recv: the ranks take turns, in rank order, each placing its
// next compute op once the op's inputs are there (received, or computed on the rank); a placed op's
// sends follow it at once, and each send's receive is appended to the reader's program at that moment,
// before whatever the reader places next. Every comm action is its own batch, waited at its use
// (_PipelineScheduleRuntime: a receive before the op that reads it, the sends at the end of the step).
// Both ranks of a pair thus post their messages in one order, so nothing can cross.
//
// PyTorch visits every rank in every round, O(ranks) a round, and a pipeline of p stages with one
// micro-batch takes ~p rounds (one backward a round): O(p^2), a minute at p = 10^5. A rank's next op
// can only become ready when the rank placed its previous one or received a result, so each round
// visits only those ranks, still in rank order — the same placements in the same order, linear work.
void lower_torch(Schedule& s) {
  std::vector<std::size_t> next(s.ranks, 0);
  std::vector<std::set<std::size_t>> arrived(s.ranks);  // results each rank has received or computed
  const ResultIndex index(s.num_stages(), s.microbatches);
  std::size_t left = s.num_ops();
  std::set<int> this_round, next_round;  // the ranks to visit, in rank order
  for (int rank = 0; rank < s.ranks; ++rank) this_round.insert(rank);
  while (left > 0) {
    if (this_round.empty())
      throw std::logic_error(fmt::format("lower {}: no rank can place its next op (the schedule deadlocks)", s.name));
    while (!this_round.empty()) {
      const int rank = *this_round.begin();
      this_round.erase(this_round.begin());
      if (next[rank] == s.programs[rank].size()) continue;
      const Op& op = s.programs[rank][next[rank]];
      bool ready = true;
      for (int i = 0; i < op.size(); ++i) {
        const auto in = input_of(s.layout, op[i]);
        // A stage's own forward (at the last stage) and its own I (for W) come earlier in its program.
        if (in && op[i].kind != Kind::W && in->stage != op[i].stage && !arrived[rank].contains(index(*in)))
          ready = false;
      }
      if (!ready) continue;  // visited again once a result reaches it
      for (int i = 0; i < op.size(); ++i)
        if (const auto out = output_of(op[i])) {
          const int reader = reader_stage(s.layout, *out);
          if (reader < 0) continue;
          const int to = s.rank_of(reader);
          if (to == rank) {
            arrived[rank].insert(index(*out));
            continue;
          }
          add_batch(s.comms[rank], next[rank] + 1, CommWait::AtUse, {send_of(*out)});
          add_batch(s.comms[to], next[to], CommWait::AtUse, {receive_of(s.layout, *out)});
          arrived[to].insert(index(*out));
          // A rank after this one in the round is still to be visited in it; one before, in the next.
          (to > rank ? this_round : next_round).insert(to);
        }
      ++next[rank];
      --left;
      next_round.insert(rank);
    }
    std::swap(this_round, next_round);
  }
}

// Between op k and op k+1: the sends of op k and the receives of op k+1 (of op 0 before the first),
// posted together and waited at once. `merge(k)` says whether they form one batch (per-op always; in
// Megatron only when the two ops run in different directions, send_forward_recv_backward and
// send_backward_recv_forward — a forward followed by a forward sends, then receives, as two calls).
template <typename Merge>
void lower_between_ops(Schedule& s, Merge merge) {
  for (int rank = 0; rank < s.ranks; ++rank) {
    const auto& program = s.programs[rank];
    auto& batches = s.comms[rank];
    const auto receives = [&](std::size_t pos) {
      std::vector<CommAction> actions;
      if (pos < program.size())
        for (const Result& r : inputs_from_others(s, rank, program[pos])) actions.push_back(receive_of(s.layout, r));
      return actions;
    };
    add_batch(batches, 0, CommWait::Now, receives(0));
    for (std::size_t pos = 0; pos < program.size(); ++pos) {
      std::vector<CommAction> sends;
      for (const Result& r : outputs_to_others(s, rank, program[pos])) sends.push_back(send_of(r));
      std::vector<CommAction> next_receives = receives(pos + 1);
      if (merge(program, pos)) {
        sends.insert(sends.end(), next_receives.begin(), next_receives.end());
        add_batch(batches, pos + 1, CommWait::Now, std::move(sends));
      } else {
        add_batch(batches, pos + 1, CommWait::Now, std::move(sends));
        add_batch(batches, pos + 1, CommWait::Now, std::move(next_receives));
      }
    }
  }
}

bool forward_op(const Op& op) { return !op.is_pair() && op.first.kind == Kind::F; }

// Blocking send and recv calls in program order: an op's receives, the op, its sends.
void lower_blocking_calls(Schedule& s) {
  for (int rank = 0; rank < s.ranks; ++rank)
    for (std::size_t pos = 0; pos < s.programs[rank].size(); ++pos) {
      const Op& op = s.programs[rank][pos];
      for (const Result& r : inputs_from_others(s, rank, op))
        add_batch(s.comms[rank], pos, CommWait::Now, {receive_of(s.layout, r)});
      for (const Result& r : outputs_to_others(s, rank, op))
        add_batch(s.comms[rank], pos + 1, CommWait::Now, {send_of(r)});
    }
}

constexpr Named<CommPlan> kPlans[] = {
    {"framework", CommPlan::Framework}, {"megatron", CommPlan::Megatron}, {"torch", CommPlan::Torch},
    {"dualpipe", CommPlan::DualPipe},   {"zb", CommPlan::Zb},             {"per-op", CommPlan::PerOp},
    {"blocking-calls", CommPlan::BlockingCalls}};

}  // namespace

std::span<const Named<CommPlan>> comm_plans() { return kPlans; }

std::string_view comm_plan_name(CommPlan plan) { return name_of(comm_plans(), plan); }

CommPlan plan_of_framework(const Schedule& s) {
  const std::string_view name = s.name;
  if (name == "1f1b") return CommPlan::Megatron;
  // Megatron-LM runs interleaved on 2 ranks only with overlapped p2p, which pipegrid does not model:
  // there it is PyTorch's ScheduleInterleaved1F1B.
  if (name == "interleaved") return s.ranks > 2 ? CommPlan::Megatron : CommPlan::Torch;
  if (name == "zb-h1" || name == "zb-h2" || name == "zbv") return CommPlan::Zb;
  if (name == "dualpipe" || name == "dualpipev") return CommPlan::DualPipe;
  return CommPlan::Torch;  // GPipe (Megatron has no GPipe schedule) and hand-written CSVs
}

Schedule lower(const Schedule& schedule, CommPlan plan) {
  if (schedule.has_comms()) {
    log_lowered(schedule, "");
    return schedule;
  }
  Schedule s = schedule;
  s.comms.assign(s.ranks, {});
  if (plan == CommPlan::Framework) plan = plan_of_framework(s);
  switch (plan) {
    case CommPlan::PerOp:
      lower_between_ops(s, [](const std::vector<Op>&, std::size_t) { return true; });
      break;
    case CommPlan::BlockingCalls:
      lower_blocking_calls(s);
      break;
    case CommPlan::Megatron:
      if (s.chunks > 1) {
        lower_megatron_interleaved(s);
        break;
      }
      // forward_backward_pipelining_without_interleaving: send_forward_recv_backward after a
      // forward followed by a backward, send_backward_recv_forward the other way round; within the
      // warmup (forwards) and the cooldown (backwards) a send and the next receive are two calls.
      lower_between_ops(s, [](const std::vector<Op>& program, std::size_t pos) {
        return pos + 1 >= program.size() || forward_op(program[pos]) != forward_op(program[pos + 1]);
      });
      break;
    case CommPlan::DualPipe:
      lower_dualpipe(s);
      break;
    case CommPlan::Zb:
      lower_zb(s);
      break;
    case CommPlan::Framework:
    case CommPlan::Torch:
      lower_torch(s);
      break;
  }
  log_lowered(s, comm_plan_name(plan));
  return s;
}

}  // namespace pipegrid
