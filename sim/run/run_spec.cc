#include "sim/run/run_spec.h"

#include <algorithm>
#include <fmt/format.h>
#include <span>

#include "common/input_error.h"
#include "sim/input/option_schema.h"
#include "sim/input/text_values.h"
#include "sim/model/hf_config.h"
#include "sim/model/presets.h"
#include "sim/run/generated_platform.h"
#include "sim/run/limits.h"

namespace pipegrid::run {

namespace {

using input::OptionValues;

constexpr const char* kTimeFlags[] = {"time-f", "time-b", "time-w", "time-fb", "time-optimizer"};
// Any of these describes a model (and so asks for the cost model instead of explicit op times).
// clang-format off
constexpr const char* kModelFlags[] = {
    "model", "hf-config", "layers", "hidden", "heads", "seq", "vocab", "ffn-hidden",
    "kv-heads", "head-dim", "mlp", "norm", "positions", "linear-bias", "qkv-bias", "dropout", "tied-embeddings",
    "q-lora-rank", "kv-lora-rank", "qk-rope-head-dim", "qk-nope-head-dim", "v-head-dim"};
// clang-format on
constexpr const char* kMoeFlags[] = {
    "experts", "top-k",  "shared-experts", "expert-hidden", "max-nodes-per-token", "first-dense-layers",
    "ep",      "etp",    "routing"};

// Flags the command does not have (schedule's --time-optimizer) are not given.
bool any_given(const OptionValues& values, std::span<const char* const> flags) {
  return std::any_of(flags.begin(), flags.end(), [&](const char* flag) {
    return input::find_option(values.command(), flag) && values.has(flag);
  });
}

template <typename T>
T named(const OptionValues& v, const char* flag, std::span<const Named<T>> table) {
  return value_named(table, v.text(flag));
}

// Explicit times or a model, not both; mixture-of-experts flags only with a model. Whether a model is given.
bool check_times_or_model(const OptionValues& v) {
  const bool model_given = any_given(v, kModelFlags);
  if (any_given(v, kMoeFlags) && !model_given)
    throw InputError("--experts/--ep/--routing/…: mixture-of-experts layers need a model (--model or --layers …)");
  constexpr const char* kModelLayoutFlags[] = {"sequence-parallel", "tp-comm-overlap"};
  if (any_given(v, kModelLayoutFlags) && !model_given)
    throw InputError("--sequence-parallel/--tp-comm-overlap: need a model (--model or --layers …): explicit times "
                     "have no TP collectives to split or overlap");
  constexpr const char* kShardFlags[] = {"zero", "fsdp-reshard-after-forward"};
  if (any_given(v, kShardFlags) && !model_given)
    throw InputError("--zero/--fsdp-reshard-after-forward: need a model (--model or --layers …): explicit times "
                     "have no parameters to shard");
  if (input::find_option(v.command(), "cp") && v.integer("cp") > 1 && !model_given)
    throw InputError(fmt::format("--cp {}: context parallelism needs a model (--model or --layers …): explicit times "
                                 "have no attention to split",
                                 v.integer("cp")));
  if (any_given(v, kTimeFlags) && model_given)
    throw InputError(
        "--time-f/--time-b/--time-w/--time-fb and --model/--layers/…: give explicit times or a model, not both");
  return model_given;
}

PlatformSpec read_platform_spec(const OptionValues& v) {
  PlatformSpec spec;
  spec.file = v.text("platform");
  if (!v.has("preset")) {
    check_no_generator_options(v);
    return spec;
  }
  spec.preset = v.text("preset");
  spec.generated = generated_cluster(v);
  check_generated_size(*spec.generated);
  spec.generator_notes = platform::no_effect_options(cluster_options(v), *spec.generated);
  return spec;
}

ScheduleSpec schedule_spec_of(const OptionValues& v) {
  if (v.has("schedule") == v.has("schedule-file"))
    throw InputError("--schedule NAME or --schedule-file FILE.csv: give exactly one");
  ScheduleSpec spec;
  spec.comm_plan = value_named(comm_plans(), v.text("comm-plan"));
  spec.comm_plan_given = v.has("comm-plan");
  if (v.has("schedule")) {
    for (const char* flag : {"pp", "microbatches"})
      if (!v.has(flag)) throw InputError(fmt::format("--{}: required with --schedule", flag));
    if (v.has("stage-placement"))
      throw InputError("--stage-placement: places the stages of a --schedule-file; a generated schedule has its own");
    spec.name = v.text("schedule");
    spec.params = {static_cast<int>(v.integer("pp")), static_cast<int>(v.integer("microbatches")),
                   static_cast<int>(v.integer("chunks"))};
    return spec;
  }
  spec.file = v.text("schedule-file");
  spec.stage_placement = named<CsvPlacement>(v, "stage-placement", kCsvPlacements);
  spec.pp = v.given_int("pp");
  spec.microbatches = v.given_int("microbatches");
  // --chunks 0 is "the schedule's own": it asks nothing of a file.
  if (const auto chunks = v.given_int("chunks"); chunks && *chunks != 0) spec.chunks = chunks;
  return spec;
}

ParallelSpec parallel_spec_of(const OptionValues& v) {
  return {static_cast<int>(v.integer("tp")), static_cast<int>(v.integer("dp")), v.text("placement"),
          v.flag("allow-tp-across-nodes"), static_cast<int>(v.integer("cp")),
          named<model::CpAlgo>(v, "cp-algo", model::kCpAlgos)};
}

// The model a preset, a config.json or the flags alone describe, every given flag applied over it.
model::Transformer transformer_of(const OptionValues& v) {
  if (v.has("model") && v.has("hf-config"))
    throw InputError("--model and --hf-config: give one (a preset is one of the shipped config.json files)");
  model::Transformer m;
  if (v.has("model"))
    m = model::transformer_preset(v.text("model"));
  else if (v.has("hf-config"))
    m = model::read_hf_config(v.text("hf-config"));
  else
    m.name = "custom";
  const auto take = [&](const char* flag, int& field) {
    if (const auto given = v.given_int(flag)) field = *given;
  };
  const auto take_optional = [&](const char* flag, std::optional<int>& field) {
    if (const auto given = v.given_int(flag)) field = *given;
  };
  const auto take_switch = [&](const char* flag, bool& field) {
    if (v.has(flag)) field = named<bool>(v, flag, model::kSwitches);
  };
  take("layers", m.layers);
  take("hidden", m.hidden);
  take("heads", m.heads);
  take("seq", m.seq);
  take("vocab", m.vocab);
  take_optional("ffn-hidden", m.ffn_hidden);
  take_optional("kv-heads", m.kv_heads);
  take_optional("head-dim", m.head_dim);
  if (v.has("mlp")) m.mlp = named<model::Mlp>(v, "mlp", model::kMlps);
  if (v.has("norm")) m.norm = named<model::Norm>(v, "norm", model::kNorms);
  if (v.has("positions")) m.positions = named<model::Positions>(v, "positions", model::kPositions);
  take_switch("linear-bias", m.linear_bias);
  take_switch("qkv-bias", m.qkv_bias);
  take_switch("dropout", m.dropout);
  take_switch("tied-embeddings", m.tied_embeddings);
  take("q-lora-rank", m.mla.q_lora_rank);
  take("kv-lora-rank", m.mla.kv_lora_rank);
  take("qk-rope-head-dim", m.mla.qk_rope_head_dim);
  take("qk-nope-head-dim", m.mla.qk_nope_head_dim);
  take("v-head-dim", m.mla.v_head_dim);
  m.micro_batch = static_cast<int>(v.integer("micro-batch"));
  take("experts", m.moe.experts);
  take("top-k", m.moe.top_k);
  take("shared-experts", m.moe.shared_experts);
  take("expert-hidden", m.moe.expert_hidden);
  take("max-nodes-per-token", m.moe.max_nodes_per_token);
  take("first-dense-layers", m.moe.first_dense_layers);
  take("dispatch-bytes", m.moe.dispatch_bytes);
  take("combine-bytes", m.moe.combine_bytes);
  m.moe.ep = static_cast<int>(v.integer("ep"));
  // Megatron-Core's default: expert_tensor_parallel_size = tensor_model_parallel_size.
  m.moe.etp = static_cast<int>(v.given_int("etp").value_or(v.integer("tp")));
  m.moe.routing = model::parse_routing(v.text("routing"));
  if (v.has("hf-config") && m.seq == 0)
    throw InputError(
        fmt::format("--seq: required with --hf-config {}: a config.json gives the longest context "
                    "(max_position_embeddings), not the sequence a run trains with",
                    v.text("hf-config")));
  // A preset's or config's grouped-query attention made latent by --kv-lora-rank: name the flag given.
  if (v.has("kv-lora-rank") && !v.has("kv-heads") && m.kv_heads && *m.kv_heads != m.heads)
    throw InputError(fmt::format("--kv-lora-rank {}: {} has grouped-query attention ({} key-value heads for {} query "
                                 "heads); multi-head latent attention has one per query head: add --kv-heads {}",
                                 m.mla.kv_lora_rank, m.name, *m.kv_heads, m.heads, m.heads));
  if (!v.has("model") && !v.has("hf-config"))
    for (const char* flag : {"layers", "hidden", "heads", "seq", "vocab"})
      if (!v.has(flag))
        throw InputError(fmt::format("--{}: needed to describe a model without --model or --hf-config", flag));
  m.validate();
  return m;
}

ModelSpec read_model_spec(const OptionValues& v) {
  ModelSpec spec;
  spec.transformer = transformer_of(v);
  spec.hf_config = v.text("hf-config");
  spec.scatter_gather = v.flag("scatter-gather");
  spec.sequence_parallel = v.flag("sequence-parallel");
  spec.recompute = named<model::Recompute>(v, "recompute", model::kRecomputes);
  spec.uneven_layers = v.flag("uneven-layers");
  spec.layer_split = input::parse_layer_split(v.text("layer-split"));
  if (spec.uneven_layers && spec.layer_split.rule != input::LayerSplitText::Rule::Even)
    throw InputError(fmt::format("--uneven-layers with --layer-split {}: --uneven-layers spreads the remainder of "
                                 "the even split; the other splits set every stage's layers; give one",
                                 v.text("layer-split")));
  spec.flash_attention = v.flag("flash-attention");
  spec.precision = named<model::ComputePrecision>(v, "precision", model::kComputePrecisions);
  spec.fp8_moe_padding = named<bool>(v, "fp8-moe-padding", model::kSwitches);
  if (spec.precision == model::ComputePrecision::Fp8 && v.has("compute-efficiency"))
    throw InputError("--precision fp8 with --compute-efficiency: one efficiency for every FLOP has no FP8 GEMMs to "
                     "speed up; drop one (fp8 needs the kernel model of a GPU with FP8 tensor cores)");
  // --distributed-optimizer is ZeRO-1 (Megatron's name for it); given with --zero, the two must agree.
  spec.zero = static_cast<int>(v.integer("zero"));
  if (v.flag("distributed-optimizer")) {
    if (v.has("zero") && spec.zero != 1)
      throw InputError(fmt::format("--distributed-optimizer and --zero {}: --distributed-optimizer is --zero 1; give one",
                                   spec.zero));
    spec.zero = 1;
  }
  spec.fsdp_reshard_after_forward = v.flag("fsdp-reshard-after-forward");
  if (spec.fsdp_reshard_after_forward && spec.zero != 3)
    throw InputError("--fsdp-reshard-after-forward: needs --zero 3 (only FSDP shards the parameters)");
  spec.compute.efficiency = v.given_number("compute-efficiency");
  spec.compute.hbm_bandwidth = v.given_number("hbm-bandwidth");
  spec.compute.gpu_file = v.text("gpu-file");
  spec.compute.fused_grad_accumulation = named<bool>(v, "grad-accumulation", model::kGradAccumulations);
  spec.compute.optimizer_bytes = v.number("optimizer-bytes");
  return spec;
}

TimesSpec times_spec_of(const OptionValues& v) {
  TimesSpec spec;
  spec.times = {v.number("time-f"), v.number("time-b"), v.number("time-w"), v.given_number("time-fb")};
  spec.times.validate();
  spec.optimizer = v.number("time-optimizer");
  spec.p2p_bytes = v.number("p2p-bytes");
  return spec;
}

// --tp-comm-overlap and its SMs, read alike by simulate and by the contention-free engine.
void read_tp_overlap(const OptionValues& v, CommSpec& spec) {
  spec.exec.tp_comm_overlap = v.flag("tp-comm-overlap");
  spec.tp_overlap_sms = static_cast<int>(v.integer("tp-comm-overlap-sms"));
  // Megatron-Core refuses --tp-comm-overlap without sequence parallelism (arguments.py).
  if (spec.exec.tp_comm_overlap && !v.flag("sequence-parallel"))
    throw InputError("--tp-comm-overlap: needs --sequence-parallel (Transformer Engine overlaps the sequence-parallel "
                     "reduce-scatters and all-gathers, as Megatron-Core requires)");
}

CommSpec comm_spec_of(const OptionValues& v) {
  CommSpec spec;
  sim::ExecOptions& o = spec.exec;
  o.p2p = named<P2pMode>(v, "p2p", kP2pModes);
  o.p2p_channels = static_cast<int>(v.integer("p2p-channels"));
  o.tp_comm = named<sim::CommFidelity>(v, "tp-comm", sim::kCommFidelities);
  read_tp_overlap(v, spec);
  o.cp_comm = named<sim::CommFidelity>(v, "cp-comm", sim::kCommFidelities);
  o.cp_all_to_all = named<model::CpAlgo>(v, "cp-algo", model::kCpAlgos) == model::CpAlgo::AllToAll;
  o.dp_comm = named<sim::CommFidelity>(v, "dp-comm", sim::kCommFidelities);
  o.ep_comm = named<sim::CommFidelity>(v, "ep-comm", sim::kCommFidelities);
  o.ep_flows = named<sim::EpFlows>(v, "ep-flows", sim::kEpFlows);
  o.ring_flows = named<sim::RingFlows>(v, "ring-flows", sim::kRingFlows);
  o.comm_sm_fraction = v.number("comm-sm-fraction");
  o.nccl_nvlink_efficiency = v.number("nccl-nvlink-efficiency");
  o.grad_overlap = named<bool>(v, "grad-overlap", sim::kOnOff);
  o.param_gather_overlap = named<bool>(v, "param-gather-overlap", sim::kOnOff);
  o.grad_sync_order = named<sim::GradSyncOrder>(v, "grad-sync-order", sim::kGradSyncOrders);
  o.steps = static_cast<int>(v.integer("steps"));
  o.optimizer_sync = named<sim::OptimizerSync>(v, "optimizer-sync", sim::kOptimizerSyncs);
  o.on_failure = named<sim::OnFailure>(v, "on-failure", sim::kOnFailures);
  o.tp_lockstep = named<bool>(v, "tp-lockstep", sim::kAutoOff);
  o.rail_fold = named<bool>(v, "rail-fold", sim::kAutoOff);
  o.route_search = named<bool>(v, "route-search", sim::kRouteSearches);
  o.exec_flows = named<bool>(v, "simgrid-flows", sim::kSimGridFlows);
  spec.grad_bucket_parameters = v.given_number("grad-bucket-size");
  spec.gradient_bytes = static_cast<int>(v.integer("gradient-bytes"));
  return spec;
}

OutputSpec output_spec_of(const OptionValues& v) {
  OutputSpec spec;
  spec.dir = v.text("out");
  spec.trace = named<output::TraceScope>(v, "trace", output::kTraceScopes);
  spec.trace_json = named<output::TraceJson>(v, "trace-json", output::kTraceJsons);
  spec.link_window = v.number("link-window");
  spec.link_timeline = v.flag("link-timeline");
  spec.progress = sim::progress_show(v.text("progress"));
  return spec;
}

}  // namespace

PlatformSpec platform_spec_of(const OptionValues& v) { return read_platform_spec(v); }
ModelSpec model_spec_of(const OptionValues& v) { return read_model_spec(v); }

RunSpec simulation_spec(const OptionValues& v) {
  v.check_required();
  const bool model_given = check_times_or_model(v);
  RunSpec spec;
  spec.schedule = schedule_spec_of(v);
  spec.parallel = parallel_spec_of(v);
  spec.comm = comm_spec_of(v);
  spec.platform = read_platform_spec(v);
  if (model_given)
    spec.model = read_model_spec(v);
  else
    spec.times = times_spec_of(v);
  if (v.has("stage-cost-scale")) {
    spec.stage_cost_scale_text = v.text("stage-cost-scale");
    spec.stage_cost_scale = input::parse_stage_scale(spec.stage_cost_scale_text);
  }
  spec.outputs = output_spec_of(v);
  return spec;
}

bool model_given(const OptionValues& v) { return any_given(v, kModelFlags); }

RunSpec model_timing_spec(const OptionValues& v, ScheduleSpec schedule) {
  check_times_or_model(v);
  if (!v.has("platform") && !v.has("preset"))
    throw InputError("--platform FILE.xml or --preset NAME: needed to time a model (its GPUs price the ops, its "
                     "routes the messages)");
  if (v.has("p2p-latency"))
    throw InputError("--p2p-latency and --model/--layers/…: with a model each message takes its route's latency "
                     "and bandwidth; give one or the other");
  RunSpec spec;
  spec.schedule = std::move(schedule);
  spec.parallel = {static_cast<int>(v.integer("tp")), static_cast<int>(v.integer("dp")),
                   v.command() == input::Command::Schedule ? v.text("placement") : std::string("tp-dp-pp"),
                   v.flag("allow-tp-across-nodes"), static_cast<int>(v.integer("cp")),
                   named<model::CpAlgo>(v, "cp-algo", model::kCpAlgos)};
  spec.platform = read_platform_spec(v);
  spec.model = read_model_spec(v);
  sim::ExecOptions& o = spec.comm.exec;
  o.p2p = named<P2pMode>(v, "p2p", kP2pModes);
  o.p2p_channels = static_cast<int>(v.integer("p2p-channels"));
  o.tp_comm = o.dp_comm = o.ep_comm = o.cp_comm = sim::CommFidelity::Analytic;
  o.cp_all_to_all = spec.parallel.cp_algo == model::CpAlgo::AllToAll;
  read_tp_overlap(v, spec.comm);
  o.nccl_nvlink_efficiency = v.number("nccl-nvlink-efficiency");
  o.grad_overlap = named<bool>(v, "grad-overlap", sim::kOnOff);
  o.param_gather_overlap = named<bool>(v, "param-gather-overlap", sim::kOnOff);
  o.grad_sync_order = named<sim::GradSyncOrder>(v, "grad-sync-order", sim::kGradSyncOrders);
  o.optimizer_sync = named<sim::OptimizerSync>(v, "optimizer-sync", sim::kOptimizerSyncs);
  spec.comm.grad_bucket_parameters = v.given_number("grad-bucket-size");
  spec.comm.gradient_bytes = static_cast<int>(v.integer("gradient-bytes"));
  if (v.has("stage-cost-scale")) {
    spec.stage_cost_scale_text = v.text("stage-cost-scale");
    spec.stage_cost_scale = input::parse_stage_scale(spec.stage_cost_scale_text);
  }
  return spec;
}

}  // namespace pipegrid::run
