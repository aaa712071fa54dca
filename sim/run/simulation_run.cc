#include "sim/run/simulation_run.h"

#include <algorithm>
#include <fmt/format.h>

#include "common/input_error.h"
#include "common/log.h"
#include "sim/model/stage_cost.h"
#include "sim/output/run_folder.h"
#include "sim/platform/platform_reader.h"
#include "sim/platform/platform_xml.h"
#include "sim/run/compute_costs.h"
#include "sim/run/layer_split.h"
#include "sim/run/generated_platform.h"
#include "sim/run/limits.h"
#include "sim/run/run_checks.h"
#include "sim/run/run_log.h"
#include "sim/run/simulation_echo.h"
#include "sim/run/simulation_schedule.h"
#include "sim/run/zero_stage.h"

namespace pipegrid::run {

namespace {

double median_speed(const std::vector<platform::GpuHost>& gpus, int count) {
  std::vector<double> speeds;
  for (int g = 0; g < count; ++g) speeds.push_back(gpus[g].speed);
  std::nth_element(speeds.begin(), speeds.begin() + static_cast<std::ptrdiff_t>(speeds.size() / 2), speeds.end());
  return speeds[speeds.size() / 2];
}

// The platform file SimGrid loads: --platform's, or the generated one's, written to DIR/platform.xml
// with --out and to a temporary file without.
std::string platform_file(const RunSpec& spec, ResolvedRun& run) {
  if (!spec.platform.generated) return spec.platform.file;
  for (const std::string& note : spec.platform.generator_notes) log::platform().warn(note);
  const std::string xml = platform::platform_xml(*spec.platform.generated);
  run.platform_generated = true;
  if (!spec.outputs.dir.empty()) return write_generated_platform(spec.outputs.dir, xml);
  run.generated_platform = std::make_shared<const GeneratedPlatformFile>(xml);
  return run.generated_platform->file();
}

// The job's GPUs' capacity and speed, for the memory report and MFU.
void size_up_gpus(const platform::PlatformFacts& facts, ResolvedRun& run) {
  const sim::Placement& placement = run.input.placement;
  run.peak_flops = median_speed(facts.gpus, placement.num_gpus());
  run.rank_capacity.assign(placement.sizes().pp, 0);
  for (int g = 0; g < placement.num_gpus(); ++g) {
    double& capacity = run.rank_capacity[placement.coordinates(g).pp];
    const double memory = static_cast<double>(facts.gpus[g].memory);
    capacity = capacity == 0 ? memory : std::min(capacity, memory);
  }
}

// A GEMM under a --tp-comm-overlap reduce-scatter runs on the SMs the collective leaves it (Transformer
// Engine's set_sm_margin). The efficiency model knows no SMs: its GEMMs keep their speed.
double overlap_slowdown(int overlap_sms, int gpu_sms) {
  if (gpu_sms == 0) {
    log::run().info("--tp-comm-overlap-sms {}: --compute-efficiency models no SMs; the overlapped GEMMs keep their speed",
                 overlap_sms);
    return 1;
  }
  if (overlap_sms >= gpu_sms)
    throw InputError(fmt::format("--tp-comm-overlap-sms {}: must be fewer than the GPU's {} SMs", overlap_sms, gpu_sms));
  return static_cast<double>(gpu_sms) / (gpu_sms - overlap_sms);
}

// A transformer's stages priced: its costs and memory per virtual stage, the optimizer per rank.
void price_model(const RunSpec& spec, const platform::PlatformFacts& facts, ResolvedRun& run) {
  const ModelSpec& m = *spec.model;
  sim::SimulationInput& in = run.input;
  const sim::ParallelSizes& sizes = in.placement.sizes();
  // The model is split into the schedule's model stages (DualPipe runs each of its p twice, one per
  // direction); the costs of a virtual stage are those of the model stage it computes.
  const StageLayout& layout = in.schedule.layout;
  run.model = m.transformer;
  run.parallelism = {sizes.tp,          sizes.pp,    sizes.dp,         layout.num_model_stages() / sizes.pp,
                     m.scatter_gather, m.recompute, m.uneven_layers, m.sequence_parallel, sizes.cp,
                     spec.parallel.cp_algo};
  if (m.sequence_parallel && sizes.tp == 1)
    log::run().warn("--sequence-parallel with --tp 1: nothing to shard, the run is the same without it");
  model::Precision precision;
  precision.gradient_bytes = spec.comm.gradient_bytes;
  precision.compute = m.precision;
  precision.validate();
  const std::vector<platform::GpuHost> job_gpus(facts.gpus.begin(), facts.gpus.begin() + in.placement.num_gpus());
  const std::string platform = spec.platform.generated ? "--preset " + spec.platform.preset : spec.platform.file;
  const LayerPricing pricing{m, precision, spec.comm.gradient_bytes, platform, job_gpus, run.peak_flops};
  run.parallelism.stage_layers = stage_layers(pricing, run.parallelism);
  run.parallelism.validate(*run.model);
  const model::MoeSpec& moe = run.model->moe;
  // An MoE op runs its phases one after the other (moe_op.h): the ring's sends as flows, interleaved
  // with its attention steps (gpu_cp.cc), are not split out of its attention phase.
  if (moe.enabled() && sizes.cp > 1 && in.options.cp_comm == sim::CommFidelity::Flow)
    throw InputError(fmt::format("--cp {}: context parallelism with mixture-of-experts layers runs its messages at "
                                 "their α-β time; give --cp-comm analytic (or off)",
                                 sizes.cp));
  // DualPipe's overlapped MoE pairs run one chunk's all-to-all under the other's compute (moe_op.h);
  // where the ETP group's all-gathers and reduce-scatters would go in those slots is not modelled.
  if (moe.enabled() && moe.etp > 1)
    for (const std::vector<Op>& program : in.schedule.programs)
      for (const Op& op : program)
        if (op.is_pair())
          throw InputError(fmt::format("--etp {}: expert tensor parallelism in {}'s overlapped forward-backward "
                                       "pairs is not modelled; run it with --etp 1 or another schedule",
                                       moe.etp, in.schedule.name));
  const std::vector<model::StageCost> model_stages = model::stage_costs(*run.model, run.parallelism, precision);
  std::vector<model::StageCost> virtual_stages;
  MemoryPlan memory;
  for (int s = 0; s < in.schedule.num_stages(); ++s) {
    const model::StageCost& cost = model_stages[layout.model_stage[s]];
    virtual_stages.push_back(cost);
    const model::ActivationBytes activations =
        model::activation_bytes(*run.model, run.parallelism, cost, m.flash_attention, m.precision);
    memory.activation_bytes.push_back(activations.per_microbatch);
    memory.kept_for_weight_gradient.push_back(activations.kept_for_weight_gradient);
    model::StaticMemory held =
        model::static_memory(model::parameter_shards(cost, run.parallelism.gradient_group_size()), precision, m.zero);
    add_zero_working_set(m, sizes.pp, in.options.grad_bucket_bytes, cost, precision, held);
    if (m.precision == model::ComputePrecision::Fp8)
      held.fp8_weights = model::fp8_weight_copy_bytes(*run.model, run.parallelism.tp, cost);
    memory.static_bytes.push_back(held);
  }
  // A rank holds its stages' whole gradients and parameters at once, or one stage's at a time
  // (zero_stage.h says which is which).
  const bool fsdp_per_op = m.zero == 3 && (sizes.pp == 1 || m.fsdp_reshard_after_forward);
  memory.sum_unsharded = !fsdp_per_op;
  memory.sum_unreduced = !(m.zero == 2 || (m.zero == 3 && sizes.pp == 1));
  memory.zero = m.zero;
  sim::ExpertRouting routing;
  if (moe.enabled()) routing = {moe.ep, moe.top_k, moe.max_nodes_per_token, model::member_shares(moe)};
  StageLayoutView stage_view{layout.model_stage, {}, sizes.pp};
  for (int s = 0; s < in.schedule.num_stages(); ++s) stage_view.rank.push_back(in.schedule.rank_of(s));
  ComputeCosts compute = resolve_compute(m, spec.comm.gradient_bytes, platform, run.parallelism, model_stages, stage_view, job_gpus,
                                         run.peak_flops, in.schedule.microbatches);
  in.costs = sim::JobCosts::from_model(virtual_stages, compute.work, routing);
  in.options.optimizer_seconds = std::move(compute.optimizer_seconds);
  if (in.options.tp_comm_overlap) in.options.tp_overlap_rs_slowdown = overlap_slowdown(spec.comm.tp_overlap_sms, compute.sms);
  apply_zero(m, in);
  std::vector<int> layers;
  std::vector<double> seconds;
  for (int ms = 0; ms < static_cast<int>(model_stages.size()); ++ms) {
    layers.push_back(model_stages[ms].layers);
    const auto s = std::find(layout.model_stage.begin(), layout.model_stage.end(), ms) - layout.model_stage.begin();
    seconds.push_back(microbatch_seconds(compute.work[s], model_stages[ms], run.peak_flops));
  }
  run.layer_split = layer_split_json(m.layer_split, layers, seconds);
  run.mfu_peak_scale = compute.mfu_peak_scale;
  run.mfu_peak_precision = compute.mfu_peak_precision;
  run.compute_breakdown = std::move(compute.breakdown);
  run.compute_echo = std::move(compute.echo);
  run.memory = std::move(memory);
}

// Explicit times: every stage's ops at the job's median speed.
void price_times(const RunSpec& spec, ResolvedRun& run) {
  sim::SimulationInput& in = run.input;
  in.costs = sim::JobCosts::from_times(spec.times.times, run.peak_flops, in.schedule.num_stages(), spec.times.p2p_bytes);
  in.options.optimizer_seconds.assign(in.placement.sizes().pp, spec.times.optimizer);
}

}  // namespace

ResolvedRun resolve_simulation(const RunSpec& spec) {
  ResolvedRun run;
  run.outputs = spec.outputs;
  sim::SimulationInput& in = run.input;
  in.options = spec.comm.exec;
  in.link_window = spec.outputs.link_window;
  in.link_timeline = spec.outputs.link_timeline;
  in.schedule = simulation_schedule(spec.schedule, run.compute_deadlock, run.own_comms);
  sim::ParallelSizes sizes{spec.parallel.tp, in.schedule.ranks, spec.parallel.dp, spec.parallel.cp};
  // The expert layers' layout (placement.h): ep·etp must divide the GPUs of a stage. Without experts
  // it is the dense layout (etp = tp, as Megatron-Core's default).
  sizes.etp = sizes.tp;
  if (spec.model && spec.model->transformer.moe.enabled()) {
    sizes.ep = spec.model->transformer.moe.ep;
    sizes.etp = spec.model->transformer.moe.etp;
  }
  // Megatron's DistributedDataParallelConfig: bucket_size = max(40M, 1M × dp) parameters when unset
  // (distributed_data_parallel.py).
  run.grad_bucket_parameters = spec.comm.grad_bucket_parameters.value_or(std::max(4e7, 1e6 * sizes.dp));
  in.options.grad_bucket_bytes = run.grad_bucket_parameters * spec.comm.gradient_bytes;

  in.platform_file = platform_file(spec, run);
  const platform::PlatformFacts facts = platform::read_platform(in.platform_file);
  in.default_network_model = facts.network_model_defaulted;
  for (const platform::GpuHost& gpu : facts.gpus) in.platform_gpus.push_back({gpu.name, gpu.node});
  // Only --route-search auto reads the graph: no run that asks SimGrid for its routes pays to build it.
  if (in.options.route_search) in.route_graph = platform::DijkstraRoutes::of(facts);
  apply_profiles(facts, in);
  in.placement =
      sim::Placement(sizes, spec.parallel.placement, in.platform_gpus, spec.parallel.allow_tp_across_nodes);
  check_gpu_count(sizes.tp, sizes.pp, sizes.dp, in.placement.num_gpus());
  size_up_gpus(facts, run);

  if (spec.model)
    price_model(spec, facts, run);
  else
    price_times(spec, run);
  if (!spec.stage_cost_scale_text.empty()) in.costs.scale_stages(spec.stage_cost_scale);
  run.echo = simulation_echo(spec, run);
  check_durations(in.costs, in.schedule, in.placement, facts);
  check_optimizer_seconds(in.options.optimizer_seconds, spec.model ? spec.model->compute.optimizer_bytes : 0);
  check_routes(facts, in);

  if (!spec.outputs.dir.empty()) output::make_output_dir(spec.outputs.dir);
  // Only links.csv reads the links' loads over time: a run with no --out does not follow them.
  in.link_load = !spec.outputs.dir.empty();
  in.progress = spec.outputs.progress;
  if (in.progress != sim::ProgressShow::Never) in.contention_free_makespan = contention_free_makespan(in, run.peak_flops);
  log_resolved_run(spec, run);
  return run;
}

}  // namespace pipegrid::run
