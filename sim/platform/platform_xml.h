// Writes a cluster as a SimGrid platform file (DTD 4.1): what `pipegrid platform gen` prints.
#pragma once

#include <iosfwd>
#include <string>

#include "sim/platform/cluster_spec.h"

namespace pipegrid::platform {

/// The command line that makes `spec`: the preset, the nodes and every option that differs from the
/// preset, e.g. "pipegrid platform gen --preset dgx-a100 --nodes 2 --oversubscription 2".
std::string gen_command(const ClusterSpec& spec);

/// With spec.zones Flat (the default): one zone routed DijkstraCache whose routes join adjacent
/// netpoints only, their link counts chosen so that SimGrid's shortest paths are unique and the ones the
/// hardware takes (platforms/README.md, "The topology, and why it is written this way"). With PerNode: a
/// zone per node and per leaf group, every route written out (node_zones_xml.cc). The same spec gives
/// the same text, byte for byte: one element per line, a route per line, grouped per node.
void write_platform_xml(std::ostream& out, const ClusterSpec& spec);
std::string platform_xml(const ClusterSpec& spec);

}  // namespace pipegrid::platform
