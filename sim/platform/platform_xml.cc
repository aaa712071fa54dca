#include "sim/platform/platform_xml.h"

#include <fmt/format.h>
#include <iterator>
#include <ostream>

#include "sim/platform/names.h"
#include "sim/platform/platform_xml_parts.h"
#include "sim/platform/units.h"

namespace pipegrid::platform {

namespace {

// The network model, stated in the file so that every run of it uses the same one. SimGrid's
// default, LV08, multiplies latency by 13.01 and bandwidth by 0.97, and SimGrid adds reverse
// cross-traffic by default: calibrations of TCP, not of NVLink or RDMA. CM02 without them gives a
// transfer alone on its route latency + bytes / bandwidth. weight-S 0 keeps bandwidths out of the
// sharing penalties; TCP-gamma 0 lifts CM02's TCP-window bound (rate ≤ γ / 2·latency).
constexpr const char* kNetworkConfig[][2] = {
    {"network/model", "CM02"},        {"network/crosstraffic", "0"}, {"network/latency-factor", "1.0"},
    {"network/bandwidth-factor", "1.0"}, {"network/weight-S", "0"},   {"network/TCP-gamma", "0"},
};

}  // namespace

std::string link_element(const std::string& id, double bandwidth, double latency, const char* policy) {
  return fmt::format(R"(<link id="{}" bandwidth="{}" latency="{}" sharing_policy="{}"/>)", id,
                     format_bandwidth(bandwidth), format_time(latency), policy);
}

std::string up(const std::string& link) { return fmt::format(R"(<link_ctn id="{}" direction="UP"/>)", link); }
std::string down(const std::string& link) { return fmt::format(R"(<link_ctn id="{}" direction="DOWN"/>)", link); }

void write_preamble(XmlText& xml, const ClusterSpec& spec, std::string_view routing) {
  const Preset& hw = spec.hardware;
  xml.line(0, "<?xml version='1.0'?>");
  xml.line(0, R"(<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">)");
  // The command goes in a property, not here: a comment may not hold "--" (XML 1.0, section 2.5).
  xml.line(0, "<!-- Written by pipegrid platform gen (the cluster zone's generated_by property is the command):");
  xml.line(0, "     {} nodes of 8 {} ({} bf16, {} bytes), NVLink {} per GPU and direction, PCIe {},", spec.nodes,
           hw.gpu_model, format_speed(hw.gpu_speed), hw.gpu_memory, format_bandwidth(hw.nvlink_bandwidth),
           format_bandwidth(hw.pcie_bandwidth));
  xml.line(0, "     {} InfiniBand ports of {} per node, {} nodes per leaf group, oversubscription {}.",
           hw.nics_per_node, format_bandwidth(hw.ib_bandwidth), hw.nodes_per_leaf, spec.oversubscription);
  xml.line(0, "     platforms/README.md gives the sources of these numbers and how to edit this file. -->");
  xml.line(0, R"(<platform version="4.1">)");
  xml.line(1, "<config>");
  for (const auto& [id, value] : kNetworkConfig) xml.line(2, R"(<prop id="{}" value="{}"/>)", id, value);
  xml.line(1, "</config>");
  xml.line(1, R"(<zone id="cluster" routing="{}">)", routing);
  xml.line(2, R"(<prop id="generated_by" value="{}"/>)", gen_command(spec));
}

void write_node(XmlText& xml, const ClusterSpec& spec, int node, int depth) {
  const Preset& hw = spec.hardware;
  xml.line(depth, "<!-- node {}: leaf group {} -->", node, spec.leaf_group_of_node(node));
  for (int gpu = 0; gpu < kGpusPerNode; ++gpu) {
    xml.line(depth, R"(<host id="{}" speed="{}">)", gpu_host_name(node, gpu), format_speed(hw.gpu_speed));
    xml.line(depth + 1, R"(<prop id="role" value="gpu"/>)");
    xml.line(depth + 1, R"(<prop id="node" value="{}"/>)", node);
    xml.line(depth + 1, R"(<prop id="gpu" value="{}"/>)", gpu);
    xml.line(depth + 1, R"(<prop id="memory" value="{}"/>)", hw.gpu_memory);
    xml.line(depth + 1, R"(<prop id="gpu_model" value="{}"/>)", hw.gpu_model);
    xml.line(depth, "</host>");
  }
  xml.line(depth, R"(<router id="{}"/>)", nvswitch_router_name(node));
  for (int gpu = 0; gpu < kGpusPerNode; ++gpu)
    xml.line(depth, "{}", link_element(nvlink_name(node, gpu), hw.nvlink_bandwidth, kNvlinkLatency, "SPLITDUPLEX"));
  // The crossbar, in (UP) and out (DOWN): each as wide as all ports together, so it never limits
  // until someone narrows it by hand.
  xml.line(depth, "{}",
           link_element(nvswitch_name(node), kGpusPerNode * hw.nvlink_bandwidth, kNvswitchLatency, "SPLITDUPLEX"));
  for (int gpu = 0; gpu < kGpusPerNode; ++gpu)
    xml.line(depth, "{}", link_element(pcie_name(node, gpu), hw.pcie_bandwidth, kPcieLatency, "SPLITDUPLEX"));
  for (int nic = 0; nic < hw.nics_per_node; ++nic) {
    xml.line(depth, "{}", link_element(nic_pcie_name(node, nic), hw.pcie_bandwidth, kPcieLatency, "SPLITDUPLEX"));
    xml.line(depth, "{}", link_element(ib_name(node, nic), hw.ib_bandwidth, kIbLatency, "SPLITDUPLEX"));
  }
}

namespace {

void write_leaf_group(XmlText& xml, const ClusterSpec& spec, int group) {
  const int first = group * spec.hardware.nodes_per_leaf;
  xml.line(2, "<!-- leaf group {}: nodes {} to {}, one leaf switch per rail -->", group, first,
           first + spec.nodes_in_leaf_group(group) - 1);
  for (int rail = 0; rail < spec.hardware.nics_per_node; ++rail) {
    xml.line(2, R"(<router id="{}"/>)", leaf_router_name(group, rail));
    xml.line(2, "{}", link_element(uplink_name(group, rail), spec.uplink_bandwidth(group), kLeafUplinkLatency,
                                   "SPLITDUPLEX"));
  }
}

void write_node_routes(XmlText& xml, const ClusterSpec& spec, int node) {
  xml.line(2, "<!-- node {} -->", node);
  for (int gpu = 0; gpu < kGpusPerNode; ++gpu)
    xml.line(2, R"(<route src="{}" dst="{}">{}{}</route>)", gpu_host_name(node, gpu), nvswitch_router_name(node),
             up(nvlink_name(node, gpu)), up(nvswitch_name(node)));
  const int group = spec.leaf_group_of_node(node);
  for (int gpu = 0; gpu < kGpusPerNode; ++gpu) {
    const int nic = spec.nic_of_gpu(gpu);
    xml.line(2, R"(<route src="{}" dst="{}">{}{}{}</route>)", gpu_host_name(node, gpu), leaf_router_name(group, nic),
             up(pcie_name(node, gpu)), up(nic_pcie_name(node, nic)), up(ib_name(node, nic)));
  }
}

}  // namespace

std::string gen_command(const ClusterSpec& spec) {
  const Preset& preset = find_preset(spec.hardware.name);
  const Preset& hw = spec.hardware;
  std::string command = fmt::format("pipegrid platform gen --preset {} --nodes {}", hw.name, spec.nodes);
  if (hw.nvlink_bandwidth != preset.nvlink_bandwidth)
    command += " --nvlink-bw " + format_bandwidth(hw.nvlink_bandwidth);
  if (hw.ib_bandwidth != preset.ib_bandwidth) command += " --ib-bw " + format_bandwidth(hw.ib_bandwidth);
  if (hw.nics_per_node != preset.nics_per_node) command += fmt::format(" --nics-per-node {}", hw.nics_per_node);
  if (spec.oversubscription != 1) command += fmt::format(" --oversubscription {}", spec.oversubscription);
  if (hw.nodes_per_leaf != preset.nodes_per_leaf) command += fmt::format(" --nodes-per-leaf {}", hw.nodes_per_leaf);
  if (spec.zones == ZoneLayout::PerNode) command += " --zones per-node";
  return command;
}

std::string platform_xml(const ClusterSpec& spec) {
  if (spec.zones == ZoneLayout::PerNode) return node_zones_xml(spec);
  const Preset& hw = spec.hardware;
  XmlText xml;
  write_preamble(xml, spec, "DijkstraCache");
  for (int node = 0; node < spec.nodes; ++node) write_node(xml, spec, node, 2);
  for (int group = 0; group < spec.leaf_groups(); ++group) write_leaf_group(xml, spec, group);
  xml.line(2, R"(<router id="{}"/>)", kSpineRouterName);
  xml.line(2, "<!-- Routes between adjacent netpoints; SimGrid's Dijkstra finds the rest. -->");
  for (int node = 0; node < spec.nodes; ++node) write_node_routes(xml, spec, node);
  xml.line(2, "<!-- leaf switches to the spine -->");
  for (int group = 0; group < spec.leaf_groups(); ++group)
    for (int rail = 0; rail < hw.nics_per_node; ++rail)
      xml.line(2, R"(<route src="{}" dst="{}">{}</route>)", leaf_router_name(group, rail), kSpineRouterName,
               up(uplink_name(group, rail)));
  xml.line(1, "</zone>");
  xml.line(0, "</platform>");
  return std::move(xml.text());
}

void write_platform_xml(std::ostream& out, const ClusterSpec& spec) { out << platform_xml(spec); }

}  // namespace pipegrid::platform
