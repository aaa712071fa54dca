// A cluster to generate: a preset, the number of nodes, and what `pipegrid platform gen` changed.
#pragma once

#include <optional>
#include <string>

#include "sim/platform/presets.h"

namespace pipegrid::platform {

/// The options of `pipegrid platform gen` as given; an absent one keeps the preset's value.
/// Bandwidths stay text until make_cluster_spec reads their units, so errors can quote them.
struct ClusterOptions {
  std::string preset;
  long nodes = 0;
  std::optional<std::string> nvlink_bandwidth;  // "300GBps", "2400Gbps" or bytes/s
  std::optional<std::string> ib_bandwidth;
  std::optional<long> nics_per_node;
  std::optional<double> oversubscription;
  std::optional<long> nodes_per_leaf;
};

/// A checked cluster: `hardware` is the preset with the options applied. Nodes are numbered from 0
/// and grouped in order into leaf groups of hardware.nodes_per_leaf (the last may hold fewer). Every
/// leaf group has one leaf switch per rail; GPU g uses NIC (rail) g / (8 / nics_per_node).
struct ClusterSpec {
  Preset hardware;
  int nodes = 0;
  double oversubscription = 1;  // a leaf's downlink capacity over its uplink capacity; 1 = non-blocking

  int leaf_groups() const { return (nodes + hardware.nodes_per_leaf - 1) / hardware.nodes_per_leaf; }
  int leaf_group_of_node(int node) const { return node / hardware.nodes_per_leaf; }
  int nodes_in_leaf_group(int group) const;
  int nic_of_gpu(int gpu) const { return gpu / (kGpusPerNode / hardware.nics_per_node); }
  /// One leaf's uplink to the spine layer, per direction: its nodes' ports over the oversubscription.
  double uplink_bandwidth(int group) const;
};

/// Applies and checks the options. InputError, one line naming the flag: "--nodes 0: must be at least
/// 1", "--nics-per-node 3: must divide the 8 GPUs of a node (1, 2, 4 or 8)", "--oversubscription 0.5:
/// must be a finite ratio of at least 1 (1 = non-blocking)", "--ib-bw 0GBps: must be a positive
/// bandwidth such as 25GBps, 200Gbps or bytes per second", "--nodes-per-leaf 0: must be at least 1".
ClusterSpec make_cluster_spec(const ClusterOptions& options);

}  // namespace pipegrid::platform
