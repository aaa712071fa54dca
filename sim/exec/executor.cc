#include "sim/exec/executor.h"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include "common/input_error.h"
#include "common/log.h"
#include "sim/exec/link_report.h"
#include "sim/exec/network_setup.h"
#include "sim/exec/simgrid_route_check.h"
#include "sim/exec/failure_watch.h"
#include "sim/exec/progress_line.h"
#include "sim/exec/runtime_deadlock.h"
#include "sim/exec/rail_fold.h"
#include "sim/exec/tp_lockstep.h"
#include "sim/simgrid/simgrid_engine.h"
#include "sim/simgrid/simgrid_errors.h"
#include "sim/simgrid/simgrid_logs.h"

namespace pipegrid::sim {

namespace {

namespace sg4 = simgrid::s4u;

// The ranks' ops done and in all, over every GPU and step: the progress line's share of the work.
void count_ops(const JobPlan& plan, const JobRecord& record, ProgressSample& sample) {
  const auto steps = static_cast<std::uint64_t>(plan.options.steps);
  sample.ops_done = sample.ops_total = 0;
  for (int g = 0; g < plan.placement.num_gpus(); ++g) {
    const std::uint64_t ops = steps * plan.schedule.programs[plan.placement.coordinates(g).pp].size();
    const GpuAccount& account = record.accounts[g];
    sample.ops_total += ops;
    sample.ops_done += std::min<std::uint64_t>(ops, account.step_ends.size() * (ops / steps) + account.position);
  }
}

void log_actors(const std::vector<std::vector<int>>& actors, const Placement& placement,
                const std::optional<RailFold>& fold, bool exec_flows) {
  if (!log::exec().should_log(spdlog::level::debug)) return;
  std::size_t groups = 0, in_groups = 0;
  for (const std::vector<int>& members : actors)
    if (members.size() > 1) ++groups, in_groups += members.size();
  log::exec().debug("actors: {} started for {} GPUs ({} lockstep TP groups holding {} GPUs, {} one per GPU); rails "
                    "{}; flows as SimGrid {}",
                    actors.size(), placement.num_gpus(), groups, in_groups, actors.size() - groups,
                    fold ? fmt::format("folded ({} rails)", fold->rails) : std::string("not folded"),
                    exec_flows ? "execs" : "comms");
}

// A run with no trace hands its events to no one.
class NoTrace final : public TraceSink {
 public:
  void write(const TraceEvent&) override {}
};

GpuHosts gpu_hosts(const SimulationInput& input, std::vector<sg4::Host*> hosts) {
  GpuHosts gpus{std::move(hosts), {}, {}};
  const auto& varying = input.speed_profiled_hosts;
  for (std::size_t g = 0; g < gpus.hosts.size(); ++g) {
    gpus.node_of_gpu.push_back(input.platform_gpus[g].node);
    gpus.varying_speed.push_back(std::find(varying.begin(), varying.end(), input.platform_gpus[g].host) !=
                                 varying.end());
  }
  return gpus;
}

// The rails folded where that is exact (rail_fold.h), else nullopt and `why_not`. Folded, SimGrid
// carries rail 0's flows only: the other rails' routes can be found without its search
// (--route-search auto), each of rail 0's then checked against SimGrid's. Reads the job's routes,
// which exist once the platform is sealed.
std::optional<RailFold> fold_rails(const SimulationInput& input, const JobPlan& plan, const GpuHosts& gpus,
                                   Network& network, std::string& why_not) {
  std::optional<RailFold> fold = rail_fold_layout(input, plan, gpus, why_not);
  if (fold && input.route_graph && input.options.route_search) {
    std::vector<char> searched(fold->rail_of_gpu.size());
    for (std::size_t g = 0; g < searched.size(); ++g) searched[g] = fold->rail_of_gpu[g] != 0;
    network.routes().search(input.route_graph, std::move(searched));
  }
  if (fold && !rails_are_images(input, network, *fold, why_not)) fold.reset();
  if (fold)
    network.use_rail_fold(fold->rail_of_gpu, fold->rail0_gpu, fold->rails, fold->mirror_of, fold->analytic_mirror_of,
                          fold->analytic_hops);
  else
    network.routes().stop_searching();
  return fold;
}

// One actor per GPU, or per lockstep TP group (tp_lockstep.h), named after its first GPU.
std::size_t start_actors(Job& job, const std::optional<RailFold>& fold) {
  const Placement& placement = job.plan.placement;
  std::vector<std::vector<int>> actors = rank_actors(job.plan, job.gpus);
  log_actors(actors, placement, fold, job.plan.options.exec_flows);  // before the actors take their members
  for (std::vector<int>& members : actors) {
    const int g = members.front();
    const GpuCoordinates& c = placement.coordinates(g);
    const std::string actor_name = members.size() == 1 ? fmt::format("gpu{}-tp{}-dp{}-pp{}", g, c.tp, c.dp, c.pp)
                                                 : fmt::format("gpu{}-tp-group-dp{}-pp{}", g, c.dp, c.pp);
    sg4::Actor::create(actor_name, job.gpus.hosts[g], [&job, members = std::move(members)] { run_gpu(job, members); });
  }
  return actors.size();
}

// What the run did: its GPUs' accounts, step ends and bubble, its links' reports (by name), and what
// the network and the fold counted.
SimulationResult result_of(const SimulationInput& input, const JobRecord& record, Network& network,
                           const std::optional<RailFold>& fold) {
  const Placement& placement = input.placement;
  SimulationResult result;
  result.simgrid_comms = network.simgrid_comms();
  result.searched_routes = network.routes().searched_routes();
  result.routes_checked_against_search = network.routes().checked_routes();
  result.rail_fold = fold.has_value();
  const auto mirrors = [](const std::vector<int>& mirror_of) {
    return static_cast<int>(std::count_if(mirror_of.begin(), mirror_of.end(), [](int link0) { return link0 != -1; }));
  };
  if (fold) {
    result.rail_fold_mirror_links = mirrors(fold->mirror_of);
    result.rail_fold_analytic_mirror_links = mirrors(fold->analytic_mirror_of);
  }
  double busy_total = 0;
  for (int g = 0; g < placement.num_gpus(); ++g) {
    const GpuAccount& account = record.accounts[g];
    result.makespan = std::max(result.makespan, account.finish);
    if (result.step_ends.size() < account.step_ends.size()) result.step_ends.resize(account.step_ends.size(), 0);
    for (std::size_t k = 0; k < account.step_ends.size(); ++k)
      result.step_ends[k] = std::max(result.step_ends[k], account.step_ends[k]);
    busy_total += account.busy;
    result.gpus.push_back({input.platform_gpus[g].host, input.platform_gpus[g].node, placement.coordinates(g), account});
  }
  if (result.makespan > 0) result.bubble_fraction = 1 - busy_total / (placement.num_gpus() * result.makespan);
  network.close_load();
  for (const LinkUsage& usage : network.links())
    result.links.push_back(link_report(usage, input.link_window, input.link_timeline));
  std::sort(result.links.begin(), result.links.end(),
            [](const LinkReport& a, const LinkReport& b) { return a.name < b.name; });
  return result;
}

}  // namespace

SimulationResult simulate(const SimulationInput& input) {
  const Placement& placement = input.placement;
  int argc = 1;
  char name[] = "pipegrid";
  char* argv[] = {name, nullptr};
  // SimGrid's own chatter (configuration changes, its deadlock dump) at --log-level's, so that by
  // default it does not bury pipegrid's one report.
  route_simgrid_logs();
  use_sanitizable_contexts();
  sg4::Engine engine(&argc, argv);
  SimGridErrors errors;
  load_job_platform(engine, errors, input);
  bool rails = input.rails;
  if (!input.routes_checked) {
    engine.seal_platform();  // routes exist once the zones are sealed
    rails = check_routes_in_simgrid(engine, input);
  }
  std::vector<sg4::Host*> hosts = job_hosts(engine, input);

  NoTrace no_trace;
  TraceSink& trace = input.trace ? *input.trace : no_trace;
  const JobPlan plan(input.schedule, placement, input.costs, input.options);
  Network network(hosts, input.link_window, input.link_timeline, input.link_load);
  connect_network(network, engine, input, hosts, rails);
  // The listeners in this order: the messages' sides, the pipeline transfers' trace rows, the
  // collectives' spans.
  Transfers transfers(network, placement.num_gpus());
  network.on_flow_end([&](const FlowInfo& flow, double start, double end) {
    if (flow.kind != FlowKind::PipelineP2p) return;
    const Action producer =
        plan.producer(Result{flow.stage, flow.microbatch, flow.backward ? Flow::Backward : Flow::Forward});
    trace.write({flow.src_gpu, Track::Comm, "p2p", flow.stage, flow.microbatch, kind_letter(producer.kind),
                 flow.dst_gpu, flow.bytes, start, end});
  });
  JobRecord record(placement.num_gpus(), network);
  const GpuHosts gpus = gpu_hosts(input, std::move(hosts));
  Job job{plan, gpus, network, transfers, trace, record};
  FailureWatch failures(plan, gpus, record, network, transfers, input.link_up_dates);
  engine.seal_platform();
  std::string no_fold;
  const std::optional<RailFold> fold = fold_rails(input, plan, gpus, network, no_fold);

  double deadlock_time = -1;
  sg4::Engine::on_deadlock_cb([&] { deadlock_time = sg4::Engine::get_clock(); });
  failures.notice_resources_off_at_start();
  // A job host off from the start has failed the job already: SimGrid starts no actor on it.
  const std::size_t actors = failures.failure() ? 0 : start_actors(job, fold);
  ClockProgress progress(input.progress, [&](ProgressSample& sample) {
    count_ops(plan, record, sample);
    sample.expected = input.contention_free_makespan;
  });
  const auto wall_start = std::chrono::steady_clock::now();
  engine.run();
  progress.end();
  log::exec().debug("simulated end: t = {:.9g} s; SimGrid ran for {:.3f} s of wall time", sg4::Engine::get_clock(),
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count());

  SimulationResult result = result_of(input, record, network, fold);
  result.actors = static_cast<int>(actors);
  result.rail_fold_why_not = no_fold;
  if (const auto& failure = failures.failure()) {
    result.failure = RunEnding{failure->line(), failure->to_json()};
    return result;
  }
  const double deadlocked_at = deadlock_time >= 0 ? deadlock_time : sg4::Engine::get_clock();
  if (const auto deadlock = find_runtime_deadlock(plan, gpus, record, transfers, deadlocked_at))
    result.deadlock = RunEnding{deadlock->report(plan, gpus), deadlock->to_json(plan, gpus)};
  return result;
}

}  // namespace pipegrid::sim
