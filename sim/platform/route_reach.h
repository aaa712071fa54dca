// Which hosts SimGrid can route between, known from the file before SimGrid loads it, for files whose
// routes are their own <route>s (PlatformFacts::routes_declared): a job that needs a missing one is
// refused before SimGrid starts, as it would otherwise fail inside a running actor. Other files'
// routes are asked of SimGrid once loaded (sim/exec/simgrid_route_check.h).
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "sim/platform/platform_facts.h"

namespace pipegrid::platform {

/// As SimGrid 3.32 routes inside one zone: in a zone routed Full a route exists only where one is
/// declared (both ways if symmetrical); in Floyd, Dijkstra and DijkstraCache zones wherever declared
/// routes chain from one netpoint to the other. Netpoints of different zones have none: pipegrid reads
/// no zone routes.
class RouteReach {
 public:
  explicit RouteReach(const PlatformFacts& facts);
  bool routed(const std::string& src, const std::string& dst);

 private:
  const std::vector<char>& reachable_from(int src);

  const PlatformFacts& facts_;
  std::unordered_map<std::string, int> index_;       // netpoint → node number
  std::vector<int> zone_;                            // per node
  std::vector<std::vector<int>> out_;                // declared routes (and the way back of symmetrical ones)
  std::unordered_map<int, std::vector<char>> reach_;  // per source searched, the nodes it reaches
  bool all_symmetrical_ = true;
  std::vector<int> component_;  // with symmetrical routes only: the source whose search reached the node
};

}  // namespace pipegrid::platform
