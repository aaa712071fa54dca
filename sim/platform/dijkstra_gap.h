// A route query SimGrid 3.32 would answer with a segmentation fault instead of "no route": its
// DijkstraZone looks both ends up in the graph of the zone's routes and dereferences what it does not
// find (DijkstraZone::get_local_route, node_map_search), so asking for a route from or to a netpoint
// that no <route> or <zoneRoute> of a Dijkstra or DijkstraCache zone names ends the process. Found
// here, from the file, before anything asks SimGrid.
#pragma once

#include <string>

#include "sim/platform/platform_facts.h"

namespace pipegrid::platform {

/// Why SimGrid 3.32 would crash on the route from host `src` to host `dst`, following its
/// NetZoneImpl::get_global_route through the zones (every zone route that could take the route out of
/// a zone is followed), or "" when it would not: "gpu2 is on no route of zone z, routed Dijkstra".
/// A zone with bypass routes is not followed (SimGrid may take one).
std::string dijkstra_gap(const PlatformFacts& facts, const std::string& src, const std::string& dst);

}  // namespace pipegrid::platform
