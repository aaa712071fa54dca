#include "sim/platform/dijkstra_gap.h"

#include <fmt/format.h>
#include <set>
#include <utility>
#include <vector>

namespace pipegrid::platform {

namespace {

class GapSearch {
 public:
  explicit GapSearch(const PlatformFacts& facts) : facts_(facts) {}

  // NetZoneImpl::get_global_route_with_netzones, as far as which local routes it asks for.
  std::string route(const std::string& src, const std::string& dst) {
    if (!seen_.emplace(src, dst).second) return "";
    const int src_zone = facts_.zone_of_netpoint.at(src), dst_zone = facts_.zone_of_netpoint.at(dst);
    if (src_zone == dst_zone) return local(src_zone, src, dst);
    // find_common_ancestors: the paths to the root, their common end dropped.
    std::vector<int> src_path = path_to_root(src_zone), dst_path = path_to_root(dst_zone);
    int parent = -1;
    while (src_path.size() > 1 && dst_path.size() > 1 && src_path.back() == dst_path.back()) {
      parent = src_path.back();
      src_path.pop_back();
      dst_path.pop_back();
    }
    const int src_ancestor = src_path.back(), dst_ancestor = dst_path.back();
    if (src_ancestor == dst_ancestor) return local(src_ancestor, src, dst);
    if (parent < 0) return "";  // SimGrid's own assertion: an exception, not a crash
    if (facts_.zones[parent].bypass) return "";
    const std::string& src_at = facts_.zones[src_ancestor].id;
    const std::string& dst_at = facts_.zones[dst_ancestor].id;
    if (std::string gap = local(parent, src_at, dst_at); !gap.empty()) return gap;
    // The zone route's gateways are then routed to within each side: any route out of the source's
    // zone and into the destination's may be the one taken.
    for (const ZoneRouteFacts& zr : facts_.zone_routes) {
      if (zr.zone != parent) continue;
      for (const bool back : {false, true}) {
        if (back && !zr.symmetrical) continue;
        const std::string& from = back ? zr.dst : zr.src;
        const std::string& from_gw = back ? zr.gw_dst : zr.gw_src;
        const std::string& to = back ? zr.src : zr.dst;
        const std::string& to_gw = back ? zr.gw_src : zr.gw_dst;
        if (from == src_at && from_gw != src)
          if (std::string gap = route(src, from_gw); !gap.empty()) return gap;
        if (to == dst_at && to_gw != dst)
          if (std::string gap = route(to_gw, dst); !gap.empty()) return gap;
      }
    }
    return "";
  }

 private:
  std::vector<int> path_to_root(int zone) const {
    std::vector<int> path;
    for (; zone >= 0; zone = facts_.zones[zone].parent) path.push_back(zone);
    return path;
  }

  // A route inside `zone` between two of its netpoints or child zones.
  std::string local(int zone, const std::string& a, const std::string& b) const {
    const ZoneFacts& z = facts_.zones[zone];
    if (z.routing != "Dijkstra" && z.routing != "DijkstraCache") return "";
    for (const std::string& end : {a, b})
      if (!z.route_ends.contains(end))
        return fmt::format("{} is on no route of zone {}, routed {}, and SimGrid 3.32 crashes on such a query", end,
                           z.id, z.routing);
    return "";
  }

  const PlatformFacts& facts_;
  std::set<std::pair<std::string, std::string>> seen_;
};

}  // namespace

std::string dijkstra_gap(const PlatformFacts& facts, const std::string& src, const std::string& dst) {
  if (!facts.zone_of_netpoint.contains(src) || !facts.zone_of_netpoint.contains(dst)) return "";
  return GapSearch(facts).route(src, dst);
}

}  // namespace pipegrid::platform
