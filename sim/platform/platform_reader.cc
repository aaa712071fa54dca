#include "sim/platform/platform_reader.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

#include "common/input_error.h"
#include "sim/platform/cluster_reader.h"
#include "sim/platform/platform_log.h"
#include "sim/platform/platform_reader_parts.h"
#include "sim/platform/quantity_check.h"
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

}  // namespace

void Reader::read_platform(const pugi::xml_node& platform) {
  bool zones_seen = false;
  for (const pugi::xml_node& child : platform.children()) {
    const std::string_view name = child.name();
    if (name == "config") {
      // SimGrid's parser refuses a <config> once the platform has begun.
      if (zones_seen) source_.fail(child, "<config> must come before the zones");
      read_config(child);
    } else if (name == "zone" || name == "AS") {
      zones_seen = true;
      read_zone(child, -1, 1);
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

// A routing SimGrid 3.32 accepts, spelled as SimGrid's list does.
std::string Reader::check_routing(const pugi::xml_node& zone) {
  const std::string routing = zone.attribute("routing").value();
  for (const auto* list : {&kDeclaredRoutings, &kOtherRoutings})
    for (std::string_view known : *list)
      if (same_word(routing, known)) return std::string(known);
  source_.fail(zone, fmt::format("zone {}: routing must be Full, Floyd, Dijkstra, DijkstraCache, Cluster, None, "
                                 "Vivaldi or Wifi, got {}",
                                 zone.attribute("id").value(), routing.empty() ? "nothing" : routing));
}

int Reader::add_zone(const pugi::xml_node& node, const std::string& id, const std::string& routing, int parent) {
  if (id.empty()) source_.fail(node, fmt::format("<{}> needs an id", node.name()));
  check_unique_id(node, id);
  zone_lines_.emplace(id, source_.line_of(node));
  if (facts_.routing.empty()) facts_.routing = routing;
  const int index = static_cast<int>(facts_.zones.size());
  facts_.zones.push_back({id, routing, source_.line_of(node), parent, {}, false});
  zone_index_.emplace(id, index);
  return index;
}

// Checked before going one zone deeper, so that the reader's own recursion is bounded too.
void Reader::check_depth(const pugi::xml_node& zone, int depth) const {
  if (depth > kMaxZoneDepth)
    source_.fail(zone, fmt::format("<{} id=\"{}\">: zones nest more than {} deep; SimGrid 3.32's parser corrupts its "
                                   "memory on deep nesting (platforms/README.md)",
                                   zone.name(), zone.attribute("id").value(), kMaxZoneDepth));
}

// `depth` counts the zones from the outermost (1) to this one.
void Reader::read_zone(const pugi::xml_node& zone, int parent, int depth) {
  const std::string routing = check_routing(zone);
  if (std::find(std::begin(kDeclaredRoutings), std::end(kDeclaredRoutings), routing) == std::end(kDeclaredRoutings))
    facts_.routes_declared = false;
  const int index = add_zone(zone, zone.attribute("id").value(), routing, parent);
  for (const pugi::xml_node& child : zone.children()) {
    const std::string_view name = child.name();
    if (name == "zone" || name == "AS") check_depth(child, depth + 1), read_zone(child, index, depth + 1);
    else if (name == "cluster") check_depth(child, depth + 1), read_cluster(child, index);
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
void Reader::need_cluster_routing(const pugi::xml_node& node, const std::string& routing) const {
  if (routing != "Cluster")
    source_.fail(node, fmt::format("<{}> belongs in a zone routed Cluster, not {}", node.name(), routing));
}

void Reader::read_cluster(const pugi::xml_node& node, int parent) {
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

void Reader::read_cabinet(const pugi::xml_node& node, int zone, const std::string& routing) {
  need_cluster_routing(node, routing);
  ExpandedCluster expanded = expand_cabinet(source_, node);
  for (HostRecord& host : expanded.hosts) {
    add_netpoint_named(node, host.name, zone, false);
    hosts_.push_back(std::move(host));
  }
  for (LinkFacts& link : expanded.links) add_link(node, std::move(link));
}

// <backbone id bandwidth latency>: a SHARED link of a Cluster zone.
void Reader::read_backbone(const pugi::xml_node& node, const std::string& routing) {
  need_cluster_routing(node, routing);
  LinkFacts link = read_link_rates(node, "backbone");
  link.sharing_policy = "SHARED";
  add_link(node, std::move(link));
}

void Reader::refuse(const pugi::xml_node& node) const {
  source_.fail(node, fmt::format("<{}> is not read by pipegrid: declare hosts, routers, links and routes "
                                 "in zones, or clusters (platforms/README.md)",
                                 node.name()));
}

std::string Reader::id_of(const pugi::xml_node& node) const {
  const std::string id = node.attribute("id").value();
  if (id.empty()) source_.fail(node, fmt::format("<{}> needs an id", node.name()));
  return id;
}

// Zones are netpoints too: SimGrid refuses a host, router or zone named as another.
void Reader::check_unique_id(const pugi::xml_node& node, const std::string& id) const {
  for (const auto* lines : {&netpoint_lines_, &zone_lines_})
    if (const auto first = lines->find(id); first != lines->end())
      source_.fail(node, fmt::format("duplicate id {}, first declared at line {}", id, first->second));
}

void Reader::add_netpoint_named(const pugi::xml_node& node, const std::string& id, int zone, bool router) {
  check_unique_id(node, id);
  netpoint_lines_.emplace(id, source_.line_of(node));
  if (router) facts_.routers.push_back(id);
  facts_.zone_of_netpoint.emplace(id, zone);
}

std::string Reader::add_netpoint(const pugi::xml_node& node, int zone) {
  const std::string id = id_of(node);
  add_netpoint_named(node, id, zone, std::string_view(node.name()) == "router");
  return id;
}

void Reader::read_host(const pugi::xml_node& node, int zone) {
  const std::string id = add_netpoint(node, zone);
  HostRecord host{id, first_pstate_speed(source_, node, fmt::format("host {}: speed", id), node.attribute("speed").value()),
                  {}, source_.line_of(node), -1, 0};
  // availability_file is SimGrid's old name of speed_file: a factor of the peak speed.
  for (const char* profile : {"speed_file", "availability_file", "state_file"})
    if (!node.attribute(profile).empty()) {
      const bool state = std::string_view(profile) == "state_file";
      add_profile(node, id, state ? ProfileOf::HostState : ProfileOf::HostSpeed,
                  read_profile_file(node, "host " + id, profile, state ? ProfileKind::State : ProfileKind::Speed),
                  fmt::format("{} {}", profile, node.attribute(profile).value()));
    }
  for (const pugi::xml_node& prop : node.children("prop"))
    host.props[prop.attribute("id").value()] = {prop.attribute("value").value(), source_.line_of(prop)};
  hosts_.push_back(std::move(host));
}

void Reader::add_link(const pugi::xml_node& node, LinkFacts link) {
  const auto [first, added] = link_lines_.emplace(link.name, source_.line_of(node));
  if (!added)
    source_.fail(node, fmt::format("duplicate id {}, first declared at line {}", link.name, first->second));
  facts_.link_index.emplace(link.name, facts_.links.size());
  facts_.links.push_back(std::move(link));
}

// The id, line, bandwidth and latency of a <link> or <backbone> (`element`, which its errors name).
LinkFacts Reader::read_link_rates(const pugi::xml_node& node, std::string_view element) {
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

void Reader::read_link(const pugi::xml_node& node) {
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
                read_profile_file(node, "link " + link.name, "state_file", ProfileKind::State),
                fmt::format("state_file {}", node.attribute("state_file").value()));
  }
  if (!node.attribute("bandwidth_file").empty())
    add_profile(node, link.name, ProfileOf::LinkBandwidth,
                read_profile_file(node, "link " + link.name, "bandwidth_file", ProfileKind::Bandwidth),
                fmt::format("bandwidth_file {}", node.attribute("bandwidth_file").value()));
  if (!node.attribute("latency_file").empty()) {
    read_profile_file(node, "link " + link.name, "latency_file", ProfileKind::Latency);
    // NetworkCm02Link::set_latency adds the change to the sharing penalty of every flow on the link:
    // a flow still paying its latency (penalty 0, not sharing yet) starts sharing early, and one whose
    // penalty falls to 0 stops. Measured: 1 ms to 0 at t = 1.0005 s, inside a 1 ms latency, froze the
    // flow: a false deadlock at t = 2 s.
    source_.fail(node, fmt::format("link {}: latency_file {}: SimGrid 3.32 cannot change a latency under a flow "
                                   "that crosses the link (the flow stalls: a false deadlock); pipegrid refuses "
                                   "latency profiles: give the link the latency it should have",
                                   link.name, node.attribute("latency_file").value()));
  }
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
