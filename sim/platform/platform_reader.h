// Reads a SimGrid platform file and checks it before SimGrid loads it, so that a mistake in a
// hand-edited file is one line naming the file, the line and the rule (exit code 2) rather than a
// SimGrid abort.
#pragma once

#include <string>

#include "sim/platform/platform_facts.h"

namespace pipegrid::platform {

/// Parses `path` with pugixml and returns its facts. Reads <config> props (checked against SimGrid
/// 3.32's settings, simgrid_config.h) and standard SimGrid XML as SimGrid 3.32 reads it: <zone>s of
/// any SimGrid routing, nested, with <host>, <router>, <link>, <route>, <bypassRoute>, <zoneRoute>
/// (<ASroute>), <bypassZoneRoute>; <cluster>s expanded as SimGrid expands them (cluster_reader.h);
/// <backbone>, <host_link> and <cabinet> in zones routed Cluster. <peer>, storage and deployment
/// elements are refused. GPUs, their nodes and memory are read or inferred (gpu_inference.h).
/// Quantities are read as SimGrid reads them (units.h). A link's
/// bandwidth_file and latency_file, and <trace> elements, are found and checked as SimGrid reads them
/// (profile_check.h); host speed and state profiles, link state profiles and <trace_connect> are
/// refused, because what they change is not simulated yet. Throws InputError, one line, e.g.:
///   FILE: cannot open the file
///   FILE:LINE: malformed XML: <pugixml's description>
///   FILE:LINE: the root element must be <platform version="4.1">, got <platform version="3">
///   FILE:LINE: host H: speed must be positive, got 0f
///   FILE:LINE: host H: a GPU host (role gpu) needs properties node, gpu and memory
///   FILE:LINE: host H: property memory must be a positive size in SimGrid's units such as 80GiB, …, got 80 GB
///   FILE:LINE: cluster C: its TORUS topology 2,3 makes 6 hosts, but radical 0-3 names only 4
///   FILE:LINE: zoneRoute A -> B: no zone B in zone W (a zone route joins two zones of the zone that declares it)
///   FILE:LINE: host H: node 0 gpu 1 is already host G
///   FILE:LINE: link L: bandwidth must be positive, got 0GBps
///   FILE:LINE: link L: bandwidth must be a number with a SimGrid unit such as 25GBps or 200Gbps, got 25GB/s
///   FILE:LINE: link L: latency must not be negative, got -1us
///   FILE:LINE: route A -> B: no link named L
///   FILE:LINE: route A -> B: no host or router B
///   FILE:LINE: route A -> B: link L is SPLITDUPLEX and needs direction UP or DOWN
///   FILE:LINE: route A -> B: a route from A to B is already declared at line N
///   FILE:LINE: duplicate id X, first declared at line N
///   FILE: no GPU hosts: a GPU is a host with <prop id="role" value="gpu"/>
///   FILE:LINE: <config> network/model = cm02: must be one of LV08, Constant, SMPI, IB, CM02
///   FILE:LINE: zone Z: routing must be Full, Floyd, Dijkstra, DijkstraCache, Cluster, None, Vivaldi or Wifi, got Bogus
///   FILE:LINE: link L: bandwidth_file bw.txt: line 3: dates must not decrease, but 1 follows 2
/// LINE is that of the element at fault (of the <prop> or <link_ctn> when one is).
PlatformFacts read_platform(const std::string& path);
/// The same for a file's text already read (`path` names it in errors and locates its profiles).
PlatformFacts read_platform_text(const std::string& path, std::string text);

}  // namespace pipegrid::platform
