// The reader of a platform file (platform_reader.h), one class cut along the file's parts: the zones
// and what they hold (platform_reader.cc), the routes (reader_routes.cc), the <config> and the
// time-varying profiles (reader_profiles.cc). Private to those files.
#pragma once

#include <map>
#include <pugixml.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/platform/gpu_inference.h"
#include "sim/platform/platform_facts.h"
#include "sim/platform/profile_check.h"
#include "sim/platform/source_text.h"

namespace pipegrid::platform {

/// How deep zones (<zone>, <AS>, a <cluster> in a zone) may nest. SimGrid 3.32's XML parser writes
/// past its heap once elements nest 500 deep (simgrid_dtd.c: ck_ilimit grows its index stack, two
/// ints per open element, by bytes instead of ints; measured: 496 zones clean under valgrind, 497
/// invalid writes, 498 an abort), and the reader's recursion must be bounded too; real platforms nest
/// a few zones (platforms/README.md, "What the reader refuses").
inline constexpr int kMaxZoneDepth = 100;

// Reads the zones' elements into facts, remembering the route elements for a second pass: a route
// may only be checked once every netpoint and link is known.
class Reader {
 public:
  Reader(const SourceText& source, PlatformFacts& facts) : source_(source), facts_(facts) {}

  void read_platform(const pugi::xml_node& platform);

 private:
  // Zones and what they hold (platform_reader.cc).
  std::string check_routing(const pugi::xml_node& zone);
  int add_zone(const pugi::xml_node& node, const std::string& id, const std::string& routing, int parent);
  void check_depth(const pugi::xml_node& zone, int depth) const;
  void read_zone(const pugi::xml_node& zone, int parent, int depth);
  void need_cluster_routing(const pugi::xml_node& node, const std::string& routing) const;
  void read_cluster(const pugi::xml_node& node, int parent);
  void read_cabinet(const pugi::xml_node& node, int zone, const std::string& routing);
  void read_backbone(const pugi::xml_node& node, const std::string& routing);
  [[noreturn]] void refuse(const pugi::xml_node& node) const;
  std::string id_of(const pugi::xml_node& node) const;
  void check_unique_id(const pugi::xml_node& node, const std::string& id) const;
  void add_netpoint_named(const pugi::xml_node& node, const std::string& id, int zone, bool router);
  std::string add_netpoint(const pugi::xml_node& node, int zone);
  void read_host(const pugi::xml_node& node, int zone);
  void add_link(const pugi::xml_node& node, LinkFacts link);
  LinkFacts read_link_rates(const pugi::xml_node& node, std::string_view element);
  void read_link(const pugi::xml_node& node);

  // The <config> and the profiles (reader_profiles.cc).
  void read_config(const pugi::xml_node& config);
  std::string read_profile_file(const pugi::xml_node& node, const std::string& what, const char* attribute,
                                ProfileKind kind);
  void read_trace(const pugi::xml_node& node);
  void read_trace_connect(const pugi::xml_node& node);
  void add_profile(const pugi::xml_node& node, const std::string& resource, ProfileOf of, std::string text,
                   std::string source);

  // Routes, read once every netpoint and link is known (reader_routes.cc).
  void read_route(const pugi::xml_node& node, int zone);
  std::vector<LinkUse> link_uses(const pugi::xml_node& node, const std::string& what) const;
  bool zone_within(int zone, int ancestor) const;
  void read_zone_route(const pugi::xml_node& node, int zone);
  void read_host_link(const pugi::xml_node& node) const;
  void declare_once(const pugi::xml_node& node, const std::string& from, const std::string& to,
                    const std::string& what);

  const SourceText& source_;
  PlatformFacts& facts_;
  std::vector<std::pair<pugi::xml_node, int>> route_nodes_;  // with their zone
  std::vector<std::pair<pugi::xml_node, int>> zone_route_nodes_;
  std::vector<pugi::xml_node> host_link_nodes_;
  std::vector<HostRecord> hosts_;  // in file order, GPUs or not
  std::map<std::string, std::string> traces_;                 // <trace> id → its profile text
  std::vector<std::pair<pugi::xml_node, std::string>> connected_hosts_;  // by <trace_connect>, checked at the end
  std::map<std::string, int> netpoint_lines_;
  std::map<std::string, int> zone_lines_;
  std::unordered_map<std::string, int> zone_index_;
  std::map<std::string, int> link_lines_;
  std::map<std::pair<std::string, std::string>, int> route_lines_;
};

}  // namespace pipegrid::platform
