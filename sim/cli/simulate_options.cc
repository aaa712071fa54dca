#include "sim/cli/simulate_options.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fmt/format.h>

#include "schedules/generators.h"
#include "common/input_error.h"
#include "schedules/validate.h"
#include "common/choose.h"
#include "sim/model/presets.h"
#include "sim/model/stage_cost.h"
#include "sim/platform/platform_reader.h"

namespace pipegrid::cli {

namespace {

sim::CommFidelity fidelity(const char* flag, const std::string& given) {
  return choose<sim::CommFidelity>(
      flag, given, {{"flow", sim::CommFidelity::Flow}, {"analytic", sim::CommFidelity::Analytic}, {"off", sim::CommFidelity::Off}});
}

// "0=1.3,63=1.5" → {0: 1.3, 63: 1.5}
std::map<int, double> parse_stage_scale(const std::string& text) {
  std::map<int, double> factors;
  if (text.empty()) return factors;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    const std::string item = text.substr(begin, end - begin);
    const std::size_t equals = item.find('=');
    int stage = 0;
    double factor = 0;
    const bool ok = equals != std::string::npos &&
                    std::from_chars(item.data(), item.data() + equals, stage).ptr == item.data() + equals &&
                    std::from_chars(item.data() + equals + 1, item.data() + item.size(), factor).ptr ==
                        item.data() + item.size() &&
                    equals + 1 < item.size();
    if (!ok) throw InputError(fmt::format("--stage-cost-scale {}: expected STAGE=FACTOR[,STAGE=FACTOR…], got '{}'", text, item));
    factors[stage] = factor;
    begin = end + 1;
  }
  return factors;
}

double median_speed(const std::vector<platform::GpuHost>& gpus, int count) {
  std::vector<double> speeds;
  for (int g = 0; g < count; ++g) speeds.push_back(gpus[g].speed);
  std::nth_element(speeds.begin(), speeds.begin() + static_cast<std::ptrdiff_t>(speeds.size() / 2), speeds.end());
  return speeds[speeds.size() / 2];
}

bool has_explicit_times(const SimulateFlags& f) { return f.time_f || f.time_b || f.time_w || f.time_fb; }
bool has_model(const SimulateFlags& f) { return !f.model.empty() || f.layers || f.hidden || f.heads || f.seq || f.vocab; }
bool has_moe_flags(const SimulateFlags& f) {
  return f.experts || f.top_k || f.shared_experts || f.expert_hidden || f.max_nodes_per_token || f.first_dense_layers ||
         f.ep != 1 || f.routing != "uniform";
}

model::Transformer resolve_model(const SimulateFlags& f) {
  model::Transformer m;
  if (!f.model.empty()) m = model::transformer_preset(f.model);
  else m.name = "custom";
  const auto take = [](const std::optional<int>& flag, int& field) {
    if (flag) field = *flag;
  };
  take(f.layers, m.layers);
  take(f.hidden, m.hidden);
  take(f.heads, m.heads);
  take(f.seq, m.seq);
  take(f.vocab, m.vocab);
  if (f.ffn_hidden) m.ffn_hidden = f.ffn_hidden;
  m.micro_batch = f.micro_batch;
  take(f.experts, m.moe.experts);
  take(f.top_k, m.moe.top_k);
  take(f.shared_experts, m.moe.shared_experts);
  take(f.expert_hidden, m.moe.expert_hidden);
  take(f.max_nodes_per_token, m.moe.max_nodes_per_token);
  take(f.first_dense_layers, m.moe.first_dense_layers);
  take(f.dispatch_bytes, m.moe.dispatch_bytes);
  take(f.combine_bytes, m.moe.combine_bytes);
  m.moe.ep = f.ep;
  m.moe.routing = model::parse_routing(f.routing);
  if (f.model.empty())
    for (auto [flag, value] : {std::pair{"--layers", f.layers}, {"--hidden", f.hidden}, {"--heads", f.heads},
                               {"--seq", f.seq}, {"--vocab", f.vocab}})
      if (!value) throw InputError(fmt::format("{}: needed to describe a model without --model", flag));
  m.validate();
  return m;
}

}  // namespace

void add_simulate_flags(CLI::App& c, SimulateFlags& f) {
  c.add_option("--platform", f.platform, "SimGrid platform XML (see platforms/)")->required();
  c.add_option("--schedule", f.schedule, "gpipe, 1f1b or interleaved")->required();
  c.add_option("--pp", f.pp, "pipeline-parallel size p")->required();
  c.add_option("--microbatches", f.microbatches, "micro-batches m per step")->required();
  c.add_option("--chunks", f.chunks, "virtual stages v per rank (interleaved: default 2)");
  c.add_option("--tp", f.tp, "tensor-parallel size t (a TP group stays in one node)")->capture_default_str();
  c.add_option("--dp", f.dp, "data-parallel size d")->capture_default_str();
  c.add_option("--placement", f.placement, "order of the dimensions over the GPUs, fastest first")->capture_default_str();
  c.add_flag("--allow-tp-across-nodes", f.allow_tp_across_nodes, "let a TP group span nodes");
  c.add_option("--time-f", f.time_f, "explicit forward time (s) of one micro-batch on one virtual stage");
  c.add_option("--time-b", f.time_b, "explicit full backward time (s)");
  c.add_option("--time-w", f.time_w, "explicit weight-gradient part W (s) of the backward");
  c.add_option("--time-fb", f.time_fb, "explicit time (s) of an overlapped F&B pair");
  c.add_option("--p2p-bytes", f.p2p_bytes, "with explicit times: bytes sent per stage boundary and micro-batch");
  c.add_option("--model", f.model, "a transformer preset, e.g. gpt-1t, gpt-175b");
  c.add_option("--layers", f.layers, "transformer layers (overrides the preset's)");
  c.add_option("--hidden", f.hidden, "hidden size");
  c.add_option("--heads", f.heads, "attention heads");
  c.add_option("--seq", f.seq, "sequence length");
  c.add_option("--vocab", f.vocab, "vocabulary size");
  c.add_option("--ffn-hidden", f.ffn_hidden, "MLP inner size (default 4 x hidden)");
  c.add_option("--micro-batch", f.micro_batch, "sequences per micro-batch")->capture_default_str();
  c.add_option("--compute-efficiency", f.compute_efficiency, "fraction of the GPU's peak the model's FLOPs run at")
      ->capture_default_str();
  c.add_flag("--scatter-gather", f.scatter_gather, "each TP rank sends 1/t of a stage boundary's activations");
  c.add_option("--recompute", f.recompute, "activation recomputation: none or full")->capture_default_str();
  c.add_option("--gradient-bytes", f.gradient_bytes, "bytes per gradient element all-reduced")->capture_default_str();
  c.add_flag("--distributed-optimizer", f.distributed_optimizer,
             "shard the optimizer state over the data-parallel replicas (ZeRO-1)");
  c.add_flag("--uneven-layers", f.uneven_layers, "let the layers split unevenly over the stages");
  c.add_flag("--flash-attention", f.flash_attention,
             "memory: attention scores are not stored (FlashAttention), dropping Korthikanti's 5as^2 term");
  c.add_option("--experts", f.experts, "MoE: routed experts per layer (0: dense)");
  c.add_option("--top-k", f.top_k, "MoE: routed experts per token");
  c.add_option("--shared-experts", f.shared_experts, "MoE: experts every token goes through");
  c.add_option("--expert-hidden", f.expert_hidden, "MoE: an expert's inner width (SwiGLU)");
  c.add_option("--first-dense-layers", f.first_dense_layers, "MoE: leading layers with a dense MLP");
  c.add_option("--max-nodes-per-token", f.max_nodes_per_token, "MoE: node-limited routing (0: no limit)");
  c.add_option("--dispatch-bytes", f.dispatch_bytes, "MoE: bytes per dispatched element (FP8: 1)");
  c.add_option("--combine-bytes", f.combine_bytes, "MoE: bytes per combined element");
  c.add_option("--ep", f.ep, "MoE: expert-parallel size (GPUs of a stage sharing a layer's experts)")
      ->capture_default_str();
  c.add_option("--routing", f.routing, "MoE: uniform, zipf:S (skewed popularity) or file:PATH (per-expert loads)")
      ->capture_default_str();
  c.add_option("--ep-comm", f.ep_comm, "MoE all-to-alls: flow, analytic or off")->capture_default_str();
  c.add_option("--comm-sm-fraction", f.comm_sm_fraction,
               "share of the SMs communication takes in an overlapped F&B pair (DeepSeek-V3: 20/132)")
      ->capture_default_str();
  c.add_option("--stage-cost-scale", f.stage_cost_scale, "heavier or lighter stages, e.g. 0=1.3,63=1.5");
  c.add_option("--p2p", f.p2p, "async, blocking (rendezvous) or batched (grouped isend/irecv)")->capture_default_str();
  c.add_option("--tp-comm", f.tp_comm, "TP all-reduces: flow, analytic or off")->capture_default_str();
  c.add_option("--dp-comm", f.dp_comm, "gradient all-reduces: flow, analytic or off")->capture_default_str();
  c.add_option("--out", f.out, "directory for summary.json, trace.csv, trace.json, links.csv");
  c.add_option("--trace", f.trace, "which GPUs the trace keeps: all, pipeline (tp 0, dp 0) or off")->capture_default_str();
  c.add_option("--format", f.format, "terminal output: table or json")->capture_default_str();
}

ResolvedRun resolve(const SimulateFlags& f) {
  ResolvedRun run;
  sim::SimulationInput& in = run.input;
  choose<int>("--format", f.format, {{"table", 0}, {"json", 1}});
  in.options.p2p = choose<P2pMode>(
      "--p2p", f.p2p, {{"async", P2pMode::Async}, {"blocking", P2pMode::Blocking}, {"batched", P2pMode::Batched}});
  in.options.tp_comm = fidelity("--tp-comm", f.tp_comm);
  in.options.dp_comm = fidelity("--dp-comm", f.dp_comm);
  in.options.ep_comm = fidelity("--ep-comm", f.ep_comm);
  if (!(f.comm_sm_fraction >= 0 && f.comm_sm_fraction < 1))
    throw InputError(fmt::format("--comm-sm-fraction {}: must be in [0, 1)", f.comm_sm_fraction));
  in.options.comm_sm_fraction = f.comm_sm_fraction;
  in.trace = choose<sim::TraceScope>(
      "--trace", f.trace, {{"all", sim::TraceScope::All}, {"pipeline", sim::TraceScope::Pipeline}, {"off", sim::TraceScope::Off}});
  if (has_moe_flags(f) && !has_model(f))
    throw InputError("--experts/--ep/--routing/…: mixture-of-experts layers need a model (--model or --layers …)");
  if (has_explicit_times(f) && has_model(f))
    throw InputError("--time-f/--time-b/--time-w/--time-fb and --model/--layers/…: give explicit times or a model, not both");
  if (!(f.compute_efficiency > 0 && f.compute_efficiency <= 1))
    throw InputError(fmt::format("--compute-efficiency {}: must be in (0, 1]", f.compute_efficiency));
  if (!(f.p2p_bytes >= 0)) throw InputError(fmt::format("--p2p-bytes {}: must not be negative", f.p2p_bytes));

  in.schedule = generate_schedule(f.schedule, {f.pp, f.microbatches, f.chunks});
  validate(in.schedule);
  in.sizes = {f.tp, f.pp, f.dp};
  in.placement_order = f.placement;
  in.allow_tp_across_nodes = f.allow_tp_across_nodes;

  const platform::PlatformFacts facts = platform::read_platform(f.platform);
  in.platform_file = f.platform;
  for (const platform::GpuHost& gpu : facts.gpus) in.platform_gpus.push_back({gpu.name, gpu.node});
  const sim::Placement placement(in.sizes, in.placement_order, in.platform_gpus, in.allow_tp_across_nodes);
  run.peak_flops = median_speed(facts.gpus, placement.num_gpus());
  run.rank_capacity.assign(f.pp, 0);
  for (int g = 0; g < placement.num_gpus(); ++g) {
    double& capacity = run.rank_capacity[placement.coordinates(g).pp];
    const double memory = static_cast<double>(facts.gpus[g].memory);
    capacity = capacity == 0 ? memory : std::min(capacity, memory);
  }

  run.echo = {{"platform", f.platform}, {"schedule", in.schedule.name}, {"pp", f.pp}, {"microbatches", f.microbatches},
              {"chunks", in.schedule.chunks}, {"tp", f.tp}, {"dp", f.dp}, {"placement", f.placement},
              {"gpus", placement.num_gpus()},
              {"options", {{"p2p", f.p2p}, {"tp_comm", f.tp_comm}, {"dp_comm", f.dp_comm}, {"trace", f.trace}}}};
  if (has_model(f)) {
    run.model = resolve_model(f);
    // The model is split into the schedule's model stages (DualPipe runs each of its p twice, one
    // per direction); the costs of a virtual stage are those of the model stage it computes.
    const StageLayout& layout = in.schedule.layout;
    const int chunks = layout.num_model_stages() / f.pp;
    run.parallelism = {f.tp, f.pp, f.dp, chunks, f.scatter_gather, model::parse_recompute(f.recompute),
                       f.uneven_layers};
    run.parallelism.validate(*run.model);
    const model::MoeSpec& moe = run.model->moe;
    if (moe.enabled() && f.dp % moe.ep != 0)
      throw InputError(fmt::format("--ep {}: must divide --dp {} (an expert-parallel group is ep data-parallel "
                                   "replicas of one stage)",
                                   moe.ep, f.dp));
    model::Precision precision;
    precision.gradient_bytes = f.gradient_bytes;
    precision.validate();
    const std::vector<model::StageCost> model_stages = model::stage_costs(*run.model, run.parallelism, precision);
    std::vector<model::StageCost> virtual_stages;
    MemoryPlan memory;
    for (int s = 0; s < in.schedule.num_stages(); ++s) {
      const model::StageCost& cost = model_stages[layout.model_stage[s]];
      virtual_stages.push_back(cost);
      const model::ActivationBytes activations =
          model::activation_bytes(*run.model, run.parallelism, cost, f.flash_attention);
      memory.activation_bytes.push_back(activations.per_microbatch);
      memory.kept_for_weight_gradient.push_back(activations.kept_for_weight_gradient);
      memory.static_bytes.push_back(model::static_memory(cost.parameters, precision, f.dp, f.distributed_optimizer));
    }
    sim::ExpertRouting routing;
    if (moe.enabled()) routing = {moe.ep, moe.top_k, moe.max_nodes_per_token, model::member_shares(moe)};
    in.costs = sim::JobCosts::from_model(virtual_stages, f.compute_efficiency, routing);
    run.memory = std::move(memory);
    const model::Transformer& m = *run.model;
    run.echo["model"] = {{"name", m.name}, {"layers", m.layers}, {"hidden", m.hidden}, {"heads", m.heads},
                         {"seq", m.seq}, {"vocab", m.vocab}, {"ffn_hidden", m.ffn()}, {"micro_batch", m.micro_batch},
                         {"compute_efficiency", f.compute_efficiency}, {"scatter_gather", f.scatter_gather},
                         {"recompute", f.recompute}, {"gradient_bytes", f.gradient_bytes},
                         {"distributed_optimizer", f.distributed_optimizer}, {"uneven_layers", f.uneven_layers},
                         {"flash_attention", f.flash_attention}};
    if (moe.enabled())
      run.echo["model"]["moe"] = {{"experts", moe.experts}, {"top_k", moe.top_k}, {"shared_experts", moe.shared_experts},
                                  {"expert_hidden", moe.expert_hidden}, {"ep", moe.ep},
                                  {"max_nodes_per_token", moe.max_nodes_per_token},
                                  {"first_dense_layers", moe.first_dense_layers}, {"routing", moe.routing.text},
                                  {"dispatch_bytes", moe.dispatch_bytes}, {"combine_bytes", moe.combine_bytes},
                                  {"ep_comm", f.ep_comm}, {"comm_sm_fraction", f.comm_sm_fraction}};
  } else {
    ActionTimes times;
    if (f.time_f) times.f = *f.time_f;
    if (f.time_b) times.b = *f.time_b;
    if (f.time_w) times.w = *f.time_w;
    times.fb = f.time_fb;
    times.validate();
    in.costs = sim::JobCosts::from_times(times, run.peak_flops, in.schedule.num_stages(), f.p2p_bytes);
    run.echo["times"] = {{"f", times.f}, {"b", times.b}, {"w", times.w}, {"fb", times.pair()},
                         {"reference_flops", run.peak_flops}, {"p2p_bytes", f.p2p_bytes}};
  }
  const std::map<int, double> scale = parse_stage_scale(f.stage_cost_scale);
  in.costs.scale_stages(scale);
  if (!scale.empty()) run.echo["stage_cost_scale"] = f.stage_cost_scale;

  if (!f.out.empty()) {
    std::error_code error;
    std::filesystem::create_directories(f.out, error);
    if (error) throw InputError(fmt::format("--out {}: cannot create the directory: {}", f.out, error.message()));
    in.out_dir = f.out;
  }
  return run;
}

}  // namespace pipegrid::cli
