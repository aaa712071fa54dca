#include "sim/network/expert_flows.h"

#include <map>

namespace pipegrid::sim {

namespace {

// Each node's members, in member order.
std::map<int, std::vector<int>> members_by_node(const std::vector<MemberPlace>& places) {
  std::map<int, std::vector<int>> by_node;
  for (int m = 0; m < static_cast<int>(places.size()); ++m) by_node[places[m].node].push_back(m);
  return by_node;
}

int forwarder(const std::vector<MemberPlace>& places, const std::map<int, std::vector<int>>& by_node, int from,
              int node) {
  const std::vector<int>& there = by_node.at(node);
  for (int m : there)
    if (places[m].local == places[from].local) return m;
  const std::vector<int>& home = by_node.at(places[from].node);
  int position = 0;
  while (home[position] != from) ++position;
  return there[position % there.size()];
}

}  // namespace

std::vector<MemberPlace> member_places(const std::vector<int>& members, const std::vector<int>& node_of_gpu) {
  std::vector<MemberPlace> places;
  for (int g : members) {
    int first = g;
    while (first > 0 && node_of_gpu[first - 1] == node_of_gpu[g]) --first;
    places.push_back({node_of_gpu[g], g - first});
  }
  return places;
}

int deepep_forwarder(const std::vector<MemberPlace>& places, int from, int node) {
  return forwarder(places, members_by_node(places), from, node);
}

std::vector<ExpertFlow> deepep_flows(const std::vector<MemberPlace>& places, const std::vector<double>& shares,
                                     double internode_factor, bool to_experts) {
  const int n = static_cast<int>(places.size());
  const std::map<int, std::vector<int>> by_node = members_by_node(places);
  // Forwarders per (member, node), looked up O(n²) times below.
  std::vector<int> node_slot(n);
  std::map<int, int> slot_of_node;
  for (const auto& [node, members] : by_node) slot_of_node.emplace(node, static_cast<int>(slot_of_node.size()));
  for (int m = 0; m < n; ++m) node_slot[m] = slot_of_node.at(places[m].node);
  std::vector<int> forwarder_to(n * by_node.size());
  for (int m = 0; m < n; ++m)
    for (const auto& [node, slot] : slot_of_node) forwarder_to[m * by_node.size() + slot] = forwarder(places, by_node, m, node);
  const auto fwd = [&](int from, int to_member) { return forwarder_to[from * by_node.size() + node_slot[to_member]]; };

  // A dense matrix of the pairs' shares: which pairs have a flow, and what it carries.
  std::vector<double> share(static_cast<std::size_t>(n) * n, 0);
  std::vector<char> used(static_cast<std::size_t>(n) * n, 0);
  const auto add = [&](int src, int dst, double s) {
    share[src * n + dst] += s;
    used[src * n + dst] = 1;
  };
  for (int s = 0; s < n; ++s)
    for (int t = 0; t < n; ++t) {
      if (s == t) continue;
      const double p = to_experts ? shares[t] : shares[s];
      if (places[s].node == places[t].node) {
        add(s, t, p);
      } else if (to_experts) {
        const int f = fwd(s, t);  // on t's node
        add(s, f, internode_factor * p);
        if (f != t) add(f, t, p);
      } else {
        const int f = fwd(t, s);  // on s's node
        if (f != s) add(s, f, p);
        add(f, t, internode_factor * p);
      }
    }
  std::vector<ExpertFlow> flows;
  for (int s = 0; s < n; ++s)
    for (int t = 0; t < n; ++t)
      if (used[s * n + t]) flows.push_back({s, t, share[s * n + t], places[s].node != places[t].node});
  return flows;
}

}  // namespace pipegrid::sim
