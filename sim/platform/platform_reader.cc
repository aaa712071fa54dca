#include "sim/platform/platform_reader.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <optional>
#include <pugixml.hpp>
#include <sstream>

#include "common/input_error.h"
#include "sim/platform/cluster_reader.h"
#include "sim/platform/gpu_inference.h"
#include "sim/platform/platform_log.h"
#include "sim/platform/profile_check.h"
#include "sim/platform/source_text.h"
#include "sim/platform/simgrid_config.h"
#include "sim/platform/quantity_check.h"
#include "sim/platform/route_hops.h"
#include "sim/platform/units.h"
#include "sim/simgrid/simgrid_engine.h"

namespace pipegrid::platform {

namespace {


// SimGrid 3.32's routings (sg_platf_new_Zone_begin, compared without case). In the first four a
// route is a declared <route> (or chain of them): RouteReach knows them before SimGrid loads.
constexpr std::string_view kDeclaredRoutings[] = {"Full", "Floyd", "Dijkstra", "DijkstraCache"};
constexpr std::string_view kOtherRoutings[] = {"Cluster", "None", "Vivaldi", "Wifi"};

bool same_word(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// Reads the zones' elements into facts, remembering the route elements for a second pass: a route
// may only be checked once every netpoint and link is known.
class Reader {
 public:
  Reader(const SourceText& source, PlatformFacts& facts) : source_(source), facts_(facts) {}

  void read_platform(const pugi::xml_node& platform) {
    bool zones_seen = false;
    for (const pugi::xml_node& child : platform.children()) {
      const std::string_view name = child.name();
      if (name == "config") {
        // SimGrid's parser refuses a <config> once the platform has begun.
        if (zones_seen) source_.fail(child, "<config> must come before the zones");
        read_config(child);
      } else if (name == "zone" || name == "AS") {
        zones_seen = true;
        read_zone(child, -1);
      } else if (name == "cluster") {
        zones_seen = true;
        read_cluster(child, -1);
      } else if (name == "trace") {
        read_trace(child);
      } else if (name == "trace_connect") {
        read_trace_connect(child);
      } else {
        refuse(child);
      }
    }
    for (const auto& [route, zone] : route_nodes_) read_route(route, zone);
    for (const auto& [route, zone] : zone_route_nodes_) read_zone_route(route, zone);
    for (const pugi::xml_node& node : host_link_nodes_) read_host_link(node);
    for (const auto& [node, host] : connected_hosts_)
      if (!netpoint_lines_.contains(host) ||
          std::find(facts_.routers.begin(), facts_.routers.end(), host) != facts_.routers.end())
        source_.fail(node, fmt::format("<trace_connect kind=\"{}\">: no host {}", node.attribute("kind").value(), host));
    infer_gpus(source_.path(), hosts_, facts_);
  }

 private:
  void read_config(const pugi::xml_node& config) {
    for (const pugi::xml_node& prop : config.children()) {
      if (std::string_view(prop.name()) != "prop") refuse(prop);
      const std::string key = prop.attribute("id").value(), value = prop.attribute("value").value();
      if (const std::string rule = config_rule(key, value); !rule.empty())
        source_.fail(prop, fmt::format("<config> {} = {}: {}", key, value, rule));
      facts_.config.emplace_back(key, value);
    }
  }

  // A routing SimGrid 3.32 accepts, spelled as SimGrid's list does.
  std::string check_routing(const pugi::xml_node& zone) {
    const std::string routing = zone.attribute("routing").value();
    for (const auto* list : {&kDeclaredRoutings, &kOtherRoutings})
      for (std::string_view known : *list)
        if (same_word(routing, known)) return std::string(known);
    source_.fail(zone, fmt::format("zone {}: routing must be Full, Floyd, Dijkstra, DijkstraCache, Cluster, None, "
                                   "Vivaldi or Wifi, got {}",
                                   zone.attribute("id").value(), routing.empty() ? "nothing" : routing));
  }

  int add_zone(const pugi::xml_node& node, const std::string& id, const std::string& routing, int parent) {
    if (id.empty()) source_.fail(node, fmt::format("<{}> needs an id", node.name()));
    check_unique_id(node, id);
    zone_lines_.emplace(id, source_.line_of(node));
    if (facts_.routing.empty()) facts_.routing = routing;
    const int index = static_cast<int>(facts_.zones.size());
    facts_.zones.push_back({id, routing, source_.line_of(node)});
    zone_parent_.push_back(parent);
    zone_index_.emplace(id, index);
    return index;
  }

  void read_zone(const pugi::xml_node& zone, int parent) {
    const std::string routing = check_routing(zone);
    if (std::find(std::begin(kDeclaredRoutings), std::end(kDeclaredRoutings), routing) == std::end(kDeclaredRoutings))
      facts_.routes_declared = false;
    const int index = add_zone(zone, zone.attribute("id").value(), routing, parent);
    for (const pugi::xml_node& child : zone.children()) {
      const std::string_view name = child.name();
      if (name == "zone" || name == "AS") read_zone(child, index);
      else if (name == "cluster") read_cluster(child, index);
      else if (name == "host") read_host(child, index);
      else if (name == "router") add_netpoint(child, index);
      else if (name == "link") read_link(child);
      else if (name == "backbone") read_backbone(child, routing);
      else if (name == "cabinet") read_cabinet(child, index, routing);
      else if (name == "host_link") host_link_nodes_.push_back(child), need_cluster_routing(child, routing);
      else if (name == "route") route_nodes_.emplace_back(child, index);
      else if (name == "zoneRoute" || name == "ASroute" || name == "bypassZoneRoute" || name == "bypassASroute" ||
               name == "bypassRoute")
        zone_route_nodes_.emplace_back(child, index), facts_.routes_declared = false;
      else if (name == "trace") read_trace(child);
      else if (name == "trace_connect") read_trace_connect(child);
      else if (name == "peer")
        source_.fail(child, "<peer> is not read by pipegrid: declare the Vivaldi zone's hosts with <host coordinates> "
                            "and their links");
      else if (name != "prop") refuse(child);
    }
  }

  // SimGrid's StarZone alone takes these (sg_platf_zone_cluster_populate asserts it).
  void need_cluster_routing(const pugi::xml_node& node, const std::string& routing) const {
    if (routing != "Cluster")
      source_.fail(node, fmt::format("<{}> belongs in a zone routed Cluster, not {}", node.name(), routing));
  }

  void read_cluster(const pugi::xml_node& node, int parent) {
    ExpandedCluster expanded = expand_cluster(source_, node);
    facts_.routes_declared = false;
    const int cluster = static_cast<int>(facts_.clusters.size());
    const int zone = add_zone(node, expanded.cluster.id,
                              expanded.cluster.topology == "FLAT" ? "Cluster" : expanded.cluster.topology, parent);
    facts_.clusters.push_back(expanded.cluster);
    for (HostRecord& host : expanded.hosts) {
      add_netpoint_named(node, host.name, zone, false);
      host.cluster = cluster;
      hosts_.push_back(std::move(host));
    }
    for (LinkFacts& link : expanded.links) add_link(node, std::move(link));
    if (!expanded.router.empty()) add_netpoint_named(node, expanded.router, zone, true);
  }

  void read_cabinet(const pugi::xml_node& node, int zone, const std::string& routing) {
    need_cluster_routing(node, routing);
    ExpandedCluster expanded = expand_cabinet(source_, node);
    for (HostRecord& host : expanded.hosts) {
      add_netpoint_named(node, host.name, zone, false);
      hosts_.push_back(std::move(host));
    }
    for (LinkFacts& link : expanded.links) add_link(node, std::move(link));
  }

  // <backbone id bandwidth latency>: a SHARED link of a Cluster zone.
  void read_backbone(const pugi::xml_node& node, const std::string& routing) {
    need_cluster_routing(node, routing);
    LinkFacts link = read_link_rates(node, "backbone");
    link.sharing_policy = "SHARED";
    add_link(node, std::move(link));
  }

  // A profile file named by an attribute: found where SimGrid looks, and well-formed; its text.
  std::string read_profile_file(const pugi::xml_node& node, const std::string& what, const char* attribute, ProfileKind kind) {
    const std::string name = node.attribute(attribute).value();
    if (name.empty()) source_.fail(node, fmt::format("{}: {} names no file", what, attribute));
    if (std::filesystem::path(name).is_absolute())
      source_.fail(node, fmt::format("{}: {} {}: SimGrid 3.32 cannot open a profile by its absolute path; name it "
                                     "relative to the platform file",
                                     what, attribute, name));
    const std::optional<std::string> found = locate_profile(name, source_.path());
    if (!found)
      source_.fail(node, fmt::format("{}: {} {}: no such file in the working directory or beside the platform file",
                                     what, attribute, name));
    // SimGrid 3.32 keeps its profiles by file name ("Refusing to define trace … twice").
    if (std::find(facts_.profile_files.begin(), facts_.profile_files.end(), *found) != facts_.profile_files.end())
      source_.fail(node, fmt::format("{}: {} {}: SimGrid 3.32 reads a profile file for one resource only; give each "
                                     "its own copy",
                                     what, attribute, name));
    std::ifstream in(*found, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (const std::string rule = profile_rule(text.str(), kind); !rule.empty())
      source_.fail(node, fmt::format("{}: {} {}: {}", what, attribute, name, rule));
    facts_.profile_files.push_back(*found);
    return text.str();
  }

  // <trace id periodicity [file]>content</trace>: read as SimGrid reads it, checked for form here
  // and for its values where it is connected (read_trace_connect). A periodicity above 0 loops it.
  void read_trace(const pugi::xml_node& node) {
    const std::string id = id_of(node), what = fmt::format("trace {}", id);
    if (node.attribute("periodicity").empty()) source_.fail(node, what + ": needs a periodicity");
    std::string content = node.child_value();
    if (!node.attribute("file").empty()) {
      content = read_profile_file(node, what, "file", ProfileKind::Any);
    } else {
      if (content.find_first_not_of(" \t\r\n") == std::string::npos)
        source_.fail(node, what + ": has neither content nor a file");
      if (const std::string rule = profile_rule(content, ProfileKind::Any); !rule.empty())
        source_.fail(node, fmt::format("{}: {}", what, rule));
    }
    if (node.attribute("periodicity").as_double() > 0)
      content = fmt::format("PERIODICITY {}\n{}", node.attribute("periodicity").value(), content);
    traces_[id] = std::move(content);
  }

  // A host's speed or state from a <trace>. SimGrid 3.32 connects traces once the whole file is read,
  // when its links are sealed already: a link's profile must be an attribute of the link.
  void read_trace_connect(const pugi::xml_node& node) {
    const std::string kind = node.attribute("kind").as_string("HOST_AVAIL");
    const std::string what = fmt::format("<trace_connect kind=\"{}\">", kind);
    if (kind == "LINK_AVAIL" || kind == "BANDWIDTH" || kind == "LATENCY")
      source_.fail(node, fmt::format("{}: SimGrid 3.32 cannot connect a trace to a link (the link is sealed first); "
                                     "give the link a {}",
                                     what, kind == "LINK_AVAIL" ? "state_file" : "bandwidth_file or latency_file"));
    if (kind != "SPEED" && kind != "HOST_AVAIL")
      source_.fail(node, fmt::format("{}: kind must be SPEED, HOST_AVAIL, BANDWIDTH, LATENCY or LINK_AVAIL", what));
    const std::string trace = node.attribute("trace").value(), host = node.attribute("element").value();
    const auto it = traces_.find(trace);
    if (it == traces_.end()) source_.fail(node, fmt::format("{}: no <trace> {} before it", what, trace));
    const bool speed = kind == "SPEED";
    if (const std::string rule = profile_rule(it->second, speed ? ProfileKind::Speed : ProfileKind::State); !rule.empty())
      source_.fail(node, fmt::format("{}: trace {}: {}", what, trace, rule));
    add_profile(node, host, speed ? ProfileOf::HostSpeed : ProfileOf::HostState, it->second);
    connected_hosts_.emplace_back(node, host);
  }

  // SimGrid 3.32 asserts on a second profile of one kind on one resource.
  void add_profile(const pugi::xml_node& node, const std::string& resource, ProfileOf of, std::string text) {
    for (const ResourceProfile& other : facts_.resource_profiles)
      if (other.resource == resource && other.of == of)
        source_.fail(node, fmt::format("{}: a second {} profile (the first at line {})", resource,
                                       of == ProfileOf::HostSpeed ? "speed" : "state", other.line));
    facts_.resource_profiles.push_back({resource, of, std::move(text), source_.line_of(node)});
  }

  [[noreturn]] void refuse(const pugi::xml_node& node) const {
    source_.fail(node, fmt::format("<{}> is not read by pipegrid: declare hosts, routers, links and routes "
                                   "in zones, or clusters (platforms/README.md)",
                                   node.name()));
  }

  std::string id_of(const pugi::xml_node& node) const {
    const std::string id = node.attribute("id").value();
    if (id.empty()) source_.fail(node, fmt::format("<{}> needs an id", node.name()));
    return id;
  }

  // Zones are netpoints too: SimGrid refuses a host, router or zone named as another.
  void check_unique_id(const pugi::xml_node& node, const std::string& id) const {
    for (const auto* lines : {&netpoint_lines_, &zone_lines_})
      if (const auto first = lines->find(id); first != lines->end())
        source_.fail(node, fmt::format("duplicate id {}, first declared at line {}", id, first->second));
  }

  void add_netpoint_named(const pugi::xml_node& node, const std::string& id, int zone, bool router) {
    check_unique_id(node, id);
    netpoint_lines_.emplace(id, source_.line_of(node));
    if (router) facts_.routers.push_back(id);
    facts_.zone_of_netpoint.emplace(id, zone);
  }

  std::string add_netpoint(const pugi::xml_node& node, int zone) {
    const std::string id = id_of(node);
    add_netpoint_named(node, id, zone, std::string_view(node.name()) == "router");
    return id;
  }

  void read_host(const pugi::xml_node& node, int zone) {
    const std::string id = add_netpoint(node, zone);
    HostRecord host{id, first_pstate_speed(source_, node, fmt::format("host {}: speed", id), node.attribute("speed").value()),
                    {}, source_.line_of(node), -1, 0};
    // availability_file is SimGrid's old name of speed_file: a factor of the peak speed.
    for (const char* profile : {"speed_file", "availability_file", "state_file"})
      if (!node.attribute(profile).empty()) {
        const bool state = std::string_view(profile) == "state_file";
        add_profile(node, id, state ? ProfileOf::HostState : ProfileOf::HostSpeed,
                    read_profile_file(node, "host " + id, profile, state ? ProfileKind::State : ProfileKind::Speed));
      }
    for (const pugi::xml_node& prop : node.children("prop"))
      host.props[prop.attribute("id").value()] = {prop.attribute("value").value(), source_.line_of(prop)};
    hosts_.push_back(std::move(host));
  }

  void add_link(const pugi::xml_node& node, LinkFacts link) {
    const auto [first, added] = link_lines_.emplace(link.name, source_.line_of(node));
    if (!added)
      source_.fail(node, fmt::format("duplicate id {}, first declared at line {}", link.name, first->second));
    facts_.link_index.emplace(link.name, facts_.links.size());
    facts_.links.push_back(std::move(link));
  }

  // The id, line, bandwidth and latency of a <link> or <backbone> (`element`, which its errors name).
  LinkFacts read_link_rates(const pugi::xml_node& node, std::string_view element) {
    LinkFacts link;
    link.name = id_of(node);
    link.line = source_.line_of(node);
    const std::string bandwidth_text = node.attribute("bandwidth").value();
    link.bandwidth = positive_quantity(source_, node, fmt::format("{} {}: bandwidth", element, link.name),
                                       bandwidth_text, parse_bandwidth(bandwidth_text), "25GBps or 200Gbps");
    link.latency = latency_value(source_, node, fmt::format("{} {}: latency", element, link.name),
                                 node.attribute("latency").as_string("0"));
    return link;
  }

  void read_link(const pugi::xml_node& node) {
    LinkFacts link = read_link_rates(node, "link");
    if (!node.attribute("state_file").empty()) {
      // SimGrid 3.32 gives a SPLITDUPLEX link's state event to both directions, which do not know it:
      // xbt_die("Unknown event!") in NetworkCm02Link::apply_event.
      if (std::string_view(node.attribute("sharing_policy").value()) == "SPLITDUPLEX" ||
          std::string_view(node.attribute("sharing_policy").value()) == "FULLDUPLEX")
        source_.fail(node, fmt::format("link {}: state_file: SimGrid 3.32 aborts on the state profile of a SPLITDUPLEX "
                                       "link; give a state_file to SHARED or FATPIPE links",
                                       link.name));
      add_profile(node, link.name, ProfileOf::LinkState,
                  read_profile_file(node, "link " + link.name, "state_file", ProfileKind::State));
    }
    for (const auto& [attribute, kind] : {std::pair{"bandwidth_file", ProfileKind::Bandwidth},
                                          std::pair{"latency_file", ProfileKind::Latency}})
      if (!node.attribute(attribute).empty())
        read_profile_file(node, fmt::format("link {}", link.name), attribute, kind);
    link.sharing_policy = node.attribute("sharing_policy").as_string("SHARED");
    if (link.sharing_policy == "FULLDUPLEX") link.sharing_policy = "SPLITDUPLEX";  // SimGrid's old spelling
    if (link.sharing_policy == "WIFI")
      source_.fail(node, fmt::format("link {}: sharing_policy WIFI: pipegrid does not simulate Wi-Fi links (their rate "
                                     "depends on each station's)",
                                     link.name));
    if (link.sharing_policy != "SHARED" && link.sharing_policy != "SPLITDUPLEX" && link.sharing_policy != "FATPIPE")
      source_.fail(node, fmt::format("link {}: sharing_policy must be SHARED, SPLITDUPLEX or FATPIPE, got {}",
                                     link.name, link.sharing_policy));
    add_link(node, std::move(link));
  }

  void read_route(const pugi::xml_node& node, int zone) {
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
    facts_.routes.push_back(std::move(route));
  }

  std::vector<LinkUse> link_uses(const pugi::xml_node& node, const std::string& what) const {
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

  bool zone_within(int zone, int ancestor) const {
    for (; zone >= 0; zone = zone_parent_[zone])
      if (zone == ancestor) return true;
    return false;
  }

  // <zoneRoute src dst gw_src gw_dst> (<ASroute> is its old name; the bypass forms the same) between
  // two zones of this zone, through a netpoint of each; <bypassRoute src dst> between two netpoints.
  // Which routes SimGrid then finds is asked of SimGrid itself (PlatformFacts::routes_declared).
  void read_zone_route(const pugi::xml_node& node, int zone) {
    const std::string element = node.name();
    const std::string src = node.attribute("src").value(), dst = node.attribute("dst").value();
    const std::string what = fmt::format("{} {} -> {}", element, src, dst);
    if (element == "bypassRoute") {
      for (const std::string& end : {src, dst})
        if (!netpoint_lines_.contains(end)) source_.fail(node, fmt::format("{}: no host or router {}", what, end));
      link_uses(node, what);
      return;
    }
    for (const auto& [end, gateway_attribute] : {std::pair{src, "gw_src"}, std::pair{dst, "gw_dst"}}) {
      const auto found = zone_index_.find(end);
      if (found == zone_index_.end() || zone_parent_[found->second] != zone)
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
      declare_once(node, src, dst, what);
      if (symmetrical == "YES" || symmetrical == "yes") declare_once(node, dst, src, what);
    }
    link_uses(node, what);
  }

  // <host_link id up down> of a Cluster zone: the host's own links to the zone's backbone.
  void read_host_link(const pugi::xml_node& node) const {
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
  void declare_once(const pugi::xml_node& node, const std::string& from, const std::string& to,
                    const std::string& what) {
    const auto [first, added] = route_lines_.emplace(std::pair(from, to), source_.line_of(node));
    if (!added)
      source_.fail(node, fmt::format("{}: a route from {} to {} is already declared at line {}", what, from, to,
                                     first->second));
  }

  const SourceText& source_;
  PlatformFacts& facts_;
  std::vector<std::pair<pugi::xml_node, int>> route_nodes_;  // with their zone
  std::vector<std::pair<pugi::xml_node, int>> zone_route_nodes_;
  std::vector<pugi::xml_node> host_link_nodes_;
  std::vector<HostRecord> hosts_;  // in file order, GPUs or not
  std::map<std::string, std::string> traces_;                 // <trace> id → its profile text
  std::vector<std::pair<pugi::xml_node, std::string>> connected_hosts_;  // by <trace_connect>, checked at the end
  std::map<std::string, int> netpoint_lines_;
  std::map<std::string, int> zone_lines_;
  std::unordered_map<std::string, int> zone_index_;
  std::vector<int> zone_parent_;  // per zone, -1 for the outermost
  std::map<std::string, int> link_lines_;
  std::map<std::pair<std::string, std::string>, int> route_lines_;
};

}  // namespace

const LinkFacts* PlatformFacts::find_link(std::string_view name) const {
  const auto it = link_index.find(std::string(name));
  return it == link_index.end() ? nullptr : &links[it->second];
}

const GpuHost* PlatformFacts::find_gpu(std::string_view name) const {
  const auto it = gpu_index.find(std::string(name));
  return it == gpu_index.end() ? nullptr : &gpus[it->second];
}

bool PlatformFacts::has_profile(std::string_view resource, ProfileOf of) const {
  return std::any_of(resource_profiles.begin(), resource_profiles.end(),
                     [&](const ResourceProfile& p) { return p.resource == resource && p.of == of; });
}

bool PlatformFacts::has_host(std::string_view name) const {
  return find_gpu(name) || std::find(other_hosts.begin(), other_hosts.end(), name) != other_hosts.end();
}

PlatformFacts read_platform(const std::string& path) {
  std::error_code error;
  if (std::filesystem::exists(path, error) && !std::filesystem::is_regular_file(path, error))
    throw InputError(fmt::format("{}: not a regular file (SimGrid reads the platform file a second time)", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open the file", path));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return read_platform_text(path, buffer.str());
}

PlatformFacts read_platform_text(const std::string& path, std::string text) {
  const SourceText source(path, std::move(text));

  pugi::xml_document document;
  const pugi::xml_parse_result parsed = document.load_buffer(source.text().data(), source.text().size());
  if (!parsed)
    throw InputError(fmt::format("{}:{}: malformed XML: {}", path, source.line_at(parsed.offset), parsed.description()));
  const pugi::xml_node root = document.document_element();
  const std::string version = root.attribute("version").value();
  if (std::string_view(root.name()) != "platform" || version != "4.1")
    source.fail(root, fmt::format(R"(the root element must be <platform version="4.1">, got <{} version="{}">)",
                                  root.name(), version));

  PlatformFacts facts;
  facts.path = path;
  Reader(source, facts).read_platform(root);
  if (facts.gpus.empty())
    throw InputError(fmt::format(
        R"({}: no GPU hosts: a GPU is a host with <prop id="role" value="gpu"/> (or any host, when none has that prop))",
        path));
  facts.network_model = sim::kDefaultNetworkModel;
  facts.network_model_defaulted = true;
  for (const auto& [id, value] : facts.config)
    if (id == "network/model") facts.network_model = value, facts.network_model_defaulted = false;
  log_platform(facts);
  return facts;
}

}  // namespace pipegrid::platform
