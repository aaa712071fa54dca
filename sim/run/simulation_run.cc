#include "sim/run/simulation_run.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>

#include "common/choose.h"
#include "common/input_error.h"
#include "common/log.h"
#include "schedules/comm_check.h"
#include "schedules/comm_plan.h"
#include "schedules/deadlock.h"
#include "schedules/generators.h"
#include "schedules/schedule_csv.h"
#include "schedules/validate.h"
#include "sim/input/text_values.h"
#include "sim/model/presets.h"
#include "sim/model/stage_cost.h"
#include "sim/exec/needed_routes.h"
#include "sim/output/run_folder.h"
#include "sim/platform/platform_reader.h"
#include "sim/platform/platform_xml.h"
#include "sim/platform/profile_check.h"
#include "sim/platform/route_reach.h"
#include "sim/run/comm_options.h"
#include "sim/run/compute_costs.h"
#include "sim/run/generated_platform.h"
#include "sim/run/limits.h"
#include "sim/run/run_log.h"

namespace pipegrid::run {

namespace {

using input::OptionValues;

sim::CommFidelity fidelity(const OptionValues& values, const char* flag) {
  return choose<sim::CommFidelity>(
      flag, values.text(flag + 2),
      {{"flow", sim::CommFidelity::Flow}, {"analytic", sim::CommFidelity::Analytic}, {"off", sim::CommFidelity::Off}});
}

double median_speed(const std::vector<platform::GpuHost>& gpus, int count) {
  std::vector<double> speeds;
  for (int g = 0; g < count; ++g) speeds.push_back(gpus[g].speed);
  std::nth_element(speeds.begin(), speeds.begin() + static_cast<std::ptrdiff_t>(speeds.size() / 2), speeds.end());
  return speeds[speeds.size() / 2];
}

constexpr const char* kTimeFlags[] = {"time-f", "time-b", "time-w", "time-fb", "time-optimizer"};
constexpr const char* kModelFlags[] = {"model", "layers", "hidden", "heads", "seq", "vocab"};
constexpr const char* kMoeFlags[] = {
    "experts", "top-k",  "shared-experts", "expert-hidden", "max-nodes-per-token", "first-dense-layers",
    "ep",      "routing"};

bool any_given(const OptionValues& values, std::span<const char* const> flags) {
  return std::any_of(flags.begin(), flags.end(), [&](const char* flag) { return values.has(flag); });
}

model::Transformer resolve_model(const OptionValues& v) {
  model::Transformer m;
  if (v.has("model"))
    m = model::transformer_preset(v.text("model"));
  else
    m.name = "custom";
  const auto take = [&](const char* flag, int& field) {
    if (const auto given = v.given_int(flag)) field = *given;
  };
  take("layers", m.layers);
  take("hidden", m.hidden);
  take("heads", m.heads);
  take("seq", m.seq);
  take("vocab", m.vocab);
  if (const auto ffn = v.given_int("ffn-hidden")) m.ffn_hidden = ffn;
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
  m.moe.routing = model::parse_routing(v.text("routing"));
  if (!v.has("model"))
    for (const char* flag : {"layers", "hidden", "heads", "seq", "vocab"})
      if (!v.has(flag)) throw InputError(fmt::format("--{}: needed to describe a model without --model", flag));
  m.validate();
  return m;
}

// SimGrid's clock is a double: an op must end at a finite time, and a whole step too. Ops longer
// than this (31 700 years) are a unit mistake, not a what-if.
constexpr double kMaxOpSeconds = 1e12;

// The longest computation of any GPU must be finite and below kMaxOpSeconds; so must the largest
// transfer over the slowest link of the platform. An op computes at most one forward and one
// backward of the rank's stages (an overlapped pair), bounded here by all of them together.
void check_durations(const sim::JobCosts& costs, const Schedule& schedule, const sim::Placement& placement,
                     const platform::PlatformFacts& facts) {
  std::vector<double> rank_flops(schedule.ranks, 0);
  double bytes = 0;
  for (int s = 0; s < costs.num_stages(); ++s) {
    const sim::StageWork& w = costs.stage(s);
    rank_flops[schedule.rank_of(s)] += w.f_flops + w.i_flops + w.w_flops;
    bytes = std::max({bytes, w.forward_bytes, w.backward_bytes, w.tp_allreduce_bytes, w.gradient_bytes});
  }
  for (int g = 0; g < placement.num_gpus(); ++g) {
    const platform::GpuHost& gpu = facts.gpus[g];
    const int rank = placement.coordinates(g).pp;
    const double seconds = rank_flops[rank] / gpu.speed;
    if (!(seconds <= kMaxOpSeconds))
      throw InputError(fmt::format("pp rank {}: an op of up to {:.3g} FLOPs would take {:.3g} s on {} ({:.3g} flop/s); "
                                   "pipegrid refuses ops longer than {:g} s",
                                   rank, rank_flops[rank], seconds, gpu.name, gpu.speed, kMaxOpSeconds));
  }
  const auto narrowest = std::min_element(facts.links.begin(), facts.links.end(),
                                          [](const auto& a, const auto& b) { return a.bandwidth < b.bandwidth; });
  if (narrowest != facts.links.end() && !(bytes / narrowest->bandwidth <= kMaxOpSeconds))
    throw InputError(fmt::format("a transfer of {:.3g} bytes would take {:.3g} s over link {} ({:.3g} B/s); pipegrid "
                                 "refuses transfers longer than {:g} s",
                                 bytes, bytes / narrowest->bandwidth, narrowest->name, narrowest->bandwidth,
                                 kMaxOpSeconds));
  // A FAT_TREE, TORUS or DRAGONFLY cluster's links are SimGrid's: its narrowest bandwidth stands for them.
  for (const platform::ClusterFacts& cluster : facts.clusters)
    if (!(bytes / cluster.narrowest <= kMaxOpSeconds))
      throw InputError(fmt::format("a transfer of {:.3g} bytes would take {:.3g} s over cluster {}'s links ({:.3g} "
                                   "B/s); pipegrid refuses transfers longer than {:g} s",
                                   bytes, bytes / cluster.narrowest, cluster.id, cluster.narrowest, kMaxOpSeconds));
}

// Every route the job will ask SimGrid for must exist: a missing one would end the run inside SimGrid.
// Those that collectives between nodes would use over several rails are not needed: without one of
// them, the rings keep one path per hop. Where the file's own routes say it all (one kind of zone of
// declared routes), they are checked here, before SimGrid starts; otherwise (clusters, zone routes)
// the executor asks SimGrid itself once the platform is loaded (simgrid_route_check.h).
void check_routes(const platform::PlatformFacts& facts, sim::SimulationInput& in) {
  in.routes_checked = facts.routes_declared;
  if (!facts.routes_declared) {
    // SimGrid dies (xbt_die, no exception) on any route from or to a host of a zone routed None.
    const auto in_none_zone = [&](const std::string& host) {
      return facts.zones[facts.zone_of_netpoint.at(host)].routing == "None";
    };
    for (const sim::NeededRoute& need : sim::needed_routes(in)) {
      const std::string& src = in.platform_gpus[need.src_gpu].host;
      const std::string& dst = in.platform_gpus[need.dst_gpu].host;
      if (src != dst && (in_none_zone(src) || in_none_zone(dst)))
        throw InputError(fmt::format("{}: no route from {} to {}, which {} need ({} is in a zone routed None)",
                                     facts.path, src, dst, need.why, in_none_zone(src) ? src : dst));
    }
    // The executor asks SimGrid for the routes the rails may use, unless one would meet such a zone.
    in.rails = std::none_of(in.platform_gpus.begin(), in.platform_gpus.end(),
                            [&](const sim::PlatformGpu& gpu) { return in_none_zone(gpu.host); });
    return;
  }
  platform::RouteReach reach(facts);
  for (const sim::NeededRoute& need : sim::needed_routes(in)) {
    const std::string& src = in.platform_gpus[need.src_gpu].host;
    const std::string& dst = in.platform_gpus[need.dst_gpu].host;
    if (!reach.routed(src, dst))
      throw InputError(fmt::format("{}: no route from {} to {}, which {} need", facts.path, src, dst, need.why));
  }
  const std::vector<sim::NeededRoute> rail_routes = sim::rail_routes(in);
  in.rails = std::all_of(rail_routes.begin(), rail_routes.end(), [&](const sim::NeededRoute& need) {
    return reach.routed(in.platform_gpus[need.src_gpu].host, in.platform_gpus[need.dst_gpu].host);
  });
}

}  // namespace

// The schedule to run, generated by name or read from --schedule-file, validated and — unless its
// compute order deadlocks already — lowered by the comm plan and its comm actions checked.
Schedule schedule_of(const OptionValues& v, std::optional<std::string>& compute_deadlock) {
  if (v.has("schedule") == v.has("schedule-file"))
    throw InputError("--schedule NAME or --schedule-file FILE.csv: give exactly one");
  Schedule schedule;
  std::optional<CsvSchedule> csv;
  if (v.has("schedule")) {
    for (const char* flag : {"pp", "microbatches"})
      if (!v.has(flag)) throw InputError(fmt::format("--{}: required with --schedule", flag));
    const ScheduleParams params{static_cast<int>(v.integer("pp")), static_cast<int>(v.integer("microbatches")),
                                static_cast<int>(v.integer("chunks"))};
    check_schedule_size(v.text("schedule"), params);
    schedule = generate_schedule(v.text("schedule"), params);
    validate(schedule);
  } else {
    csv = read_schedule_csv_file(
        v.text("schedule-file"),
        choose<CsvPlacement>("--stage-placement", v.text("stage-placement"),
                             {{"inferred", CsvPlacement::Inferred}, {"loop", CsvPlacement::Loop}, {"v", CsvPlacement::V}}));
    schedule = csv->schedule;
    validate(schedule, csv->locator());
    const auto agree = [&](const char* flag, int value) {
      if (v.has(flag) && v.integer(flag) != value)
        throw InputError(fmt::format("--{} {}: {} has {}", flag, v.integer(flag), csv->source, value));
    };
    agree("pp", schedule.ranks);
    agree("microbatches", schedule.microbatches);
    if (v.has("chunks") && v.integer("chunks") != 0) agree("chunks", schedule.chunks);
  }
  if (v.has("stage-placement") && !csv)
    throw InputError("--stage-placement: places the stages of a --schedule-file; a generated schedule has its own");
  if (v.has("comm-plan") && schedule.has_comms())
    throw InputError(fmt::format("--comm-plan {}: {} has comm actions of its own; a plan lowers a compute-only "
                                 "schedule",
                                 v.text("comm-plan"), csv->source));
  if (const auto deadlock = find_deadlock(schedule)) {
    compute_deadlock = csv ? deadlock->report(schedule, csv->locator()) : deadlock->report(schedule);
    return schedule;
  }
  const bool written = schedule.has_comms();
  schedule = lower(schedule, comm_plan_of(v));
  if (written)
    validate_comms(schedule, csv->locator(), csv->comm_locator());
  else
    validate_plan(schedule, v.text("comm-plan"));
  return schedule;
}

// The platform's host and link profiles as the executor uses them; what --on-failure wait cannot wait
// for is refused here, before SimGrid starts.
static void resolve_profiles(const platform::PlatformFacts& facts, sim::SimulationInput& in) {
  const bool wait = in.options.on_failure == sim::OnFailure::Wait;
  in.time_varying_platform = !facts.resource_profiles.empty() || !facts.profile_files.empty();
  for (const platform::ResourceProfile& profile : facts.resource_profiles) {
    switch (profile.of) {
      case platform::ProfileOf::HostSpeed:
        in.speed_profiled_hosts.push_back(profile.resource);
        break;
      case platform::ProfileOf::HostState:
        if (wait && facts.find_gpu(profile.resource))
          throw InputError(fmt::format("--on-failure wait: host {} has a state profile, and a host going down kills "
                                       "its actors in SimGrid, so its GPU cannot wait; use --on-failure fail",
                                       profile.resource));
        break;
      case platform::ProfileOf::LinkState:
        if (wait && platform::profile_repeats(profile.text))
          throw InputError(fmt::format("--on-failure wait: the state profile of link {} repeats (PERIODICITY or "
                                       "LOOPAFTER); pipegrid waits only for a profile that does not",
                                       profile.resource));
        in.link_up_dates[profile.resource] = platform::state_on_dates(profile.text);
        break;
    }
  }
}

ResolvedRun resolve_simulation(const OptionValues& v) {
  v.check_required();
  ResolvedRun run;
  sim::SimulationInput& in = run.input;
  in.options.p2p = p2p_mode_of(v);
  in.options.p2p_channels = static_cast<int>(v.integer("p2p-channels"));
  in.options.tp_comm = fidelity(v, "--tp-comm");
  in.options.dp_comm = fidelity(v, "--dp-comm");
  in.options.ep_comm = fidelity(v, "--ep-comm");
  in.options.ep_flows = choose<sim::EpFlows>("--ep-flows", v.text("ep-flows"),
                                            {{"deepep", sim::EpFlows::DeepEp}, {"pairwise", sim::EpFlows::Pairwise}});
  in.options.comm_sm_fraction = v.number("comm-sm-fraction");
  in.options.nccl_nvlink_efficiency = v.number("nccl-nvlink-efficiency");
  in.options.grad_overlap = v.text("grad-overlap") == "on";
  in.options.param_gather_overlap = v.text("param-gather-overlap") == "on";
  in.options.grad_sync_order = choose<sim::GradSyncOrder>("--grad-sync-order", v.text("grad-sync-order"),
                                                          {{"megatron", sim::GradSyncOrder::Megatron},
                                                           {"embedding-first", sim::GradSyncOrder::EmbeddingFirst},
                                                           {"by-stage", sim::GradSyncOrder::ByStage},
                                                           {"crossed", sim::GradSyncOrder::Crossed}});
  in.options.steps = static_cast<int>(v.integer("steps"));
  in.options.optimizer_sync = choose<sim::OptimizerSync>("--optimizer-sync", v.text("optimizer-sync"),
                                                         {{"allreduce", sim::OptimizerSync::AllReduce},
                                                          {"post-validation", sim::OptimizerSync::PostValidation},
                                                          {"none", sim::OptimizerSync::None}});
  in.link_window = v.number("link-window");
  in.link_timeline = v.flag("link-timeline");
  run.trace = choose<output::TraceScope>(
      "--trace", v.text("trace"),
      {{"auto", output::TraceScope::Auto}, {"all", output::TraceScope::All}, {"pipeline", output::TraceScope::Pipeline},
       {"off", output::TraceScope::Off}});
  run.trace_json = choose<output::TraceJson>(
      "--trace-json", v.text("trace-json"),
      {{"auto", output::TraceJson::Auto}, {"gzip", output::TraceJson::Gzip}, {"plain", output::TraceJson::Plain}});
  const bool model_given = any_given(v, kModelFlags);
  if (any_given(v, kMoeFlags) && !model_given)
    throw InputError("--experts/--ep/--routing/…: mixture-of-experts layers need a model (--model or --layers …)");
  if (any_given(v, kTimeFlags) && model_given)
    throw InputError(
        "--time-f/--time-b/--time-w/--time-fb and --model/--layers/…: give explicit times or a model, not both");

  in.schedule = schedule_of(v, run.compute_deadlock);
  const int pp = in.schedule.ranks, microbatches = in.schedule.microbatches;
  const int tp = static_cast<int>(v.integer("tp")), dp = static_cast<int>(v.integer("dp"));
  // Megatron's DistributedDataParallelConfig: bucket_size = max(40M, 1M × dp) parameters when unset
  // (distributed_data_parallel.py).
  const double bucket_parameters = v.has("grad-bucket-size") ? v.number("grad-bucket-size") : std::max(4e7, 1e6 * dp);
  in.options.grad_bucket_bytes = bucket_parameters * static_cast<double>(v.integer("gradient-bytes"));
  const sim::ParallelSizes sizes{tp, pp, dp};

  // A generated platform is echoed as the command that writes it; its XML goes to DIR/platform.xml,
  // or without --out to a temporary file for the run.
  std::string platform_file = v.text("platform"), platform_echo = platform_file;
  if (v.has("preset")) {
    const platform::ClusterSpec cluster = generated_cluster(v);
    check_generated_size(cluster);
    for (const std::string& note : platform::no_effect_options(cluster_options(v), cluster))
      log::platform().warn(note);
    const std::string xml = platform::platform_xml(cluster);
    if (v.has("out")) {
      platform_file = write_generated_platform(v.text("out"), xml);
    } else {
      run.generated_platform = std::make_shared<const GeneratedPlatformFile>(xml);
      platform_file = run.generated_platform->file();
    }
    platform_echo = platform::gen_command(cluster);
    run.platform_generated = true;
  } else {
    check_no_generator_options(v);
  }
  const platform::PlatformFacts facts = platform::read_platform(platform_file);
  in.platform_file = platform_file;
  in.default_network_model = facts.network_model_defaulted;
  for (const platform::GpuHost& gpu : facts.gpus) in.platform_gpus.push_back({gpu.name, gpu.node});
  in.options.on_failure = v.text("on-failure") == "wait" ? sim::OnFailure::Wait : sim::OnFailure::Fail;
  in.options.tp_lockstep = v.text("tp-lockstep") == "auto";
  in.options.rail_fold = v.text("rail-fold") == "auto";
  in.options.route_search = v.text("route-search") == "auto";
  in.options.exec_flows = v.text("simgrid-flows") == "exec";
  // Only --route-search auto reads the graph: no run that asks SimGrid for its routes pays to build it.
  if (in.options.route_search) in.route_graph = platform::DijkstraRoutes::of(facts);
  resolve_profiles(facts, in);
  in.placement = sim::Placement(sizes, v.text("placement"), in.platform_gpus, v.flag("allow-tp-across-nodes"));
  const sim::Placement& placement = in.placement;
  check_gpu_count(tp, pp, dp, placement.num_gpus());
  run.peak_flops = median_speed(facts.gpus, placement.num_gpus());
  run.rank_capacity.assign(pp, 0);
  for (int g = 0; g < placement.num_gpus(); ++g) {
    double& capacity = run.rank_capacity[placement.coordinates(g).pp];
    const double memory = static_cast<double>(facts.gpus[g].memory);
    capacity = capacity == 0 ? memory : std::min(capacity, memory);
  }

  run.echo = {{"platform", platform_echo},
              {"schedule", in.schedule.name},
              {"pp", pp},
              {"microbatches", microbatches},
              {"chunks", in.schedule.chunks},
              {"tp", tp},
              {"dp", dp},
              {"placement", v.text("placement")},
              {"gpus", placement.num_gpus()},
              {"options",
               {{"p2p", p2p_mode_name(in.options.p2p)},
                {"comm_plan", v.text("comm-plan")},
                {"grad_overlap", v.text("grad-overlap")},
                {"param_gather_overlap", v.text("param-gather-overlap")},
                {"grad_sync_order", v.text("grad-sync-order")},
                {"steps", in.options.steps},
                {"optimizer_sync", v.text("optimizer-sync")},
                {"grad_bucket_size", bucket_parameters},
                {"p2p_channels", in.options.p2p_channels},
                {"nccl_nvlink_efficiency", in.options.nccl_nvlink_efficiency},
                {"tp_comm", v.text("tp-comm")},
                {"dp_comm", v.text("dp-comm")},
                {"trace", v.text("trace")},
                {"trace_json", v.text("trace-json")},
                {"link_window", in.link_window},
                {"link_timeline", in.link_timeline},
                {"on_failure", v.text("on-failure")},
                {"tp_lockstep", v.text("tp-lockstep")},
                {"rail_fold", v.text("rail-fold")},
                {"route_search", v.text("route-search")},
                {"simgrid_flows", v.text("simgrid-flows")}}}};
  if (model_given) {
    run.model = resolve_model(v);
    // The model is split into the schedule's model stages (DualPipe runs each of its p twice, one
    // per direction); the costs of a virtual stage are those of the model stage it computes.
    const StageLayout& layout = in.schedule.layout;
    const int chunks = layout.num_model_stages() / pp;
    run.parallelism = {tp,
                       pp,
                       dp,
                       chunks,
                       v.flag("scatter-gather"),
                       model::parse_recompute(v.text("recompute")),
                       v.flag("uneven-layers")};
    run.parallelism.validate(*run.model);
    const model::MoeSpec& moe = run.model->moe;
    if (moe.enabled() && dp % moe.ep != 0)
      throw InputError(
          fmt::format("--ep {}: must divide --dp {} (an expert-parallel group is ep data-parallel "
                      "replicas of one stage)",
                      moe.ep, dp));
    model::Precision precision;
    precision.gradient_bytes = static_cast<int>(v.integer("gradient-bytes"));
    precision.validate();
    const bool flash_attention = v.flag("flash-attention"), distributed_optimizer = v.flag("distributed-optimizer");
    const std::vector<model::StageCost> model_stages = model::stage_costs(*run.model, run.parallelism, precision);
    std::vector<model::StageCost> virtual_stages;
    MemoryPlan memory;
    for (int s = 0; s < in.schedule.num_stages(); ++s) {
      const model::StageCost& cost = model_stages[layout.model_stage[s]];
      virtual_stages.push_back(cost);
      const model::ActivationBytes activations =
          model::activation_bytes(*run.model, run.parallelism, cost, flash_attention);
      memory.activation_bytes.push_back(activations.per_microbatch);
      memory.kept_for_weight_gradient.push_back(activations.kept_for_weight_gradient);
      memory.static_bytes.push_back(model::static_memory(cost.parameters, precision, dp, distributed_optimizer));
    }
    sim::ExpertRouting routing;
    if (moe.enabled()) routing = {moe.ep, moe.top_k, moe.max_nodes_per_token, model::member_shares(moe)};
    StageLayoutView stage_view{layout.model_stage, {}, pp};
    for (int s = 0; s < in.schedule.num_stages(); ++s) stage_view.rank.push_back(in.schedule.rank_of(s));
    const std::vector<platform::GpuHost> job_gpus(facts.gpus.begin(), facts.gpus.begin() + placement.num_gpus());
    ComputeCosts compute = resolve_compute(v, *run.model, run.parallelism, model_stages, stage_view, job_gpus,
                                           run.peak_flops, microbatches);
    in.costs = sim::JobCosts::from_model(virtual_stages, compute.work, routing);
    in.options.optimizer_seconds = std::move(compute.optimizer_seconds);
    run.compute_breakdown = std::move(compute.breakdown);
    in.options.sync_whole_job = distributed_optimizer;
    in.options.distributed_optimizer = distributed_optimizer;
    run.memory = std::move(memory);
    const model::Transformer& m = *run.model;
    run.echo["model"] = {{"name", m.name},
                         {"layers", m.layers},
                         {"hidden", m.hidden},
                         {"heads", m.heads},
                         {"seq", m.seq},
                         {"vocab", m.vocab},
                         {"ffn_hidden", m.ffn()},
                         {"micro_batch", m.micro_batch},
                         {"compute", compute.echo},
                         {"scatter_gather", v.flag("scatter-gather")},
                         {"recompute", v.text("recompute")},
                         {"gradient_bytes", precision.gradient_bytes},
                         {"distributed_optimizer", distributed_optimizer},
                         {"uneven_layers", v.flag("uneven-layers")},
                         {"flash_attention", flash_attention}};
    if (moe.enabled())
      run.echo["model"]["moe"] = {{"experts", moe.experts},
                                  {"top_k", moe.top_k},
                                  {"shared_experts", moe.shared_experts},
                                  {"expert_hidden", moe.expert_hidden},
                                  {"ep", moe.ep},
                                  {"max_nodes_per_token", moe.max_nodes_per_token},
                                  {"first_dense_layers", moe.first_dense_layers},
                                  {"routing", moe.routing.text},
                                  {"dispatch_bytes", moe.dispatch_bytes},
                                  {"combine_bytes", moe.combine_bytes},
                                  {"ep_comm", v.text("ep-comm")},
                                  {"ep_flows", v.text("ep-flows")},
                                  {"comm_sm_fraction", in.options.comm_sm_fraction}};
  } else {
    ActionTimes times{v.number("time-f"), v.number("time-b"), v.number("time-w"), v.given_number("time-fb")};
    times.validate();
    const double p2p_bytes = v.number("p2p-bytes");
    in.costs = sim::JobCosts::from_times(times, run.peak_flops, in.schedule.num_stages(), p2p_bytes);
    in.options.optimizer_seconds.assign(pp, v.number("time-optimizer"));
    run.echo["times"] = {{"optimizer", v.number("time-optimizer")},
                         {"f", times.f},
                         {"b", times.b},
                         {"w", times.w},
                         {"fb", times.pair()},
                         {"reference_flops", run.peak_flops},
                         {"p2p_bytes", p2p_bytes}};
  }
  if (v.has("stage-cost-scale")) {
    const std::string& text = v.text("stage-cost-scale");
    in.costs.scale_stages(input::parse_stage_scale(text));
    run.echo["stage_cost_scale"] = text;
  }
  check_durations(in.costs, in.schedule, placement, facts);
  for (int rank = 0; rank < static_cast<int>(in.options.optimizer_seconds.size()); ++rank)
    if (!(in.options.optimizer_seconds[rank] <= kMaxOpSeconds))
      throw InputError(fmt::format("--optimizer-bytes {:g}: the optimizer's update on pp rank {} would take {:.3g} s; "
                                   "pipegrid refuses ops longer than {:g} s",
                                   v.number("optimizer-bytes"), rank, in.options.optimizer_seconds[rank], kMaxOpSeconds));
  check_routes(facts, in);

  if (v.has("out")) {
    const std::string& out = v.text("out");
    output::make_output_dir(out);
    run.out_dir = out;
  }
  // Only links.csv reads the links' loads over time: a run with no --out does not follow them.
  in.link_load = !run.out_dir.empty();
  in.progress = sim::progress_show(v.text("progress"));
  log_resolved_run(run, v);
  return run;
}

}  // namespace pipegrid::run
