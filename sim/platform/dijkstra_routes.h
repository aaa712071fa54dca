// SimGrid 3.32's routes in a zone routed Dijkstra or DijkstraCache, found as DijkstraZone finds them
// (src/kernel/routing/DijkstraZone.cpp) but without SimGrid, whose search is a Dijkstra over the whole
// graph per source: the same graph, costs and ties in flat arrays, so the same route (platforms/README.md,
// "Routes found without SimGrid"). Only where every route is symmetrical: with one-way routes 3.32's
// search lets a node it cannot reach rewrite others' predecessors, which this does not copy.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sim/platform/platform_facts.h"

namespace pipegrid::platform {

class DijkstraRoutes {
 public:
  /// nullptr unless every route SimGrid will know is a symmetrical <route> of one zone routed
  /// Dijkstra or DijkstraCache (PlatformFacts::routes_declared, one zone).
  static std::shared_ptr<const DijkstraRoutes> of(const PlatformFacts& facts);

  /// One edge of the graph: SimGrid's names of its links (NAME_UP / NAME_DOWN for a direction of a
  /// SPLITDUPLEX link) in the order the edge stores them.
  using Hop = const std::vector<std::string>*;
  /// The route's hops from the destination back to the source (the order SimGrid adds their
  /// latencies in), or nullopt when one of the two is no node of the graph or no route joins them.
  std::optional<std::vector<Hop>> hops_back(std::string_view src, std::string_view dst) const;
  /// The route's links as Host::route_to lists them (hops in order, each one's links reversed).
  static std::vector<std::string> links_of(const std::vector<Hop>& hops_back);

 private:
  struct Edge {
    int source, target;
    unsigned long cost;
    std::vector<std::string> links;
  };
  int add_node(const std::string& name);
  void add_edge(int from, int to, std::vector<std::string> links);
  // Per node, the edge it is reached by on the routes from `src` (-1: the source, or unreached),
  // computed once per source.
  const std::vector<int>& reached_by(int src) const;

  std::vector<std::string> names_;
  std::unordered_map<std::string, int> index_;
  std::vector<std::vector<int>> out_;  // per node, its edges in the order they were added
  std::vector<Edge> edges_;
  // The same out-edges as flat arrays, for the search: node v's are [first_[v], first_[v + 1]).
  void flatten();
  std::vector<int> first_, out_edge_, out_target_;
  std::vector<unsigned long> out_cost_;
  bool zero_cost_edges_ = false;  // a route of no link: the search's buckets then take heaps
  mutable std::unordered_map<int, std::vector<int>> reached_by_;
  // The search's scratch, kept between sources (a search per GPU of a large platform).
  mutable std::vector<unsigned long> cost_;
  mutable std::vector<std::vector<int>> buckets_;
  mutable std::vector<int> sort_scratch_;
};

}  // namespace pipegrid::platform
