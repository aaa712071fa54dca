// A <cluster> or <cabinet> expanded into the hosts and links SimGrid 3.32 makes of it
// (src/surf/sg_platf.cpp: sg_platf_new_cluster_flat, sg_platf_new_cluster_hierarchical,
// sg_platf_build_cabinet), with every attribute checked as SimGrid reads it.
#pragma once

#include <string>
#include <vector>

#include "sim/platform/gpu_inference.h"
#include "sim/platform/platform_facts.h"
#include "sim/platform/source_text.h"

namespace pipegrid::platform {

struct ExpandedCluster {
  ClusterFacts cluster;
  std::vector<HostRecord> hosts;  // PREFIX RADICAL SUFFIX, in SimGrid's order; `cluster` left -1
  std::vector<LinkFacts> links;   // what a FLAT cluster or a cabinet makes; none for hierarchical ones
  std::string router;             // a FLAT cluster's router; "" otherwise
};

/// A FLAT cluster makes, per radical R: host PREFIX R SUFFIX with the cluster's props, link ID_link_R
/// (SPLITDUPLEX when sharing_policy is SPLITDUPLEX or FULLDUPLEX, else SHARED: SimGrid sets no other
/// policy on it), ID_link_R_loopback (FATPIPE) when loopback_bw or loopback_lat is set, ID_link_R_limiter
/// when limiter_link is; then ID_backbone (bb_sharing_policy) when bb_bw or bb_lat is set, and the
/// router router_id or PREFIX ID_router SUFFIX. A FAT_TREE, TORUS or DRAGONFLY cluster makes its
/// topology's hosts (cluster_topology.h) from the first radicals; its links are SimGrid's.
ExpandedCluster expand_cluster(const SourceText& source, const pugi::xml_node& node);

/// A <cabinet> (inside a zone routed Cluster): per radical, host PREFIX R SUFFIX and the SHARED links
/// link_HOST_UP and link_HOST_DOWN.
ExpandedCluster expand_cabinet(const SourceText& source, const pugi::xml_node& node);

}  // namespace pipegrid::platform
