#include "sim/run/simulation_echo.h"

#include "sim/exec/group_landing.h"
#include "sim/platform/platform_xml.h"

namespace pipegrid::run {

namespace {

nlohmann::json options_echo(const RunSpec& spec, const ResolvedRun& run) {
  const sim::ExecOptions& o = run.input.options;
  const OutputSpec& out = spec.outputs;
  nlohmann::json echo = {{"p2p", p2p_mode_name(o.p2p)},
          {"comm_plan", comm_plan_name(spec.schedule.comm_plan)},
          {"grad_overlap", name_of<bool>(sim::kOnOff, o.grad_overlap)},
          {"param_gather_overlap", name_of<bool>(sim::kOnOff, o.param_gather_overlap)},
          {"grad_sync_order", name_of<sim::GradSyncOrder>(sim::kGradSyncOrders, o.grad_sync_order)},
          {"steps", o.steps},
          {"optimizer_sync", name_of<sim::OptimizerSync>(sim::kOptimizerSyncs, o.optimizer_sync)},
          {"grad_bucket_size", run.grad_bucket_parameters},
          {"p2p_channels", o.p2p_channels},
          {"nccl_nvlink_efficiency", o.nccl_nvlink_efficiency},
          {"tp_comm", name_of<sim::CommFidelity>(sim::kCommFidelities, o.tp_comm)},
          {"dp_comm", name_of<sim::CommFidelity>(sim::kCommFidelities, o.dp_comm)},
          {"trace", name_of<output::TraceScope>(output::kTraceScopes, out.trace)},
          {"trace_json", name_of<output::TraceJson>(output::kTraceJsons, out.trace_json)},
          {"link_window", out.link_window},
          {"link_timeline", out.link_timeline},
          {"on_failure", name_of<sim::OnFailure>(sim::kOnFailures, o.on_failure)},
          {"tp_lockstep", name_of<bool>(sim::kAutoOff, o.tp_lockstep)},
          {"rail_fold", name_of<bool>(sim::kAutoOff, o.rail_fold)},
          {"route_search", name_of<bool>(sim::kRouteSearches, o.route_search)},
          {"simgrid_flows", name_of<bool>(sim::kSimGridFlows, o.exec_flows)}};
  // Echoed only when set, so that a run without it keeps its summary byte for byte.
  if (o.ring_flows != sim::RingFlows::Auto) echo["ring_flows"] = name_of<sim::RingFlows>(sim::kRingFlows, o.ring_flows);
  if (o.tp_comm_overlap) echo["tp_comm_overlap"] = {{"sms", spec.comm.tp_overlap_sms}, {"rs_gemm_slowdown", o.tp_overlap_rs_slowdown}};
  return echo;
}

// Where each kind of group lands (group_landing.h): rank 0's group by host, and how many groups of the
// kind stay within a node.
nlohmann::json layout_echo(const ResolvedRun& run) {
  const sim::SimulationInput& in = run.input;
  std::string order;
  for (const model::RankDimension& d : in.placement.layout().dims()) order += (order.empty() ? "" : "-") + d.name;
  nlohmann::json layout = {{"order", order}};
  const bool experts = run.model && run.model->moe.enabled();
  for (const sim::GroupLanding& landing : sim::group_landings(in.placement, in.platform_gpus, experts)) {
    nlohmann::json hosts = nlohmann::json::array();
    for (int gpu : landing.rank0) hosts.push_back(in.platform_gpus[gpu].host);
    layout[landing.kind] = {{"size", landing.size},
                            {"groups", landing.groups},
                            {"within_node", landing.within_node},
                            {"rank0", std::move(hosts)}};
  }
  return layout;
}

nlohmann::json model_echo(const RunSpec& spec, const ResolvedRun& run) {
  const ModelSpec& spec_model = *spec.model;
  const model::Transformer& m = *run.model;
  nlohmann::json echo = {{"name", m.name},
                         {"layers", m.layers},
                         {"hidden", m.hidden},
                         {"heads", m.heads},
                         {"seq", m.seq},
                         {"vocab", m.vocab},
                         {"ffn_hidden", m.ffn()},
                         {"kv_heads", m.query_groups()},
                         {"head_dim", m.head_width()},
                         {"mlp", model::to_string(m.mlp)},
                         {"norm", model::to_string(m.norm)},
                         {"positions", model::to_string(m.positions)},
                         {"linear_bias", name_of<bool>(model::kSwitches, m.linear_bias)},
                         {"qkv_bias", name_of<bool>(model::kSwitches, m.qkv_bias)},
                         {"dropout", name_of<bool>(model::kSwitches, m.dropout)},
                         {"tied_embeddings", name_of<bool>(model::kSwitches, m.tied_embeddings)},
                         {"micro_batch", m.micro_batch},
                         {"compute", run.compute_echo},
                         {"scatter_gather", spec_model.scatter_gather},
                         {"recompute", model::to_string(spec_model.recompute)},
                         {"gradient_bytes", spec.comm.gradient_bytes},
                         {"distributed_optimizer", spec_model.zero >= 1},
                         {"uneven_layers", spec_model.uneven_layers},
                         {"layer_split", run.layer_split},
                         {"flash_attention", spec_model.flash_attention}};
  if (!spec_model.hf_config.empty()) echo["hf_config"] = spec_model.hf_config;
  // Echoed only when set, so that a run without them keeps its summary byte for byte.
  if (spec_model.sequence_parallel) echo["sequence_parallel"] = true;
  if (spec_model.zero >= 2) echo["zero"] = spec_model.zero;
  if (spec_model.fsdp_reshard_after_forward) echo["fsdp_reshard_after_forward"] = true;
  if (m.mla.enabled())
    echo["mla"] = {{"q_lora_rank", m.mla.q_lora_rank},
                   {"kv_lora_rank", m.mla.kv_lora_rank},
                   {"qk_rope_head_dim", m.mla.qk_rope_head_dim},
                   {"qk_nope_head_dim", m.mla.qk_nope_head_dim},
                   {"v_head_dim", m.mla.v_head_dim}};
  const model::MoeSpec& moe = m.moe;
  if (moe.enabled()) {
    const sim::ExecOptions& o = run.input.options;
    echo["moe"] = {{"experts", moe.experts},
                   {"top_k", moe.top_k},
                   {"shared_experts", moe.shared_experts},
                   {"expert_hidden", moe.expert_hidden},
                   {"ep", moe.ep},
                   {"etp", moe.etp},
                   {"max_nodes_per_token", moe.max_nodes_per_token},
                   {"first_dense_layers", moe.first_dense_layers},
                   {"routing", moe.routing.text},
                   {"dispatch_bytes", moe.dispatch_bytes},
                   {"combine_bytes", moe.combine_bytes},
                   {"ep_comm", name_of<sim::CommFidelity>(sim::kCommFidelities, o.ep_comm)},
                   {"ep_flows", name_of<sim::EpFlows>(sim::kEpFlows, o.ep_flows)},
                   {"comm_sm_fraction", o.comm_sm_fraction}};
  }
  return echo;
}

nlohmann::json times_echo(const RunSpec& spec, const ResolvedRun& run) {
  const ActionTimes& times = spec.times.times;
  return {{"optimizer", spec.times.optimizer}, {"f", times.f},
          {"b", times.b},                      {"w", times.w},
          {"fb", times.pair()},                {"reference_flops", run.peak_flops},
          {"p2p_bytes", spec.times.p2p_bytes}};
}

}  // namespace

nlohmann::json simulation_echo(const RunSpec& spec, const ResolvedRun& run) {
  const sim::SimulationInput& in = run.input;
  const sim::ParallelSizes& sizes = in.placement.sizes();
  nlohmann::json echo = {
      {"platform", spec.platform.generated ? platform::gen_command(*spec.platform.generated) : spec.platform.file},
      {"schedule", in.schedule.name},
      {"pp", sizes.pp},
      {"microbatches", in.schedule.microbatches},
      {"chunks", in.schedule.chunks},
      {"tp", sizes.tp},
      {"dp", sizes.dp},
      {"placement", spec.parallel.placement},
      {"gpus", in.placement.num_gpus()},
      {"layout", layout_echo(run)},
      {"options", options_echo(spec, run)}};
  // Echoed only with context parallelism, so that a run without it keeps its summary byte for byte.
  if (sizes.cp > 1)
    echo["cp"] = {{"size", sizes.cp},
                  {"algo", name_of<model::CpAlgo>(model::kCpAlgos, spec.parallel.cp_algo)},
                  {"comm", name_of<sim::CommFidelity>(sim::kCommFidelities, in.options.cp_comm)}};
  if (spec.model)
    echo["model"] = model_echo(spec, run);
  else
    echo["times"] = times_echo(spec, run);
  if (!spec.stage_cost_scale_text.empty()) echo["stage_cost_scale"] = spec.stage_cost_scale_text;
  return echo;
}

}  // namespace pipegrid::run
