#include "sim/platform/route_query.h"

#include <fmt/format.h>
#include <optional>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include "common/input_error.h"
#include "sim/platform/dijkstra_gap.h"
#include "sim/platform/platform_reader.h"
#include "sim/platform/route_reach.h"
#include "sim/simgrid/simgrid_engine.h"
#include "sim/simgrid/simgrid_logs.h"

namespace pipegrid::platform {

std::vector<SimRoute> simgrid_routes(const std::string& platform_path,
                                     const std::vector<std::pair<std::string, std::string>>& pairs) {
  const PlatformFacts facts = read_platform(platform_path);
  const bool default_network_model = facts.network_model_defaulted;
  // SimGrid's log at --log-level's: no "Configuration change" line for each <config> prop by default.
  std::string program = "pipegrid";
  char* argv[] = {program.data(), nullptr};
  int argc = 1;
  sim::route_simgrid_logs();
  sim::use_sanitizable_contexts();
  simgrid::s4u::Engine engine(&argc, argv);
  sim::SimGridErrors errors;
  // read_platform checks what pipegrid knows of; anything else SimGrid rejects is still bad input.
  sim::load_platform(engine, errors, platform_path, default_network_model);
  for (const auto& [src, dst] : pairs)
    for (const std::string& name : {src, dst})
      if (!engine.host_by_name_or_null(name))
        throw InputError(fmt::format("{}: no host of that name in {}", name, platform_path));
  // What SimGrid would crash on, or where the file's own routes already say there is none.
  std::optional<RouteReach> reach;
  if (facts.routes_declared) reach.emplace(facts);
  for (const auto& [src, dst] : pairs) {
    if (const std::string gap = dijkstra_gap(facts, src, dst); !gap.empty())
      throw InputError(fmt::format("{}: no route from {} to {} ({})", platform_path, src, dst, gap));
    if (reach && !reach->routed(src, dst))
      throw InputError(fmt::format("{}: no route from {} to {}", platform_path, src, dst));
  }

  // Routes exist once the zones are sealed, and maestro may ask them then: a missing route is an
  // exception it can catch (an actor's would end the process), or, in a Full zone, an empty list.
  engine.seal_platform();
  std::vector<SimRoute> routes;
  for (const auto& [src, dst] : pairs) {
    SimRoute route{src, dst, {}, 0};
    std::vector<simgrid::s4u::Link*> links;
    try {
      engine.host_by_name(src)->route_to(engine.host_by_name(dst), links, &route.latency);
    } catch (const std::exception& e) {
      throw InputError(fmt::format("{}: no route from {} to {} ({})", platform_path, src, dst, e.what()));
    }
    if (links.empty() && src != dst)
      throw InputError(fmt::format("{}: no route from {} to {}", platform_path, src, dst));
    for (const simgrid::s4u::Link* link : links)
      route.links.push_back({link->get_name(), link->get_bandwidth(), link->get_latency()});
    routes.push_back(std::move(route));
  }
  return routes;
}

}  // namespace pipegrid::platform
