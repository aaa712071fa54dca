// Writes a cluster as a SimGrid platform file (DTD 4.1): what `pipegrid platform gen` prints.
#pragma once

#include <iosfwd>
#include <string>

#include "sim/platform/cluster_spec.h"

namespace pipegrid::platform {

/// The command line that makes `spec`: the preset, the nodes and every option that differs from the
/// preset, e.g. "pipegrid platform gen --preset dgx-a100 --nodes 2 --oversubscription 2".
std::string gen_command(const ClusterSpec& spec);

/// With spec.zones Flat (the default): one flat zone, routing DijkstraCache, in which routes join adjacent netpoints only and SimGrid's
/// Dijkstra, which weighs a route by its number of links, finds every other path:
///   - hosts node{n}-gpu{g} (speed = the GPU's peak; props role=gpu, node, gpu, memory in bytes,
///     gpu_model); routers node{n}-nvswitch, leaf{u}-rail{k} (one per leaf group u and rail k), spine;
///   - links node{n}-gpu{g}-nvlink and -pcie, node{n}-nvswitch (the crossbar), node{n}-nic{k}-pcie
///     and -ib, leaf{u}-rail{k}-up (the leaf's uplink to the spine layer), all SPLITDUPLEX;
///   - routes, each symmetrical, links UP in the direction declared: GPU to its NVSwitch
///     [nvlink, nvswitch] (2 links), GPU to its rail's leaf [GPU pcie, NIC pcie, ib] (3), leaf to
///     spine [up] (1). Shortest paths are then unique and physical, and cross each link once:
///     NVLink inside a node (4, against 6 through a NIC two GPUs share), the leaf alone between
///     nodes on one rail and leaf group (6), the spine otherwise (8); a path through another GPU
///     always costs more.
/// With spec.zones PerNode: the same hosts and links in a zone per node and per leaf group, every route
/// written out (node_zones_xml.cc).
/// The text is the same, byte for byte, for the same spec: one element per line, a route per line,
/// grouped per node.
void write_platform_xml(std::ostream& out, const ClusterSpec& spec);
std::string platform_xml(const ClusterSpec& spec);

}  // namespace pipegrid::platform
