#include "sim/platform/route_reach.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace pipegrid::platform {

namespace {

bool is_full(const std::string& routing) {
  return std::equal(routing.begin(), routing.end(), std::string_view("full").begin(), std::string_view("full").end(),
                    [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
}

}  // namespace

RouteReach::RouteReach(const PlatformFacts& facts) : facts_(facts) {
  for (const auto& [name, zone] : facts.zone_of_netpoint) {
    index_.emplace(name, static_cast<int>(zone_.size()));
    zone_.push_back(zone);
  }
  out_.resize(zone_.size());
  component_.assign(zone_.size(), -1);
  for (const RouteFacts& route : facts.routes) {
    all_symmetrical_ = all_symmetrical_ && route.symmetrical;
    const int a = index_.at(route.src), b = index_.at(route.dst);
    out_[a].push_back(b);
    if (route.symmetrical) out_[b].push_back(a);
  }
}

const std::vector<char>& RouteReach::reachable_from(int src) {
  // When every route goes both ways, a search reaches the same nodes from any node it reached: one
  // search per connected part of the graph, not one per source.
  if (all_symmetrical_ && component_[src] >= 0) return reach_.at(component_[src]);
  auto it = reach_.find(src);
  if (it != reach_.end()) return it->second;
  std::vector<char> seen(zone_.size(), 0);
  std::vector<int> frontier{src};
  seen[src] = 1;
  while (!frontier.empty()) {
    const int at = frontier.back();
    frontier.pop_back();
    for (int next : out_[at])
      if (!seen[next]) seen[next] = 1, frontier.push_back(next);
  }
  if (all_symmetrical_)
    for (std::size_t node = 0; node < seen.size(); ++node)
      if (seen[node]) component_[node] = src;
  return reach_.emplace(src, std::move(seen)).first->second;
}

bool RouteReach::routed(const std::string& src, const std::string& dst) {
  const auto a = index_.find(src), b = index_.find(dst);
  if (a == index_.end() || b == index_.end() || zone_[a->second] != zone_[b->second]) return false;
  if (a->second == b->second) return true;
  if (is_full(facts_.zones[zone_[a->second]].routing))
    return std::find(out_[a->second].begin(), out_[a->second].end(), b->second) != out_[a->second].end();
  return reachable_from(a->second)[b->second] != 0;
}

}  // namespace pipegrid::platform
