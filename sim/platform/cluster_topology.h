// What SimGrid 3.32 builds from a <cluster>'s radical and topo_parameters, checked before SimGrid
// parses them: its own parsers end the process on some malformed values (xbt_die in
// DragonflyZone::parse_topo_parameters, xbt_assert when the radicals are too few).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pipegrid::platform {

/// "0-3,7" as SimGrid's explodesRadical reads it: comma-separated integers or ranges A-B (both
/// ends included; B < A gives nothing). nullopt when a part is not an integer or a range.
std::optional<std::vector<int>> parse_radical(std::string_view text);

/// The number of hosts a hierarchical cluster makes (SimGrid creates host i from the i-th radical):
///   FAT_TREE "L;d1,…,dL;u1,…,uL;p1,…,pL": d1 × … × dL (FatTreeZone::parse_topo_parameters);
///   TORUS "x,y,z,…": their product (TorusZone);
///   DRAGONFLY "g,b;c,k;r,n;h": g × c × r × h (groups, chassis, routers, hosts per router).
/// Every count must be a positive integer. `rule` says what is wrong when it returns nullopt.
std::optional<long long> topology_hosts(std::string_view topology, std::string_view parameters, std::string& rule);

}  // namespace pipegrid::platform
