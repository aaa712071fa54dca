// What a platform file holds that pipegrid needs before and besides SimGrid: its GPUs, links and
// routes, checked, each with the line that declares it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace pipegrid::platform {

/// A host with <prop id="role" value="gpu"/> (or, in a file where no host has that prop, any host):
/// where one rank runs. `node` and `gpu` (its index in the node) come from its props, not from its
/// name, so that a hand-written file may name it freely; where a <cluster>'s hosts lack them they are
/// inferred (gpu_inference.h).
struct GpuHost {
  std::string name;
  int node = 0;
  int gpu = 0;
  double speed = 0;          // flop/s (the first pstate's)
  std::int64_t memory = 0;   // bytes
  std::string model;         // gpu_model prop; "" when absent
  int line = 0;
};

/// A <link> as declared. A SPLITDUPLEX link is two independent directions of `bandwidth` each,
/// which SimGrid names NAME_UP and NAME_DOWN.
struct LinkFacts {
  std::string name;
  double bandwidth = 0;  // bytes/s
  double latency = 0;    // seconds
  std::string sharing_policy;  // SHARED, SPLITDUPLEX or FATPIPE (FULLDUPLEX is read as SPLITDUPLEX)
  int line = 0;
};

/// One <link_ctn> of a route: the link and, for a SPLITDUPLEX one, the direction used.
struct LinkUse {
  std::string link;
  std::string direction;  // "UP", "DOWN", or "NONE" for links that have one direction
  bool operator==(const LinkUse&) const = default;
};

/// A <route> between two netpoints (hosts or routers). When symmetrical, the way back is the same
/// links in reverse order with UP and DOWN swapped.
struct RouteFacts {
  std::string src;
  std::string dst;
  std::vector<LinkUse> links;
  bool symmetrical = true;
  int line = 0;
  int zone = 0;  // index into PlatformFacts::zones
};

/// A <zone> (or <AS>) and how SimGrid routes inside it: Full, Floyd, Dijkstra, DijkstraCache,
/// Cluster, None, Vivaldi or Wifi; a <cluster> is a zone too (routing "Cluster" for FLAT, else its
/// topology: FAT_TREE, TORUS, DRAGONFLY).
struct ZoneFacts {
  std::string id;
  std::string routing;  // as SimGrid's list spells it
  int line = 0;
  int parent = -1;  // index into PlatformFacts::zones, -1 for the outermost
  /// The netpoints and child zones its <route>s and <zoneRoute>s join: the nodes of the graph a
  /// Dijkstra zone searches (DijkstraZone::new_edge).
  std::unordered_set<std::string> route_ends;
  bool bypass = false;  // it declares a bypass route, which SimGrid takes before its own search
};

/// A <zoneRoute> (or <ASroute>) between two zones of `zone`, through a netpoint of each.
struct ZoneRouteFacts {
  std::string src, dst;        // the two zones
  std::string gw_src, gw_dst;  // their gateways
  bool symmetrical = true;
  int zone = 0;  // index into PlatformFacts::zones
};

/// A <cluster> as SimGrid expands it (sg_platf_new_tag_cluster): its hosts are PREFIX RADICAL SUFFIX.
/// A FLAT cluster's links are listed in PlatformFacts::links; a FAT_TREE, TORUS or DRAGONFLY one's
/// links are made by SimGrid's zone and are described here only by their bandwidths.
struct ClusterFacts {
  std::string id;
  std::string topology;  // FLAT, FAT_TREE, TORUS or DRAGONFLY
  std::string topo_parameters;
  int hosts = 0;
  double bandwidth = 0;         // bw: each host's link (and each link of a hierarchical topology)
  double latency = 0;           // lat
  std::string sharing_policy;   // of those links
  double narrowest = 0;         // the least of bw, bb_bw, limiter_link and loopback_bw that are set
  int line = 0;
};

/// What a profile of a host or link drives: a host's speed (a factor of its peak), whether a host or
/// link is on (value > 0) or off, a link's bandwidth (bytes/s).
enum class ProfileOf { HostSpeed, HostState, LinkState, LinkBandwidth };

struct ResourceProfile {
  std::string resource;  // host or link name
  ProfileOf of = ProfileOf::HostSpeed;
  std::string text;      // the profile as SimGrid reads it (the file's content or the <trace>'s)
  int line = 0;
  std::string source;    // where it comes from, for messages: "bandwidth_file bw.txt", "trace t1"
};

/// A platform file as read_platform checked it: every route names known netpoints and links, GPU
/// names and (node, gpu) pairs are unique, there is at least one GPU. The GPUs are in the order the
/// executor places ranks on them; the rest keeps the file's order. The two indexes are filled by
/// read_platform and serve the find_ functions.
struct PlatformFacts {
  std::string path;
  std::vector<GpuHost> gpus;              // sorted by (node, gpu)
  int nodes = 0;                          // distinct node numbers among the GPUs
  std::vector<std::string> other_hosts;   // hosts that are not GPUs, in file order
  std::vector<std::string> routers;       // in file order
  std::vector<LinkFacts> links;           // in file order
  std::vector<RouteFacts> routes;         // in file order
  std::vector<std::pair<std::string, std::string>> config;  // the <config> props, in file order
  std::string network_model;  // network/model from <config>, or pipegrid's default "CM02"
  bool network_model_defaulted = false;  // the file sets no network/model: pipegrid's default runs
  std::vector<ClusterFacts> clusters;    // in file order
  /// True when every route is a <route> of the file inside one zone routed Full, Floyd, Dijkstra or
  /// DijkstraCache (no <cluster>, zone route or bypass route): RouteReach then knows SimGrid's answer.
  /// Otherwise routes are asked of SimGrid itself once the platform is loaded.
  bool routes_declared = true;
  /// What read_platform inferred rather than read, one sentence each, for `platform info`.
  std::vector<std::string> inferences;
  std::string routing;        // the routing of the outermost zone
  std::vector<std::string> profile_files;  // the profiles it names, where SimGrid will open them
  std::vector<ZoneFacts> zones;            // in file order
  std::vector<ZoneRouteFacts> zone_routes;  // in file order
  std::unordered_map<std::string, int> zone_of_netpoint;  // host or router → its zone

  /// nullptr when there is no such link.
  const LinkFacts* find_link(std::string_view name) const;
  const GpuHost* find_gpu(std::string_view name) const;
  bool has_host(std::string_view name) const;  // a GPU or another host

  std::unordered_map<std::string, std::size_t> link_index;  // name → position in links
  std::unordered_map<std::string, std::size_t> gpu_index;   // name → position in gpus

  /// The time-varying profiles SimGrid applies to hosts and links (a speed_file, a state_file, a
  /// bandwidth_file, a <trace_connect>), in file order.
  std::vector<ResourceProfile> resource_profiles;
  bool has_profile(std::string_view resource, ProfileOf of) const;
};

}  // namespace pipegrid::platform
