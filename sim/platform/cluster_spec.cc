#include "sim/platform/cluster_spec.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "common/input_error.h"
#include "sim/platform/units.h"

namespace pipegrid::platform {

namespace {

// Nodes beyond this would not fit an int's host names and the generator's memory long before that;
// the check keeps the narrowing from long below honest.
constexpr long kMaxNodes = 1'000'000;

double bandwidth_option(const char* flag, const std::string& text) {
  const std::optional<double> bandwidth = parse_bandwidth(text);
  if (!bandwidth || !(*bandwidth > 0) || !std::isfinite(*bandwidth))
    throw InputError(
        fmt::format("{} {}: must be a positive bandwidth such as 25GBps, 200Gbps or bytes per second", flag, text));
  return *bandwidth;
}

int count_option(const char* flag, long value) {
  if (value < 1) throw InputError(fmt::format("{} {}: must be at least 1", flag, value));
  if (value > kMaxNodes) throw InputError(fmt::format("{} {}: must be at most {}", flag, value, kMaxNodes));
  return static_cast<int>(value);
}

}  // namespace

int ClusterSpec::nodes_in_leaf_group(int group) const {
  const int first = group * hardware.nodes_per_leaf;
  return std::min(hardware.nodes_per_leaf, nodes - first);
}

double ClusterSpec::uplink_bandwidth(int group) const {
  return nodes_in_leaf_group(group) * hardware.ib_bandwidth / oversubscription;
}

ClusterSpec make_cluster_spec(const ClusterOptions& options) {
  ClusterSpec spec;
  spec.hardware = find_preset(options.preset);
  Preset& hardware = spec.hardware;
  spec.nodes = count_option("--nodes", options.nodes);
  if (options.nvlink_bandwidth) hardware.nvlink_bandwidth = bandwidth_option("--nvlink-bw", *options.nvlink_bandwidth);
  if (options.ib_bandwidth) hardware.ib_bandwidth = bandwidth_option("--ib-bw", *options.ib_bandwidth);
  if (options.nics_per_node) {
    const long nics = *options.nics_per_node;
    if (nics < 1 || nics > kGpusPerNode || kGpusPerNode % nics != 0)
      throw InputError(fmt::format("--nics-per-node {}: must divide the {} GPUs of a node (1, 2, 4 or 8)", nics,
                                   kGpusPerNode));
    hardware.nics_per_node = static_cast<int>(nics);
  }
  if (options.nodes_per_leaf) hardware.nodes_per_leaf = count_option("--nodes-per-leaf", *options.nodes_per_leaf);
  if (options.oversubscription) {
    const double ratio = *options.oversubscription;
    if (!std::isfinite(ratio) || ratio < 1)
      throw InputError(
          fmt::format("--oversubscription {}: must be a finite ratio of at least 1 (1 = non-blocking)", ratio));
    spec.oversubscription = ratio;
  }
  if (options.zones == ZoneLayout::PerNode) {
    // SimGrid routes between two zones through one gateway pair per <zoneRoute>
    // (NetZoneImpl::get_global_route), so a node's zone has one way out for all its GPUs; a
    // rail-optimised node sends each GPU's traffic through its own NIC.
    if (hardware.nics_per_node != 1)
      throw InputError(fmt::format("--zones per-node: needs --nics-per-node 1 (this cluster has {}): SimGrid routes "
                                   "between two zones through one gateway, and a rail-optimised node sends each "
                                   "GPU's traffic through its own NIC",
                                   hardware.nics_per_node));
    spec.zones = ZoneLayout::PerNode;
  }
  return spec;
}

std::vector<std::string> no_effect_options(const ClusterOptions& options, const ClusterSpec& spec) {
  std::vector<std::string> notes;
  const auto note = [&](const std::string& flag_and_value, const std::string& why) {
    notes.push_back(fmt::format("{}: no effect: {}", flag_and_value, why));
  };
  if (spec.nodes == 1) {
    // The generator's routes (platform_xml.h): NVLink joins two GPUs of a node in 4 links, a NIC in 6,
    // so SimGrid's shortest paths inside a node never leave it.
    const std::string why = "one node: its GPUs talk over NVLink only";
    if (options.ib_bandwidth) note("--ib-bw " + *options.ib_bandwidth, why);
    if (options.nics_per_node) note(fmt::format("--nics-per-node {}", *options.nics_per_node), why);
    if (options.oversubscription && *options.oversubscription != 1)
      note(fmt::format("--oversubscription {}", *options.oversubscription), why);
    if (options.nodes_per_leaf) note(fmt::format("--nodes-per-leaf {}", *options.nodes_per_leaf), why);
    return notes;
  }
  if (spec.leaf_groups() > 1) return notes;
  if (options.oversubscription && *options.oversubscription != 1)
    note(fmt::format("--oversubscription {}", *options.oversubscription),
         fmt::format("no spine: all {} nodes fit one leaf group of {}", spec.nodes, spec.hardware.nodes_per_leaf));
  const int preset_per_leaf = find_preset(options.preset).nodes_per_leaf;
  if (options.nodes_per_leaf && spec.nodes <= preset_per_leaf)
    note(fmt::format("--nodes-per-leaf {}", *options.nodes_per_leaf),
         fmt::format("all {} nodes fit one leaf group with it and with the preset's {}", spec.nodes, preset_per_leaf));
  return notes;
}

}  // namespace pipegrid::platform
