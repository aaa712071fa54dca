// A cluster to generate: a preset, the number of nodes, and what `pipegrid platform gen` changed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/named.h"
#include "sim/platform/presets.h"

namespace pipegrid::platform {

/// How the generated file groups the cluster into SimGrid zones (platform_xml.h).
enum class ZoneLayout {
  Flat,     // one zone, DijkstraCache routing: SimGrid finds every route
  PerNode,  // a zone per node and per leaf group, joined by <zoneRoute>s: every route written out
};
inline constexpr Named<ZoneLayout> kZoneLayouts[] = {{"flat", ZoneLayout::Flat}, {"per-node", ZoneLayout::PerNode}};

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
  std::optional<ZoneLayout> zones;
};

/// A checked cluster: `hardware` is the preset with the options applied. Nodes are numbered from 0
/// and grouped in order into leaf groups of hardware.nodes_per_leaf (the last may hold fewer). Every
/// leaf group has one leaf switch per rail; GPU g uses NIC (rail) g / (8 / nics_per_node).
struct ClusterSpec {
  Preset hardware;
  int nodes = 0;
  double oversubscription = 1;  // a leaf's downlink capacity over its uplink capacity; 1 = non-blocking
  ZoneLayout zones = ZoneLayout::Flat;

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
/// bandwidth such as 25GBps, 200Gbps or bytes per second", "--nodes-per-leaf 0: must be at least 1",
/// "--zones per-node: needs --nics-per-node 1 …" (a zone has one gateway per zoneRoute).
ClusterSpec make_cluster_spec(const ClusterOptions& options);

/// The options given that change nothing on this cluster, one line each, naming the flag and why:
/// on one node every route between GPUs stays on NVLink ("--ib-bw 12.5GBps: no effect: one node: its
/// GPUs talk over NVLink only"); with one leaf group no route reaches the spine ("--oversubscription 4:
/// no effect: no spine: all 2 nodes fit one leaf group of 32"), and --nodes-per-leaf changes nothing
/// when the preset's own value also puts every node under one leaf.
std::vector<std::string> no_effect_options(const ClusterOptions& options, const ClusterSpec& spec);

}  // namespace pipegrid::platform
