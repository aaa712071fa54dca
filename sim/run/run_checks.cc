#include "sim/run/run_checks.h"

#include <algorithm>
#include <fmt/format.h>

#include "common/input_error.h"
#include "schedules/timing.h"
#include "sim/exec/needed_routes.h"
#include "sim/platform/profile_check.h"
#include "sim/platform/route_reach.h"

namespace pipegrid::run {

// An op computes at most one forward and one backward of the rank's stages (an overlapped pair),
// bounded here by all of them together.
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

// The platform's host and link profiles as the executor uses them; what --on-failure wait cannot wait
// for is refused here, before SimGrid starts.
void apply_profiles(const platform::PlatformFacts& facts, sim::SimulationInput& in) {
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

double contention_free_makespan(const sim::SimulationInput& in, double peak_flops) {
  const int stages = in.costs.num_stages();
  if (stages == 0 || !(peak_flops > 0)) return 0;
  double f = 0, i = 0, w = 0;
  for (int s = 0; s < stages; ++s) {
    f += in.costs.stage(s).f_flops;
    i += in.costs.stage(s).i_flops;
    w += in.costs.stage(s).w_flops;
  }
  const double per_stage = peak_flops * stages;
  const ActionTimes times{f / per_stage, (i + w) / per_stage, w / per_stage, std::nullopt};
  if (!(times.f > 0) || !(times.b > 0)) return 0;
  return time_schedule(in.schedule, times).makespan * in.options.steps;
}

void check_optimizer_seconds(const std::vector<double>& seconds, double optimizer_bytes) {
  for (int rank = 0; rank < static_cast<int>(seconds.size()); ++rank)
    if (!(seconds[rank] <= kMaxOpSeconds))
      throw InputError(fmt::format("--optimizer-bytes {:g}: the optimizer's update on pp rank {} would take {:.3g} s; "
                                   "pipegrid refuses ops longer than {:g} s",
                                   optimizer_bytes, rank, seconds[rank], kMaxOpSeconds));
}

}  // namespace pipegrid::run
