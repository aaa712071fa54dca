// The step of a pipeline rank's actor (gpu_run.h): its program op by op, then the gradients, the
// optimizer's check and update. Both the send side and the receive side of every transfer come from
// the same programs (schedules/results.h), so no order is invented here.
#include <algorithm>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <stdexcept>

#include "schedules/messages.h"
#include "sim/exec/gpu_run.h"

namespace pipegrid::sim {

namespace sg4 = simgrid::s4u;

double covered(double from, double to, const FlowSpan& span) {
  const double begin = std::max(span.start, from), end = std::min(span.end, to);
  return end > begin ? end - begin : 0;
}

double covered(double from, double to, const std::vector<FlowSpan>& waited) {
  if (waited.size() == 1) return covered(from, to, waited.front());  // nothing to sort or copy
  std::vector<FlowSpan> spans = waited;
  std::sort(spans.begin(), spans.end(), [](const FlowSpan& a, const FlowSpan& b) { return a.start < b.start; });
  double total = 0, reach = from;
  for (const FlowSpan& s : spans) {
    const double begin = std::max(s.start, reach), end = std::min(s.end, to);
    if (end > begin) total += end - begin;
    reach = std::max(reach, end);
  }
  return total;
}

GpuRun::GpuRun(Job& job, std::vector<int> gpus)
    : job_(job),
      rank_(job.plan.placement.coordinates(gpus.front()).pp),
      program_(job.plan.schedule.programs[rank_]),
      speed_(job.gpus.hosts[gpus.front()]->get_speed()) {
  for (int gpu : gpus)
    members_.push_back({gpu, job.plan.placement.coordinates(gpu), &job.record.accounts[gpu], plan_gradient_reductions(job.plan, gpu),
                        {}, {}, {}, {}, {}, {}});
  // The members launch their gradients at the same points, so one cursor walks all their plans.
  for (const Member& m : members_) {
    const auto& mine = m.reductions, &first = members_.front().reductions;
    if (mine.size() != first.size() ||
        !std::equal(mine.begin(), mine.end(), first.begin(), [](const GradientReduction& a, const GradientReduction& b) {
          return a.position == b.position && a.fraction == b.fraction && a.after_grad_sync == b.after_grad_sync;
        }))
      throw std::logic_error("GpuRun: the members of a lockstep group plan different gradient reductions");
  }
  if (job.plan.costs.routing().enabled())
    moe_ = std::make_unique<MoeOp>(job, gpus.front(), speed_, [this](std::size_t pos, const Action& a, int first_ring) {
      action_tp_collectives(pos, a, first_ring);
    });
  for (const GradientReduction& r : members_.front().reductions) fsdp_stream_ = std::max(fsdp_stream_, r.stream + 1);
  fsdp_seconds_.resize(static_cast<std::size_t>(job.plan.schedule.num_stages()));
  // Post-validation's check comes back from the next rank before the first op that needs anything
  // from that rank (the zero-bubble runtime places it before the first compute that is not a chunk-0
  // forward): the last rank passes it on at once.
  validation_point_ = rank_ + 1 == job.plan.schedule.ranks ? 0 : program_.size();
  for (std::size_t pos = 0; pos < program_.size() && validation_point_ == program_.size(); ++pos)
    for (int i = 0; i < program_[pos].size(); ++i)
      if (const auto in = input_of(job.plan.schedule.layout, program_[pos][i]);
          in && program_[pos][i].kind != Kind::W && job.plan.schedule.rank_of(in->stage) == rank_ + 1)
        validation_point_ = pos;
}

void GpuRun::run() {
  for (step_ = 0; step_ < job_.plan.options.steps; ++step_) {
    run_program();
    wait_late_sends();
    finish_gradients();
    optimizer();
    gather_parameters();
    for (Member& m : members_) m.account->step_ends.push_back(sg4::Engine::get_clock());
  }
  // The last step's overlapped all-gathers have no next forward to hide behind: the run ends with
  // them, its last step does not (a steady state would have them under the next step).
  wait_for_gathers(-1);
  for (Member& m : members_) {
    for (auto& stream : m.streams) stream->close();
    m.account->finish = sg4::Engine::get_clock();
    m.account->finished = true;
  }
}

// One step's program: its comm batches and compute ops, in order.
void GpuRun::run_program() {
  const auto& batches = job_.plan.schedule.comms[rank_];
  std::size_t b = 0;
  next_reduction_ = 0;
  for (std::size_t pos = 0; pos < program_.size(); ++pos) {
    for (Member& m : members_) m.account->position = pos;
    for (; b < batches.size() && batches[b].before <= pos; ++b) run_batch(b, batches[b]);
    const Op& op = program_[pos];
    if (pos == validation_point_ && step_ > 0) validate_previous_step();
    if (!members_.front().gathers.empty())
      for (int i = 0; i < op.size(); ++i)
        if (op[i].kind == Kind::F) wait_for_gathers(op[i].stage, /*first_only=*/true);
    receive_inputs(op);
    op_position_ = pos;
    op_compute_total_ = job_.plan.costs.flops(op) / speed_;
    op_compute_done_ = 0;
    if (fsdp_gathers(op))
      compute_fsdp(pos, op);
    else
      compute(pos, op);
    if (!members_.front().gathers.empty())
      for (int i = 0; i < op.size(); ++i)
        if (op[i].kind == Kind::F) wait_for_gathers(op[i].stage);
    launch_ready(pos);
  }
  for (Member& m : members_) m.account->position = program_.size();
  for (; b < batches.size(); ++b) run_batch(b, batches[b]);
}

// The optimizer's check, then its update. Under the all-reduce check every GPU of the group waits
// for the last; under post-validation a rank waits only for the partial check of the rank before it
// and passes its own on.
void GpuRun::optimizer() {
  const int p = job_.plan.schedule.ranks;
  const double start = waiting();
  if (job_.plan.options.optimizer_sync == OptimizerSync::AllReduce) {
    const Member& any = members_.front();
    // A replica is one pipeline of data- and context-parallel coordinates (placement.h replica_of).
    const int group = job_.plan.options.sync_whole_job ? 0 : job_.plan.placement.replica_of(any.gpu);
    const int members = job_.plan.options.sync_whole_job ? job_.plan.placement.num_gpus() : job_.plan.placement.sizes().tp * p;
    const int first = job_.plan.options.sync_whole_job ? 0 : job_.plan.placement.gpu({0, any.at.dp, 0, any.at.cp});
    std::vector<double> latencies;
    for (const Member& m : members_)
      latencies.push_back(first == m.gpu ? 0 : job_.network.routes().effective_latency(m.gpu, first));
    job_.record.step_barrier.arrive_and_wait(group, members, step_, latencies);
  } else if (job_.plan.options.optimizer_sync == OptimizerSync::PostValidation && p > 1) {
    if (rank_ > 0) validation_messages(rank_ - 1, false, /*send=*/false);
    if (rank_ + 1 < p) validation_messages(rank_ + 1, false, /*send=*/true);
  }
  for (Member& m : members_) m.account->sync_wait += sg4::Engine::get_clock() - start;
  const auto& seconds = job_.plan.options.optimizer_seconds;
  if (!seconds.empty() && seconds[rank_] > 0) {
    const double begin = sg4::Engine::get_clock();
    sg4::this_actor::sleep_for(seconds[rank_]);
    for (Member& m : members_) {
      m.account->busy += seconds[rank_];
      job_.trace.write({m.gpu, Track::Compute, "optimizer", -1, -1, 0, -1, 0, begin, sg4::Engine::get_clock()});
    }
  }
}

// Post-validation's chain back from the last rank, in the next step before a rank's first op that
// needs the next rank: the full check of the previous step reaches it from the rank after it and goes
// on to the one before.
void GpuRun::validate_previous_step() {
  const int p = job_.plan.schedule.ranks;
  if (job_.plan.options.optimizer_sync != OptimizerSync::PostValidation || p < 2) return;
  const double start = waiting();
  if (rank_ + 1 < p) validation_messages(rank_ + 1, true, /*send=*/false);
  if (rank_ > 0) validation_messages(rank_ - 1, true, /*send=*/true);
  for (Member& m : members_) m.account->sync_wait += sg4::Engine::get_clock() - start;
}

// The compute begins a wait that may block: a deadlock report says since when (GpuAccount).
double GpuRun::waiting() {
  const double now = sg4::Engine::get_clock();
  for (Member& m : members_) m.account->blocked_since = now;
  return now;
}

void run_gpu(Job& job, std::vector<int> gpus) { GpuRun(job, std::move(gpus)).run(); }

}  // namespace pipegrid::sim
