#include "sim/platform/cluster_reader.h"

#include <algorithm>
#include <charconv>

#include "sim/platform/cluster_topology.h"
#include "sim/platform/quantity_check.h"
#include "sim/platform/units.h"

namespace pipegrid::platform {

namespace {

// The attributes the DTD requires (simgrid.dtd: #REQUIRED); SimGrid's parser stops on a missing one.
std::string required(const SourceText& source, const pugi::xml_node& node, const std::string& what,
                     const char* attribute) {
  const pugi::xml_attribute value = node.attribute(attribute);
  if (!value) source.fail(node, fmt::format("{}: needs attribute {}", what, attribute));
  return value.value();
}

std::vector<int> radicals_of(const SourceText& source, const pugi::xml_node& node, const std::string& what) {
  const std::string text = required(source, node, what, "radical");
  const auto radicals = parse_radical(text);
  if (!radicals)
    source.fail(node, fmt::format("{}: radical must be integers and ranges such as 0-15 or 0-3,8-11, got {}", what,
                                  text.empty() ? "nothing" : text));
  if (radicals->empty()) source.fail(node, fmt::format("{}: radical {} names no host", what, text));
  return *radicals;
}

// An optional bandwidth (bb_bw, limiter_link, loopback_bw): 0 when absent or empty, as SimGrid keeps it.
double optional_bandwidth(const SourceText& source, const pugi::xml_node& node, const std::string& what,
                          const char* attribute) {
  const std::string text = node.attribute(attribute).value();
  if (text.empty()) return 0;
  return positive_quantity(source, node, fmt::format("{}: {}", what, attribute), text, parse_bandwidth(text),
                           "25GBps or 200Gbps");
}

double optional_latency(const SourceText& source, const pugi::xml_node& node, const std::string& what,
                        const char* attribute) {
  const std::string text = node.attribute(attribute).value();
  return text.empty() ? 0 : latency_value(source, node, fmt::format("{}: {}", what, attribute), text);
}

std::string choice(const SourceText& source, const pugi::xml_node& node, const std::string& what, const char* attribute,
                   const char* fallback, std::initializer_list<std::string_view> allowed) {
  const std::string value = node.attribute(attribute).as_string(fallback);
  if (std::find(allowed.begin(), allowed.end(), value) != allowed.end()) return value;
  std::string names;
  for (std::string_view name : allowed) names += (names.empty() ? "" : ", ") + std::string(name);
  source.fail(node, fmt::format("{}: {} must be one of {}, got {}", what, attribute, names, value));
}

}  // namespace

ExpandedCluster expand_cluster(const SourceText& source, const pugi::xml_node& node) {
  ExpandedCluster out;
  ClusterFacts& c = out.cluster;
  c.id = required(source, node, "<cluster>", "id");
  if (c.id.empty()) source.fail(node, "<cluster> needs an id");
  c.line = source.line_of(node);
  const std::string what = fmt::format("cluster {}", c.id);
  const std::string prefix = required(source, node, what, "prefix"), suffix = required(source, node, what, "suffix");
  const std::vector<int> radicals = radicals_of(source, node, what);
  const double speed = first_pstate_speed(source, node, what + ": speed", required(source, node, what, "speed"));
  const std::string core = node.attribute("core").as_string("1");
  int cores = 0;
  if (const auto [end, error] = std::from_chars(core.data(), core.data() + core.size(), cores);
      error != std::errc() || end != core.data() + core.size() || cores < 1)
    source.fail(node, fmt::format("{}: core must be a positive integer, got {}", what, core));
  // The executor runs SimGrid's CPU model with cpu/optim TI (executor.cc), which refuses hosts of
  // several cores ("Multi-core not handled by this model yet"); a GPU is one host of one core anyway.
  if (cores != 1)
    source.fail(node, fmt::format("{}: core {}: pipegrid runs one rank per host, on SimGrid's CPU model with "
                                  "cpu/optim TI, which takes single-core hosts only; leave core at 1",
                                  what, core));
  const std::string bw_text = required(source, node, what, "bw");
  c.bandwidth = positive_quantity(source, node, what + ": bw", bw_text, parse_bandwidth(bw_text), "25GBps or 200Gbps");
  c.latency = latency_value(source, node, what + ": lat", required(source, node, what, "lat"));
  const std::string policy =
      choice(source, node, what, "sharing_policy", "SPLITDUPLEX", {"SHARED", "SPLITDUPLEX", "FULLDUPLEX", "FATPIPE"});
  c.sharing_policy = policy == "FULLDUPLEX" ? "SPLITDUPLEX" : policy;
  c.topology = choice(source, node, what, "topology", "FLAT", {"FLAT", "TORUS", "FAT_TREE", "DRAGONFLY"});
  c.topo_parameters = node.attribute("topo_parameters").value();
  const double bb_bw = optional_bandwidth(source, node, what, "bb_bw");
  const double bb_lat = optional_latency(source, node, what, "bb_lat");
  const std::string bb_policy = choice(source, node, what, "bb_sharing_policy", "SHARED", {"SHARED", "FATPIPE"});
  const double limiter = optional_bandwidth(source, node, what, "limiter_link");
  const double loopback_bw = optional_bandwidth(source, node, what, "loopback_bw");
  const double loopback_lat = optional_latency(source, node, what, "loopback_lat");
  // SimGrid makes a cluster's backbone, and its loopback links, when either attribute is set, with the
  // bandwidth given or 0: a latency alone made links no transfer gets through (tests/fuzz/platform_xml).
  if (bb_lat > 0 && !(bb_bw > 0))
    source.fail(node, fmt::format("{}: bb_lat without bb_bw: SimGrid would make a backbone of bandwidth 0", what));
  if (loopback_lat > 0 && !(loopback_bw > 0))
    source.fail(node, fmt::format("{}: loopback_lat without loopback_bw: SimGrid would make loopback links of "
                                  "bandwidth 0",
                                  what));
  c.narrowest = c.bandwidth;
  for (double bw : {bb_bw, limiter, loopback_bw})
    if (bw > 0) c.narrowest = std::min(c.narrowest, bw);

  std::map<std::string, PropText> props;
  for (const pugi::xml_node& child : node.children()) {
    if (child.type() != pugi::node_element) continue;
    if (std::string_view(child.name()) != "prop")
      source.fail(child, fmt::format("{}: a <cluster> holds only <prop>s, got <{}>", what, child.name()));
    props[child.attribute("id").value()] = {child.attribute("value").value(), source.line_of(child)};
  }

  std::size_t count = radicals.size();
  if (c.topology != "FLAT") {
    std::string rule;
    const auto hosts = topology_hosts(c.topology, c.topo_parameters, rule);
    if (!hosts) source.fail(node, fmt::format("{}: topo_parameters {}: {}", what, c.topo_parameters, rule));
    if (static_cast<std::size_t>(*hosts) > radicals.size())
      source.fail(node, fmt::format("{}: its {} topology {} makes {} hosts, but radical {} names only {}", what,
                                    c.topology, c.topo_parameters, *hosts, node.attribute("radical").value(),
                                    radicals.size()));
    count = static_cast<std::size_t>(*hosts);
  } else if (!c.topo_parameters.empty()) {
    source.fail(node, fmt::format("{}: topo_parameters belong to a TORUS, FAT_TREE or DRAGONFLY topology", what));
  }
  c.hosts = static_cast<int>(count);
  const std::string link_policy = c.sharing_policy == "SPLITDUPLEX" ? "SPLITDUPLEX" : "SHARED";
  for (std::size_t i = 0; i < count; ++i) {
    const std::string radical = std::to_string(radicals[i]);
    out.hosts.push_back({prefix + radical + suffix, speed, props, c.line, -1, static_cast<int>(i)});
    if (c.topology != "FLAT") continue;
    const std::string link = c.id + "_link_" + radical;
    if (loopback_bw > 0 || loopback_lat > 0) out.links.push_back({link + "_loopback", loopback_bw, loopback_lat, "FATPIPE", c.line});
    if (limiter > 0) out.links.push_back({link + "_limiter", limiter, 0, "SHARED", c.line});
    out.links.push_back({link, c.bandwidth, c.latency, link_policy, c.line});
  }
  if (c.topology == "FLAT") {
    if (bb_bw > 0 || bb_lat > 0) out.links.push_back({c.id + "_backbone", bb_bw, bb_lat, bb_policy, c.line});
    out.router = node.attribute("router_id").value();
    if (out.router.empty()) out.router = prefix + c.id + "_router" + suffix;
  }
  return out;
}

ExpandedCluster expand_cabinet(const SourceText& source, const pugi::xml_node& node) {
  ExpandedCluster out;
  const std::string id = required(source, node, "<cabinet>", "id");
  const std::string what = fmt::format("cabinet {}", id);
  const std::string prefix = required(source, node, what, "prefix"), suffix = required(source, node, what, "suffix");
  const std::vector<int> radicals = radicals_of(source, node, what);
  const std::string speed_text = required(source, node, what, "speed");
  const double speed = positive_quantity(source, node, what + ": speed", speed_text, parse_speed(speed_text), "312Tf");
  const std::string bw_text = required(source, node, what, "bw");
  const double bw = positive_quantity(source, node, what + ": bw", bw_text, parse_bandwidth(bw_text), "25GBps");
  const double lat = latency_value(source, node, what + ": lat", required(source, node, what, "lat"));
  const int line = source.line_of(node);
  for (std::size_t i = 0; i < radicals.size(); ++i) {
    const std::string host = prefix + std::to_string(radicals[i]) + suffix;
    out.hosts.push_back({host, speed, {}, line, -1, static_cast<int>(i)});
    out.links.push_back({"link_" + host + "_UP", bw, lat, "SHARED", line});
    out.links.push_back({"link_" + host + "_DOWN", bw, lat, "SHARED", line});
  }
  return out;
}

}  // namespace pipegrid::platform
