// Routes as SimGrid computes them: a platform is loaded into an engine, sealed (routes exist only
// then), and asked from maestro.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace pipegrid::platform {

/// One link of a route as SimGrid holds it. A SPLITDUPLEX link's directions are separate links named
/// NAME_UP and NAME_DOWN.
struct SimRouteLink {
  std::string name;
  double bandwidth = 0;  // bytes/s
  double latency = 0;    // seconds
};

/// The route from one host to another, links in SimGrid's order (Host::route_to).
struct SimRoute {
  std::string src;
  std::string dst;
  std::vector<SimRouteLink> links;
  double latency = 0;  // the sum over the links, as SimGrid adds it
};

/// Loads `platform_path` (check it with read_platform first) and computes the route of every (src,
/// dst) pair of host names. Creates the process's one SimGrid engine: call it once per process.
/// SimGrid's configuration messages are silenced; its warnings are not.
/// The network model is the one a run of the file gets (pipegrid's default when the file sets none).
/// A pair SimGrid has no route for is an InputError "FILE: no route from A to B".
std::vector<SimRoute> simgrid_routes(const std::string& platform_path,
                                     const std::vector<std::pair<std::string, std::string>>& pairs);

}  // namespace pipegrid::platform
