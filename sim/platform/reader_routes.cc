// The reader's routes: <route>, <zoneRoute> and its other names, <bypassRoute>, <host_link>, read
// once every netpoint and link of the file is known.
#include <fmt/format.h>

#include "sim/platform/platform_reader_parts.h"
#include "sim/platform/route_hops.h"

namespace pipegrid::platform {

void Reader::read_route(const pugi::xml_node& node, int zone) {
  RouteFacts route;
  route.zone = zone;
  route.src = node.attribute("src").value();
  route.dst = node.attribute("dst").value();
  route.line = source_.line_of(node);
  const std::string what = fmt::format("route {} -> {}", route.src, route.dst);
  for (const std::string& end : {route.src, route.dst})
    if (!netpoint_lines_.contains(end)) source_.fail(node, fmt::format("{}: no host or router {}", what, end));
  for (const std::string& end : {route.src, route.dst})
    if (const int other = facts_.zone_of_netpoint.at(end); other != zone)
      source_.fail(node, fmt::format("{}: {} is in zone {}, not in this route's zone {} (a route joins netpoints of "
                                     "its own zone; join zones with a <zoneRoute>)",
                                     what, end, facts_.zones[other].id, facts_.zones[zone].id));
  const std::string symmetrical = node.attribute("symmetrical").as_string("YES");
  route.symmetrical = symmetrical == "YES" || symmetrical == "yes";
  // SimGrid's EmptyZone dies on a route ("There can't be route in an Empty zone").
  if (facts_.zones[zone].routing == "None")
    source_.fail(node, fmt::format("{}: zone {} is routed None, which has no routes", what, facts_.zones[zone].id));
  declare_once(node, route.src, route.dst, what);
  // A route from a host to itself (a loopback) is its own way back.
  if (route.symmetrical && route.src != route.dst) declare_once(node, route.dst, route.src, what);
  route.links = link_uses(node, what);
  facts_.zones[zone].route_ends.insert(route.src);
  facts_.zones[zone].route_ends.insert(route.dst);
  facts_.routes.push_back(std::move(route));
}

std::vector<LinkUse> Reader::link_uses(const pugi::xml_node& node, const std::string& what) const {
  std::vector<LinkUse> uses;
  for (const pugi::xml_node& ctn : node.children("link_ctn")) {
    LinkUse use{ctn.attribute("id").value(), ctn.attribute("direction").as_string("NONE")};
    const LinkFacts* link = facts_.find_link(use.link);
    if (!link) source_.fail(ctn, fmt::format("{}: no link named {}", what, use.link));
    const bool directed = use.direction == "UP" || use.direction == "DOWN";
    if (link->sharing_policy == "SPLITDUPLEX" && !directed)
      source_.fail(ctn, fmt::format("{}: link {} is SPLITDUPLEX and needs direction UP or DOWN", what, use.link));
    if (link->sharing_policy != "SPLITDUPLEX" && use.direction != "NONE")
      source_.fail(ctn, fmt::format("{}: link {} is {} and has no direction {}", what, use.link,
                                    link->sharing_policy, use.direction));
    uses.push_back(std::move(use));
  }
  return uses;
}

bool Reader::zone_within(int zone, int ancestor) const {
  for (; zone >= 0; zone = facts_.zones[zone].parent)
    if (zone == ancestor) return true;
  return false;
}

// <zoneRoute src dst gw_src gw_dst> (<ASroute> is its old name; the bypass forms the same) between
// two zones of this zone, through a netpoint of each; <bypassRoute src dst> between two netpoints.
// Which routes SimGrid then finds is asked of SimGrid itself (PlatformFacts::routes_declared).
void Reader::read_zone_route(const pugi::xml_node& node, int zone) {
  const std::string element = node.name();
  const std::string src = node.attribute("src").value(), dst = node.attribute("dst").value();
  const std::string what = fmt::format("{} {} -> {}", element, src, dst);
  if (element == "bypassRoute") {
    for (const std::string& end : {src, dst})
      if (!netpoint_lines_.contains(end)) source_.fail(node, fmt::format("{}: no host or router {}", what, end));
    link_uses(node, what);
    facts_.zones[zone].bypass = true;
    return;
  }
  for (const auto& [end, gateway_attribute] : {std::pair{src, "gw_src"}, std::pair{dst, "gw_dst"}}) {
    const auto found = zone_index_.find(end);
    if (found == zone_index_.end() || facts_.zones[found->second].parent != zone)
      source_.fail(node, fmt::format("{}: no zone {} in zone {} (a zone route joins two zones of the zone that "
                                     "declares it)",
                                     what, end, facts_.zones[zone].id));
    const std::string gateway = node.attribute(gateway_attribute).value();
    const auto at = facts_.zone_of_netpoint.find(gateway);
    if (at == facts_.zone_of_netpoint.end())
      source_.fail(node, fmt::format("{}: {} {}: no host or router of that name", what, gateway_attribute,
                                     gateway.empty() ? "(none)" : gateway));
    if (!zone_within(at->second, found->second))
      source_.fail(node, fmt::format("{}: {} {} is in zone {}, not in zone {}", what, gateway_attribute, gateway,
                                     facts_.zones[at->second].id, end));
  }
  if (element == "zoneRoute" || element == "ASroute") {
    const std::string symmetrical = node.attribute("symmetrical").as_string("YES");
    const bool both_ways = symmetrical == "YES" || symmetrical == "yes";
    declare_once(node, src, dst, what);
    if (both_ways) declare_once(node, dst, src, what);
    facts_.zones[zone].route_ends.insert(src);
    facts_.zones[zone].route_ends.insert(dst);
    facts_.zone_routes.push_back(
        {src, dst, node.attribute("gw_src").value(), node.attribute("gw_dst").value(), both_ways, zone});
  } else {
    facts_.zones[zone].bypass = true;
  }
  link_uses(node, what);
}

// <host_link id up down> of a Cluster zone: the host's own links to the zone's backbone.
void Reader::read_host_link(const pugi::xml_node& node) const {
  const std::string host = node.attribute("id").value();
  const std::string what = fmt::format("host_link {}", host);
  if (!netpoint_lines_.contains(host)) source_.fail(node, fmt::format("{}: no host named {}", what, host));
  // SimGrid looks the names up among its links, where a SPLITDUPLEX link L is L_UP and L_DOWN.
  for (const char* attribute : {"up", "down"}) {
    const std::string name = node.attribute(attribute).value();
    const LinkUse use = link_use_of(facts_, name);
    const LinkFacts* link = facts_.find_link(use.link);
    if (!link) source_.fail(node, fmt::format("{}: {}: no link named {}", what, attribute, name));
    if (use.direction == "NONE" && link->sharing_policy == "SPLITDUPLEX")
      source_.fail(node, fmt::format("{}: {}: link {} is SPLITDUPLEX: name one direction, {}_UP or {}_DOWN", what,
                                     attribute, name, name, name));
  }
}

// SimGrid refuses a second route between the same two netpoints in the same direction.
void Reader::declare_once(const pugi::xml_node& node, const std::string& from, const std::string& to,
                          const std::string& what) {
  const auto [first, added] = route_lines_.emplace(std::pair(from, to), source_.line_of(node));
  if (!added)
    source_.fail(node, fmt::format("{}: a route from {} to {} is already declared at line {}", what, from, to,
                                   first->second));
}

}  // namespace pipegrid::platform
