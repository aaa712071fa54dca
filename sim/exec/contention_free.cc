#include "sim/exec/contention_free.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/config.hpp>

#include "common/input_error.h"
#include "sim/exec/cp_comm.h"
#include "sim/exec/expert_group.h"
#include "sim/exec/gradient_plan.h"
#include "sim/exec/job.h"
#include "sim/exec/network_setup.h"
#include "sim/exec/simgrid_route_check.h"
#include "sim/network/collectives.h"
#include "sim/simgrid/simgrid_engine.h"
#include "sim/simgrid/simgrid_errors.h"
#include "sim/simgrid/simgrid_logs.h"

namespace pipegrid::sim {

namespace {

namespace sg4 = simgrid::s4u;

void check_priceable(const SimulationInput& input) {
  const ExecOptions& o = input.options;
  if (input.costs.routing().enabled()) {
    if (o.ep_comm == CommFidelity::Flow)
      throw InputError("the contention-free engine prices mixture-of-experts all-to-alls analytically (--ep-comm analytic)");
    for (const std::vector<Op>& program : input.schedule.programs)
      for (const Op& op : program)
        if (op.is_pair() && (input.costs.stage(op.first.stage).moe.moe_layers > 0 ||
                             input.costs.stage(op.second->stage).moe.moe_layers > 0))
          throw InputError("the contention-free engine does not time overlapped pairs of mixture-of-experts chunks; "
                           "run pipegrid simulate");
  }
  if (o.optimizer_sync == OptimizerSync::PostValidation)
    throw InputError("--optimizer-sync post-validation: the contention-free engine times the all-reduce check or none");
  if (o.tp_comm == CommFidelity::Flow || o.dp_comm == CommFidelity::Flow || o.cp_comm == CommFidelity::Flow)
    throw InputError("the contention-free engine prices TP, CP and DP communication analytically "
                     "(--tp-comm/--cp-comm/--dp-comm analytic)");
  if (!input.speed_profiled_hosts.empty())
    throw InputError("the contention-free engine takes each GPU at its declared speed; the platform varies it over time");
  if (o.steps != 1) throw InputError("the contention-free engine times one step");
}

// What one replica's pipeline costs: its GPUs' speeds, routes and collectives (Network's, the same
// the executor reads). A rank's TP GPUs run in lockstep: the slowest member, the longest message.
class Pricer {
 public:
  Pricer(const SimulationInput& input, Network& network, const std::vector<sg4::Host*>& hosts)
      : input_(input), network_(network), hosts_(hosts), plan_(input.schedule, input.placement, input.costs, input.options) {
    bandwidth_factor_ = simgrid::config::get_value<double>("network/bandwidth-factor");
    for (const PlatformGpu& g : input.platform_gpus) node_of_gpu_.push_back(g.node);
  }

  // A replica is one pipeline: data-parallel replica d·cp + context-parallel rank c (placement.h
  // replica_of); `d` below is that index.
  PricedReplica replica(int d) {
    const Schedule& s = input_.schedule;
    PricedReplica out;
    std::vector<StageOpTimes> stages;
    for (int stage = 0; stage < s.num_stages(); ++stage) {
      const int rank = s.rank_of(stage);
      const StageWork& work = input_.costs.stage(stage);
      double speed = hosts_[gpu(0, d, rank)]->get_speed();
      for (int t = 1; t < tp(); ++t) speed = std::min(speed, hosts_[gpu(t, d, rank)]->get_speed());
      StageOpTimes op;
      op.f = work.f_flops / speed;
      op.i = work.i_flops / speed;
      op.w = work.w_flops / speed;
      if (work.moe.moe_layers > 0) moe_times(d, rank, work.moe, op);
      if (tp() > 1 && input_.options.tp_comm == CommFidelity::Analytic) {
        op.tp_forward = work.tp_allreduces_forward;
        op.tp_backward = work.tp_allreduces_backward;
        op.tp_allreduce = ring_allreduce_seconds(network_, tp_group(d, rank), work.tp_allreduce_bytes);
        op.tp_reduce_scatters_forward = work.tp_reduce_scatters_forward;
        op.tp_reduce_scatters_backward = work.tp_reduce_scatters_backward;
        op.tp_all_gathers_forward = work.tp_all_gathers_forward;
        op.tp_all_gathers_backward = work.tp_all_gathers_backward;
        op.tp_native_pairs = work.tp_native_pairs_backward;
        // An MoE op's TP collectives run after its attention, serial (gpu_compute.cc).
        op.tp_overlap = input_.options.tp_comm_overlap && work.moe.moe_layers == 0;
        op.tp_rs_slowdown = input_.options.tp_overlap_rs_slowdown;
        // An MoE op's phases hide none of its TP collectives (gpu_compute.cc, action_tp_collectives).
        if (work.moe.moe_layers == 0) {
          op.f_tp_gemm = work.f_tp_gemm_flops / speed;
          op.i_tp_gemm = work.i_tp_gemm_flops / speed;
          op.w_tp_gemm = work.w_tp_gemm_flops / speed;
        }
      }
      if (input_.options.cp_comm == CommFidelity::Analytic)
        op.cp = cp_stage_comm(network_, input_.placement, work, tp_group(d, rank), speed, input_.options.cp_all_to_all);
      if (input_.options.fsdp != FsdpGathers::None && input_.options.dp_comm == CommFidelity::Analytic)
        price_fsdp(op, d, stage);
      stages.push_back(op);
      out.forward_messages.push_back(message(d, stage, s.layout.next[stage], work.forward_bytes));
      out.backward_messages.push_back(message(d, stage, s.layout.prev[stage], work.backward_bytes));
    }
    out.ops = OpTimes(std::move(stages));
    for (int rank = 0; rank < s.ranks; ++rank) out.ranks.push_back(step_end(d, rank));
    return out;
  }

  // The optimizer's check: the barrier's latency after its last arrival (StepBarrier::arrive_and_wait).
  double check_latency(int d, bool whole_job) {
    const Placement& placement = input_.placement;
    const int first = whole_job ? 0 : gpu(0, d, 0);
    double latency = 0;
    int members = 0;
    for (int g = 0; g < placement.num_gpus(); ++g) {
      if (!whole_job && placement.replica_of(g) != d) continue;
      ++members;
      if (g != first) latency = std::max(latency, network_.routes().effective_latency(g, first));
    }
    const double levels = members > 1 ? std::ceil(std::log2(members)) : 0;
    return 2 * levels * latency;
  }

 private:
  int tp() const { return input_.placement.sizes().tp; }

  // An MoE stage's F, I and W as moe_op.cc runs them alone: the compute of its phases (the experts'
  // at the member's share of the assignments, etp times its receipts), the all-to-alls at their α-β
  // time and the ETP group's all-gather and reduce-scatter rings, all exposed; at the slowest TP member.
  void moe_times(int d, int rank, const MoeWork& w, StageOpTimes& op) {
    op.f = op.i = op.w = 0;
    using D = ExpertDirection;
    for (int t = 0; t < tp(); ++t) {
      const int g = gpu(t, d, rank);
      const double speed = hosts_[g]->get_speed();
      const ExpertTraffic traffic(input_.placement, input_.costs.routing(), node_of_gpu_, g);
      const double received = traffic.received_assignments(w.tokens);
      const auto compute = [&](int pass) { return (w.non_expert[pass] + w.shared[pass] + received * w.etp * w.routed[pass]) / speed; };
      const auto a2a = [&](D direction, double bytes) {
        if (traffic.members.size() < 2 || input_.options.ep_comm == CommFidelity::Off) return 0.0;
        return traffic.analytic_seconds(network_, direction, bytes, w.tokens);
      };
      const std::vector<int> etp_group = input_.placement.group(g, "etp");
      const auto ring = [&](RingPhases phases, double bytes_per_assignment) {
        if (etp_group.size() < 2 || input_.options.ep_comm == CommFidelity::Off) return 0.0;
        return ring_allreduce_seconds(network_, etp_group, static_cast<double>(etp_group.size()) * received * bytes_per_assignment, phases);
      };
      const double f = compute(0) + a2a(D::ToExperts, w.dispatch_bytes) + ring(RingPhases::AllGather, w.dispatch_bytes) +
                       ring(RingPhases::ReduceScatter, w.combine_bytes) + a2a(D::FromExperts, w.combine_bytes);
      const double i = a2a(D::ToExperts, w.combine_bytes) + ring(RingPhases::AllGather, w.combine_bytes) +
                       ring(RingPhases::ReduceScatter, w.combine_bytes) + a2a(D::FromExperts, w.combine_bytes) + compute(1);
      op.f = std::max(op.f, f);
      op.i = std::max(op.i, i);
      op.w = std::max(op.w, compute(2));
    }
  }
  int gpu(int t, int d, int rank) const {
    const int cp = input_.placement.sizes().cp;
    return input_.placement.gpu({t, d / cp, rank, d % cp});
  }
  std::vector<int> tp_group(int d, int rank) const {
    std::vector<int> group;
    for (int t = 0; t < tp(); ++t) group.push_back(gpu(t, d, rank));
    return group;
  }

  // ZeRO-3's all-gathers (fsdp_op_cost.h): the units' α-β times over the longest TP member's
  // data-parallel group, and what they add to a gathering F, B and I (the executor's gpu_fsdp.cc).
  void price_fsdp(StageOpTimes& op, int d, int stage) {
    const StageWork& work = input_.costs.stage(stage);
    FsdpUnits units{0, 0, work.fsdp_blocks};
    for (int t = 0; t < tp(); ++t) {
      const std::vector<int> group = plan_.placement.gradient_group(gpu(t, d, input_.schedule.rank_of(stage)));
      units.root = std::max(units.root, ring_allreduce_seconds(network_, group, work.fsdp_root_parameter_bytes, RingPhases::AllGather));
      units.block = std::max(units.block, ring_allreduce_seconds(network_, group, work.fsdp_block_parameter_bytes, RingPhases::AllGather));
    }
    const FsdpGathers mode = input_.options.fsdp;
    const bool keep_last = mode == FsdpGathers::PerOpKeepLast;
    op.fsdp = mode;
    op.fsdp_first_forward = plan_.first_forward[static_cast<std::size_t>(stage)];
    op.fsdp_f = fsdp_op_timing(fsdp_op_units(units, op.f, false, keep_last)).exposed;
    op.fsdp_b = fsdp_op_timing(fsdp_op_units(units, op.i + op.w, true, keep_last)).exposed;
    op.fsdp_i = fsdp_op_timing(fsdp_op_units(units, op.i, true, keep_last)).exposed;
  }

  // The flow of a stage's result to the stage that reads it, alone on its route (none on one rank).
  MessageCost message(int d, int stage, int to_stage, double bytes) {
    MessageCost cost;
    if (to_stage < 0) return cost;
    const int from = input_.schedule.rank_of(stage), to = input_.schedule.rank_of(to_stage);
    if (from == to) return cost;
    for (int t = 0; t < tp(); ++t) {
      const int src = gpu(t, d, from), dst = gpu(t, d, to);
      const double bandwidth = network_.routes().bottleneck_and_latency(src, dst).first * bandwidth_factor_;
      cost.latency = std::max(cost.latency, network_.routes().effective_latency(src, dst));
      cost.transfer = std::max(cost.transfer, bytes / bandwidth);
    }
    return cost;
  }

  // The rank's gradient reductions and parameter all-gathers (gpu_gradients.cc), each at the longest
  // of its TP members' α-β times, and its update.
  RankStepEnd step_end(int d, int rank) {
    RankStepEnd out;
    const auto& seconds = input_.options.optimizer_seconds;
    if (!seconds.empty() && seconds[rank] > 0) out.optimizer = seconds[rank];
    if (input_.options.dp_comm == CommFidelity::Off) return out;
    std::vector<std::vector<GradientReduction>> members;
    for (int t = 0; t < tp(); ++t) members.push_back(plan_gradient_reductions(plan_, gpu(t, d, rank)));
    const auto longest = [&](std::size_t k, double GradientReduction::*bytes, RingPhases phases) {
      double most = 0;
      for (const auto& plan : members) most = std::max(most, ring_allreduce_seconds(network_, plan[k].group, plan[k].*bytes, phases));
      return most;
    };
    const std::vector<GradientReduction>& plan = members.front();
    const std::vector<Op>& program = input_.schedule.programs[rank];
    // An MoE op launches its ready buckets at its end (moe_op.h runs its phases, not execute()).
    const auto fraction = [&](const GradientReduction& r) {
      if (r.position >= program.size()) return r.fraction;
      const Op& op = program[r.position];
      for (int i = 0; i < op.size(); ++i)
        if (input_.costs.stage(op[i].stage).moe.moe_layers > 0) return 1.0;
      return r.fraction;
    };
    for (std::size_t k = 0; k < plan.size(); ++k)
      out.reductions.push_back({plan[k].position, fraction(plan[k]), plan[k].stream,
                                longest(k, &GradientReduction::bytes, plan[k].phases), plan[k].after_grad_sync});
    if (input_.options.distributed_optimizer)
      for (std::size_t k = plan.size(); k-- > 0;)
        if (plan[k].phases == RingPhases::ReduceScatter && plan[k].parameter_bytes > 0)
          out.gathers.push_back({0, 1, plan[k].stream,
                                 longest(k, &GradientReduction::parameter_bytes, RingPhases::AllGather), false});
    return out;
  }

  const SimulationInput& input_;
  Network& network_;
  const std::vector<sg4::Host*>& hosts_;
  const JobPlan plan_;
  double bandwidth_factor_ = 1;
  std::vector<int> node_of_gpu_;
};

}  // namespace

struct ContentionFreeSession::Platform {
  int argc = 1;
  char name[9] = "pipegrid";
  char* argv[2] = {name, nullptr};
  std::string file;
  std::unique_ptr<sg4::Engine> engine;
};

ContentionFreeSession::ContentionFreeSession(const SimulationInput& first) : platform_(std::make_unique<Platform>()) {
  route_simgrid_logs();
  use_sanitizable_contexts();
  platform_->engine = std::make_unique<sg4::Engine>(&platform_->argc, platform_->argv);
  platform_->file = first.platform_file;
  SimGridErrors errors;
  load_job_platform(*platform_->engine, errors, first);
  platform_->engine->seal_platform();  // routes exist once the zones are sealed
}

ContentionFreeSession::~ContentionFreeSession() {
  // No actor: the run ends at once, and SimGrid then lets go of its models, which a later engine
  // in the same process (a simulation after the estimate) must configure again.
  platform_->engine->run();
}

ContentionFree ContentionFreeSession::step(const SimulationInput& input) {
  if (input.platform_file != platform_->file)
    throw std::logic_error("ContentionFreeSession: " + input.platform_file + " is not the loaded " + platform_->file);
  check_priceable(input);
  const sg4::Engine& engine = *platform_->engine;
  const bool rails = input.routes_checked ? input.rails : check_routes_in_simgrid(engine, input);
  std::vector<sg4::Host*> hosts = job_hosts(engine, input);
  Network network(hosts, input.link_window, false, false);
  connect_network(network, engine, input, hosts, rails);
  network.routes().freeze_bandwidths();

  Pricer pricer(input, network, hosts);
  ContentionFree out;
  const int dp = input.placement.sizes().dp * input.placement.sizes().cp;  // replicas: d·cp pipelines
  for (int d = 0; d < dp; ++d) out.job.replicas.push_back(pricer.replica(d));
  if (input.options.optimizer_sync == OptimizerSync::None) {
    out.job.check = PricedJob::Check::None;
  } else if (input.options.sync_whole_job) {
    out.job.check = PricedJob::Check::WholeJob;
    out.job.check_latency.push_back(pricer.check_latency(0, true));
  } else {
    for (int d = 0; d < dp; ++d) out.job.check_latency.push_back(pricer.check_latency(d, false));
  }
  CommTimingOptions options;
  options.p2p = input.options.p2p;
  options.channels = input.options.p2p_channels;
  out.step = time_priced_step(input.schedule, out.job, options);
  return out;
}

ContentionFree contention_free_step(const SimulationInput& input) { return ContentionFreeSession(input).step(input); }

}  // namespace pipegrid::sim
