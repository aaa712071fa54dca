#include "sim/run/run_checks.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <string_view>

#include "common/input_error.h"
#include "schedules/timing.h"
#include "sim/exec/needed_routes.h"
#include "sim/platform/dijkstra_gap.h"
#include "sim/platform/profile_check.h"
#include "sim/platform/route_reach.h"

namespace pipegrid::run {

namespace {

// A number of the platform's <config> (checked by the reader), or `otherwise` when it sets none.
double config_number(const platform::PlatformFacts& facts, std::string_view key, double otherwise) {
  for (const auto& [id, value] : facts.config)
    if (id == key) return std::strtod(value.c_str(), nullptr);
  return otherwise;
}

// The profile of `of` on `resource`, or nullptr.
const platform::ResourceProfile* profile_of(const platform::PlatformFacts& facts, const std::string& resource,
                                            platform::ProfileOf of) {
  for (const platform::ResourceProfile& profile : facts.resource_profiles)
    if (profile.resource == resource && profile.of == of) return &profile;
  return nullptr;
}

// ", network/bandwidth-factor 0.5" when a factor other than 1 scales the numbers of a message.
std::string with_factor(std::string_view key, double factor) {
  return factor == 1 ? "" : fmt::format(", {} {:g}", key, factor);
}

}  // namespace

// An op computes at most one forward and one backward of the rank's stages (an overlapped pair),
// bounded here by all of them together. A profile bounds what it drives as the declared value does:
// a GPU at its slowest speed factor, a link at its least bandwidth, both as SimGrid would run them.
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
    const platform::ResourceProfile* profile = profile_of(facts, gpu.name, platform::ProfileOf::HostSpeed);
    const double factor = profile ? platform::least_value(profile->text).value_or(1) : 1;
    if (!(seconds / factor <= kMaxOpSeconds))
      throw InputError(fmt::format("{}: host {}: {}: its least speed factor, {:g}, would take {:.3g} s for an op of "
                                   "up to {:.3g} FLOPs (pp rank {}); pipegrid refuses ops longer than {:g} s",
                                   facts.path, gpu.name, profile->source, factor, seconds / factor, rank_flops[rank],
                                   rank, kMaxOpSeconds));
  }
  // SimGrid multiplies every bandwidth and latency by the <config>'s factors.
  const double bandwidth_factor = config_number(facts, "network/bandwidth-factor", 1);
  const double latency_factor = config_number(facts, "network/latency-factor", 1);
  const auto narrowest = std::min_element(facts.links.begin(), facts.links.end(),
                                          [](const auto& a, const auto& b) { return a.bandwidth < b.bandwidth; });
  if (narrowest != facts.links.end() && !(bytes / (narrowest->bandwidth * bandwidth_factor) <= kMaxOpSeconds))
    throw InputError(fmt::format("a transfer of {:.3g} bytes would take {:.3g} s over link {} ({:.3g} B/s{}); pipegrid "
                                 "refuses transfers longer than {:g} s",
                                 bytes, bytes / (narrowest->bandwidth * bandwidth_factor), narrowest->name,
                                 narrowest->bandwidth, with_factor("network/bandwidth-factor", bandwidth_factor),
                                 kMaxOpSeconds));
  for (const platform::ResourceProfile& profile : facts.resource_profiles) {
    if (profile.of != platform::ProfileOf::LinkBandwidth) continue;
    const double least = platform::least_value(profile.text).value_or(INFINITY);
    if (!(bytes / (least * bandwidth_factor) <= kMaxOpSeconds))
      throw InputError(fmt::format("{}: link {}: {}: its least bandwidth, {:.3g} B/s{}, would take {:.3g} s for a "
                                   "transfer of {:.3g} bytes; pipegrid refuses transfers longer than {:g} s",
                                   facts.path, profile.resource, profile.source, least,
                                   with_factor("network/bandwidth-factor", bandwidth_factor),
                                   bytes / (least * bandwidth_factor), bytes, kMaxOpSeconds));
  }
  for (const platform::LinkFacts& link : facts.links)
    if (!(link.latency * latency_factor <= kMaxOpSeconds))
      throw InputError(fmt::format("link {}: a latency of {:.3g} s ({:g} s{}); pipegrid refuses latencies longer "
                                   "than {:g} s",
                                   link.name, link.latency * latency_factor, link.latency,
                                   with_factor("network/latency-factor", latency_factor), kMaxOpSeconds));
  // A FAT_TREE, TORUS or DRAGONFLY cluster's links are SimGrid's: its narrowest bandwidth stands for them.
  for (const platform::ClusterFacts& cluster : facts.clusters) {
    if (!(bytes / (cluster.narrowest * bandwidth_factor) <= kMaxOpSeconds))
      throw InputError(fmt::format("a transfer of {:.3g} bytes would take {:.3g} s over cluster {}'s links ({:.3g} "
                                   "B/s{}); pipegrid refuses transfers longer than {:g} s",
                                   bytes, bytes / (cluster.narrowest * bandwidth_factor), cluster.id,
                                   cluster.narrowest, with_factor("network/bandwidth-factor", bandwidth_factor),
                                   kMaxOpSeconds));
    if (!(cluster.latency * latency_factor <= kMaxOpSeconds))
      throw InputError(fmt::format("cluster {}: a latency of {:.3g} s ({:g} s{}); pipegrid refuses latencies "
                                   "longer than {:g} s",
                                   cluster.id, cluster.latency * latency_factor, cluster.latency,
                                   with_factor("network/latency-factor", latency_factor), kMaxOpSeconds));
  }
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
    // SimGrid 3.32 crashes on a route query it cannot look up in a Dijkstra zone's graph.
    for (const sim::NeededRoute& need : sim::needed_routes(in)) {
      const std::string& src = in.platform_gpus[need.src_gpu].host;
      const std::string& dst = in.platform_gpus[need.dst_gpu].host;
      if (const std::string gap = src == dst ? "" : platform::dijkstra_gap(facts, src, dst); !gap.empty())
        throw InputError(fmt::format("{}: no route from {} to {}, which {} need ({})", facts.path, src, dst, need.why,
                                     gap));
    }
    // The executor asks SimGrid for the routes the rails may use, unless one would meet such a zone
    // or such a gap.
    const std::vector<sim::NeededRoute> rail_routes = sim::rail_routes(in);
    in.rails = std::none_of(in.platform_gpus.begin(), in.platform_gpus.end(),
                            [&](const sim::PlatformGpu& gpu) { return in_none_zone(gpu.host); }) &&
               std::none_of(rail_routes.begin(), rail_routes.end(), [&](const sim::NeededRoute& need) {
                 const std::string& src = in.platform_gpus[need.src_gpu].host;
                 const std::string& dst = in.platform_gpus[need.dst_gpu].host;
                 return src != dst && !platform::dijkstra_gap(facts, src, dst).empty();
               });
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
      case platform::ProfileOf::LinkBandwidth:  // bounded by check_durations
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
