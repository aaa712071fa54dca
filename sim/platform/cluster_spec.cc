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
  return spec;
}

}  // namespace pipegrid::platform
