#include "sim/exec/job_costs.h"

#include <algorithm>
#include <fmt/format.h>

#include "common/input_error.h"

namespace pipegrid::sim {

JobCosts JobCosts::from_times(const ActionTimes& times, double reference_speed, int stages, double p2p_bytes) {
  StageWork work;
  work.f_flops = times.f * reference_speed;
  work.i_flops = times.i() * reference_speed;
  work.w_flops = times.w * reference_speed;
  work.forward_bytes = work.backward_bytes = p2p_bytes;
  return JobCosts(std::vector<StageWork>(stages, work), (times.f + times.b - times.pair()) * reference_speed);
}

JobCosts JobCosts::from_model(const std::vector<model::StageCost>& stages,
                              const std::vector<model::ComputeWork>& compute, ExpertRouting routing) {
  const auto set = [](double* out, const model::Flops& f) {
    out[0] = f.forward;
    out[1] = f.backward_input;
    out[2] = f.backward_weight;
  };
  std::vector<StageWork> work;
  for (std::size_t s = 0; s < stages.size(); ++s) {
    const model::StageCost& c = stages[s];
    const model::ComputeWork& cw = compute[s];
    StageWork w;
    w.f_flops = cw.total.forward;
    w.i_flops = cw.total.backward_input;
    w.w_flops = cw.total.backward_weight;
    w.forward_bytes = static_cast<double>(c.send_forward_bytes);
    w.backward_bytes = static_cast<double>(c.send_backward_bytes);
    w.tp_allreduces_forward = c.tp_allreduces_per_forward;
    w.tp_allreduces_backward = c.tp_allreduces_per_backward;
    w.tp_allreduce_bytes = static_cast<double>(c.tp_allreduce_bytes);
    w.tp_reduce_scatters_forward = c.tp_reduce_scatters_per_forward;
    w.tp_reduce_scatters_backward = c.tp_reduce_scatters_per_backward;
    w.tp_all_gathers_forward = c.tp_all_gathers_per_forward;
    w.tp_all_gathers_backward = c.tp_all_gathers_per_backward;
    w.tp_native_pairs_backward = c.tp_native_pairs_backward;
    w.f_tp_gemm_flops = cw.tp_gemms.forward;
    w.i_tp_gemm_flops = cw.tp_gemms.backward_input;
    w.w_tp_gemm_flops = cw.tp_gemms.backward_weight;
    w.cp_forward_layers = c.cp_forward_layers;
    w.cp_backward_layers = c.cp_backward_layers;
    w.cp_recomputed_layers = c.cp_recomputed_layers;
    w.cp_kv_bytes = static_cast<double>(c.cp_kv_bytes);
    w.cp_q_bytes = static_cast<double>(c.cp_q_bytes);
    w.f_attention_flops = cw.attention_core.forward;
    w.i_attention_flops = cw.attention_core.backward_input;
    w.gradient_bytes = static_cast<double>(c.dp_gradient_bytes);
    w.parameter_bytes = static_cast<double>(c.dp_parameter_bytes);
    w.embedding_gradient_bytes = static_cast<double>(c.embedding_allreduce_bytes);
    w.expert_gradient_bytes = static_cast<double>(c.expert_dp_gradient_bytes);
    if (c.moe.moe_layers == 0) {
      // A block is one layer's parameters on this GPU; the root what the stage holds besides.
      const auto root = static_cast<double>(std::max<std::int64_t>(0, c.parameters - c.layers * c.layer_parameters));
      const auto block = static_cast<double>(c.layer_parameters);
      const double per_parameter =
          c.parameters > 0 ? static_cast<double>(c.dp_gradient_bytes) / static_cast<double>(c.parameters) : 0;
      w.fsdp_blocks = c.layers;
      w.fsdp_block_parameter_bytes = 2.0 * block;
      w.fsdp_root_parameter_bytes = 2.0 * root;
      w.fsdp_block_gradient_bytes = per_parameter * block;
      w.fsdp_root_gradient_bytes = per_parameter * root;
    }
    const model::MoeStageCost& m = c.moe;
    if (m.moe_layers > 0) {
      w.moe.moe_layers = m.moe_layers;
      set(w.moe.non_expert, cw.non_expert);
      set(w.moe.shared, cw.shared);
      set(w.moe.routed, cw.routed_per_assignment);
      w.moe.dispatch_bytes = m.dispatch_bytes_per_assignment;
      w.moe.combine_bytes = m.combine_bytes_per_assignment;
      w.moe.tokens = static_cast<double>(m.tokens);
      w.moe.etp = m.etp;
    }
    work.push_back(w);
  }
  return JobCosts(std::move(work), 0, std::move(routing));
}

JobCosts::JobCosts(std::vector<StageWork> stages, double pair_saving_flops, ExpertRouting routing)
    : stages_(std::move(stages)), pair_saving_flops_(pair_saving_flops), routing_(std::move(routing)) {}

void JobCosts::scale_stages(const std::map<int, double>& factors) {
  for (const auto& [stage, factor] : factors) {
    if (stage < 0 || stage >= num_stages())
      throw InputError(fmt::format("--stage-cost-scale {}={}: the job has stages 0-{}", stage, factor, num_stages() - 1));
    if (!(factor > 0))
      throw InputError(fmt::format("--stage-cost-scale {}={}: a factor must be positive", stage, factor));
    StageWork& work = stages_[stage];
    work.f_flops *= factor;
    work.i_flops *= factor;
    work.w_flops *= factor;
    work.f_tp_gemm_flops *= factor;
    work.i_tp_gemm_flops *= factor;
    work.w_tp_gemm_flops *= factor;
    work.f_attention_flops *= factor;
    work.i_attention_flops *= factor;
  }
}

double JobCosts::flops(const Action& a) const {
  const StageWork& work = stages_[a.stage];
  switch (a.kind) {
    case Kind::F: return work.f_flops;
    case Kind::B: return work.i_flops + work.w_flops;
    case Kind::I: return work.i_flops;
    case Kind::W: return work.w_flops;
  }
  return 0;
}

double JobCosts::flops(const Op& op) const {
  if (!op.is_pair()) return flops(op.first);
  return std::max(0.0, flops(op.first) + flops(*op.second) - pair_saving_flops_);
}

TpCollectives JobCosts::tp_collectives(const Op& op) const {
  TpCollectives c;
  for (int i = 0; i < op.size(); ++i) {
    const StageWork& work = stages_[op[i].stage];
    if (op[i].kind == Kind::F) {
      c.allreduces += work.tp_allreduces_forward;
      c.reduce_scatters += work.tp_reduce_scatters_forward;
      c.all_gathers += work.tp_all_gathers_forward;
    }
    if (op[i].kind == Kind::B || op[i].kind == Kind::I) {
      c.allreduces += work.tp_allreduces_backward;
      c.reduce_scatters += work.tp_reduce_scatters_backward;
      c.all_gathers += work.tp_all_gathers_backward;
      c.native_gathers += work.tp_native_pairs_backward;
    }
    if (op[i].kind == Kind::B) c.native_scatters += work.tp_native_pairs_backward;
  }
  return c;
}

double JobCosts::tp_gemm_seconds(const Op& op, double speed) const {
  double seconds = 0;
  for (int i = 0; i < op.size(); ++i) {
    const StageWork& work = stages_[op[i].stage];
    if (op[i].kind == Kind::F) seconds += work.f_tp_gemm_flops / speed;
    if (op[i].kind == Kind::B || op[i].kind == Kind::I) seconds += work.i_tp_gemm_flops / speed;
    if (op[i].kind == Kind::B) seconds += work.w_tp_gemm_flops / speed;
  }
  return seconds;
}

std::pair<double, double> JobCosts::tp_backward_gemm_seconds(const Op& op, double speed) const {
  double dgrad = 0, wgrad = 0;
  for (int i = 0; i < op.size(); ++i) {
    const StageWork& work = stages_[op[i].stage];
    if (op[i].kind == Kind::B || op[i].kind == Kind::I) dgrad += work.i_tp_gemm_flops / speed;
    if (op[i].kind == Kind::B) wgrad += work.w_tp_gemm_flops / speed;
  }
  return {dgrad, wgrad};
}

double JobCosts::tp_allreduce_bytes(const Op& op) const { return stages_[op.first.stage].tp_allreduce_bytes; }

}  // namespace pipegrid::sim
