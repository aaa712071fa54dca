#include "sim/platform/route_hops.h"

#include <algorithm>
#include <unordered_map>

namespace pipegrid::platform {

namespace {

using Adjacency = std::unordered_map<std::string, std::vector<RouteHop>>;

std::string reversed_direction(const std::string& direction) {
  return direction == "UP" ? "DOWN" : direction == "DOWN" ? "UP" : direction;
}

Adjacency adjacency_of(const PlatformFacts& facts) {
  Adjacency adjacency;
  for (const RouteFacts& route : facts.routes) {
    if (route.links.empty()) continue;  // a hop must consume links, or the search below need not end
    adjacency[route.src].push_back({route.src, route.dst, route.links});
    if (!route.symmetrical) continue;
    RouteHop back{route.dst, route.src, {}};
    for (auto it = route.links.rbegin(); it != route.links.rend(); ++it)
      back.links.push_back({it->link, reversed_direction(it->direction)});
    adjacency[route.dst].push_back(std::move(back));
  }
  return adjacency;
}

bool matches(const std::vector<LinkUse>& listed, std::size_t at, const std::vector<LinkUse>& hop, bool reversed) {
  if (at + hop.size() > listed.size()) return false;
  return reversed ? std::equal(hop.rbegin(), hop.rend(), listed.begin() + static_cast<std::ptrdiff_t>(at))
                  : std::equal(hop.begin(), hop.end(), listed.begin() + static_cast<std::ptrdiff_t>(at));
}

// Depth-first: each hop consumes at least one link, so the depth is at most the route's length.
bool search(const Adjacency& adjacency, const std::string& at_netpoint, const std::string& dst,
            const std::vector<LinkUse>& listed, std::size_t at, std::vector<RouteHop>& hops) {
  if (at == listed.size()) return at_netpoint == dst;
  const auto out = adjacency.find(at_netpoint);
  if (out == adjacency.end()) return false;
  for (bool reversed : {true, false}) {
    for (const RouteHop& hop : out->second) {
      if (!matches(listed, at, hop.links, reversed)) continue;
      hops.push_back(hop);
      if (search(adjacency, hop.to, dst, listed, at + hop.links.size(), hops)) return true;
      hops.pop_back();
    }
  }
  return false;
}

}  // namespace

LinkUse link_use_of(const PlatformFacts& facts, std::string_view simgrid_name) {
  for (const char* direction : {"UP", "DOWN"}) {
    const std::string suffix = std::string("_") + direction;
    if (!simgrid_name.ends_with(suffix)) continue;
    const std::string_view base = simgrid_name.substr(0, simgrid_name.size() - suffix.size());
    const LinkFacts* link = facts.find_link(base);
    if (link && link->sharing_policy == "SPLITDUPLEX") return {std::string(base), direction};
  }
  return {std::string(simgrid_name), "NONE"};
}

std::optional<std::vector<RouteHop>> route_hops(const PlatformFacts& facts, const std::string& src,
                                                const std::string& dst, const std::vector<LinkUse>& simgrid_links) {
  std::vector<RouteHop> hops;
  if (search(adjacency_of(facts), src, dst, simgrid_links, 0, hops)) return hops;
  return std::nullopt;
}

}  // namespace pipegrid::platform
