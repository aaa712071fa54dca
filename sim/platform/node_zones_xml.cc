// The per-node layout of a generated cluster (platforms/README.md, "Zones: flat or per node"). SimGrid
// 3.32 resolves a route between zones as the way to the source zone's gateway, the <zoneRoute>'s links
// and the way from the destination's gateway (NetZoneImpl::get_global_route), so every route here is
// written out, per node or per pair of zones, and none is searched; each crosses the links of the flat
// file's shortest path in the same order, so both give SimGrid the same network.
#include <fmt/format.h>

#include "sim/platform/names.h"
#include "sim/platform/platform_xml_parts.h"

namespace pipegrid::platform {

namespace {

std::string nic_router_name(int node) { return fmt::format("node{}-nic0", node); }
std::string node_zone_name(int node) { return fmt::format("node{}", node); }
std::string group_zone_name(int group) { return fmt::format("group{}", group); }
std::string leaf_zone_name(int group) { return fmt::format("leaf{}", group); }

void write_node_zone(XmlText& xml, const ClusterSpec& spec, int node) {
  xml.line(3, R"(<zone id="{}" routing="Full">)", node_zone_name(node));
  write_node(xml, spec, node, 4);
  xml.line(4, R"(<router id="{}"/>)", nic_router_name(node));
  for (int a = 0; a < kGpusPerNode; ++a)
    for (int b = a + 1; b < kGpusPerNode; ++b)
      xml.line(4, R"(<route src="{}" dst="{}">{}{}{}{}</route>)", gpu_host_name(node, a), gpu_host_name(node, b),
               up(nvlink_name(node, a)), up(nvswitch_name(node)), down(nvswitch_name(node)), down(nvlink_name(node, b)));
  for (int gpu = 0; gpu < kGpusPerNode; ++gpu)
    xml.line(4, R"(<route src="{}" dst="{}">{}{}</route>)", gpu_host_name(node, gpu), nic_router_name(node),
             up(pcie_name(node, gpu)), up(nic_pcie_name(node, 0)));
  xml.line(3, "</zone>");
}

void write_group_zone(XmlText& xml, const ClusterSpec& spec, int group) {
  const int first = group * spec.hardware.nodes_per_leaf, count = spec.nodes_in_leaf_group(group);
  xml.line(2, R"(<zone id="{}" routing="Full">)", group_zone_name(group));
  for (int node = first; node < first + count; ++node) write_node_zone(xml, spec, node);
  xml.line(3, R"(<zone id="{}" routing="Full">)", leaf_zone_name(group));
  xml.line(4, R"(<router id="{}"/>)", leaf_router_name(group, 0));
  xml.line(3, "</zone>");
  for (int a = first; a < first + count; ++a) {
    for (int b = a + 1; b < first + count; ++b)
      xml.line(3, R"(<zoneRoute src="{}" dst="{}" gw_src="{}" gw_dst="{}">{}{}</zoneRoute>)", node_zone_name(a),
               node_zone_name(b), nic_router_name(a), nic_router_name(b), up(ib_name(a, 0)), down(ib_name(b, 0)));
    xml.line(3, R"(<zoneRoute src="{}" dst="{}" gw_src="{}" gw_dst="{}">{}</zoneRoute>)", node_zone_name(a),
             leaf_zone_name(group), nic_router_name(a), leaf_router_name(group, 0), up(ib_name(a, 0)));
  }
  xml.line(2, "</zone>");
}

}  // namespace

std::string node_zones_xml(const ClusterSpec& spec) {
  XmlText xml;
  write_preamble(xml, spec, "Full");
  for (int group = 0; group < spec.leaf_groups(); ++group) write_group_zone(xml, spec, group);
  for (int group = 0; group < spec.leaf_groups(); ++group)
    xml.line(2, "{}", link_element(uplink_name(group, 0), spec.uplink_bandwidth(group), kLeafUplinkLatency,
                                   "SPLITDUPLEX"));
  for (int a = 0; a < spec.leaf_groups(); ++a)
    for (int b = a + 1; b < spec.leaf_groups(); ++b)
      xml.line(2, R"(<zoneRoute src="{}" dst="{}" gw_src="{}" gw_dst="{}">{}{}</zoneRoute>)", group_zone_name(a),
               group_zone_name(b), leaf_router_name(a, 0), leaf_router_name(b, 0), up(uplink_name(a, 0)),
               down(uplink_name(b, 0)));
  xml.line(1, "</zone>");
  xml.line(0, "</platform>");
  return std::move(xml.text());
}

}  // namespace pipegrid::platform
