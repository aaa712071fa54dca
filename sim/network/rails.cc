#include "sim/network/rails.h"

#include <algorithm>
#include <set>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

namespace pipegrid::sim {

namespace sg4 = simgrid::s4u;

Rails::Rails(std::vector<sg4::Host*> hosts, std::vector<int> node_of_gpu)
    : hosts_(std::move(hosts)), node_of_gpu_(std::move(node_of_gpu)), rail_of_gpu_(node_of_gpu_.size(), -1) {
  for (int gpu = 0; gpu < static_cast<int>(node_of_gpu_.size()); ++gpu) gpus_of_node_[node_of_gpu_[gpu]].push_back(gpu);
}

void Rails::find(int node) {
  const std::vector<int>& gpus = gpus_of_node_.at(node);
  std::vector<std::vector<int>>& rails = rails_[node];
  const auto single = [&] {
    rails.assign(1, gpus);
    for (int gpu : gpus) rail_of_gpu_[gpu] = 0;
  };
  // Straight from SimGrid, not through Network::route: that cache holds the routes flows take, whose
  // links all appear in links.csv.
  const auto route = [&](int src, int dst) {
    std::vector<sg4::Link*> links;
    double latency = 0;
    hosts_[src]->route_to(hosts_[dst], links, &latency);
    return links;
  };
  auto next = gpus_of_node_.upper_bound(node);
  if (next == gpus_of_node_.end()) next = gpus_of_node_.begin();
  if (next->first == node || gpus.size() < 2) return single();
  const std::vector<int>& remote = next->second;

  // The links each GPU's routes to the reference node all cross (as sets: SimGrid does not list a
  // route's links in the order they are crossed).
  std::vector<std::set<const sg4::Link*>> common(gpus.size());
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    for (const sg4::Link* link : route(gpus[i], remote.front())) common[i].insert(link);
    for (std::size_t j = 1; j < remote.size() && !common[i].empty(); ++j) {
      const std::vector<sg4::Link*> other = route(gpus[i], remote[j]);
      std::erase_if(common[i],
                    [&](const sg4::Link* link) { return std::find(other.begin(), other.end(), link) == other.end(); });
    }
    if (common[i].empty()) return single();
  }
  // GPUs whose ways out share a link share a NIC: the rails are the classes of that relation, in the
  // order of their first GPUs.
  std::vector<int> rail_of(gpus.size(), -1);
  int rails_found = 0;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    if (rail_of[i] >= 0) continue;
    rail_of[i] = rails_found++;
    std::set<const sg4::Link*> links = common[i];
    for (bool grew = true; grew;) {  // until no other GPU's way out meets the rail's
      grew = false;
      for (std::size_t j = i + 1; j < gpus.size(); ++j)
        if (rail_of[j] < 0 && std::any_of(common[j].begin(), common[j].end(),
                                          [&](const sg4::Link* link) { return links.contains(link); })) {
          rail_of[j] = rail_of[i];
          links.insert(common[j].begin(), common[j].end());
          grew = true;
        }
    }
  }
  if (rails_found < 2) return single();
  // Rings cross a node over a fabric of its own (NVLink), which the ways out are no part of.
  std::set<const sg4::Link*> ways_out;
  for (const auto& links : common) ways_out.insert(links.begin(), links.end());
  for (int src : gpus)
    for (int dst : gpus)
      if (src != dst)
        for (const sg4::Link* link : route(src, dst))
          if (ways_out.contains(link)) return single();
  rails.assign(rails_found, {});
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    rails[rail_of[i]].push_back(gpus[i]);
    rail_of_gpu_[gpus[i]] = rail_of[i];
  }
}

const std::vector<std::vector<int>>& Rails::of_node(int node) {
  auto it = rails_.find(node);
  if (it == rails_.end()) {
    find(node);
    it = rails_.find(node);
  }
  return it->second;
}

int Rails::rail_of(int gpu) {
  of_node(node_of(gpu));
  return rail_of_gpu_[gpu];
}

const std::vector<std::vector<int>>& Rails::rings(const std::vector<int>& group) {
  if (const auto it = rings_.find(group); it != rings_.end()) return it->second;
  std::vector<std::vector<int>>& rings = rings_[group];
  // The group's nodes in the order of their first member, and each one's members in group order.
  std::vector<int> nodes;
  std::map<int, std::vector<int>> members;
  for (int gpu : group) {
    std::vector<int>& on_node = members[node_of(gpu)];
    if (on_node.empty()) nodes.push_back(node_of(gpu));
    on_node.push_back(gpu);
  }
  const int n_nodes = static_cast<int>(nodes.size());
  // Per node, its members' rails in rail order (the slots), each with its first member. A node with
  // one member has one slot whatever its rails: they are not looked for.
  std::vector<std::vector<int>> first_on_slot(n_nodes);
  int channels = n_nodes < 2 ? 1 : static_cast<int>(group.size());
  for (int k = 0; k < n_nodes && channels > 1; ++k) {
    const std::vector<int>& on_node = members.at(nodes[k]);
    if (on_node.size() < 2) {
      channels = 1;
      break;
    }
    std::map<int, int> first_of_rail;
    for (int gpu : on_node) first_of_rail.try_emplace(rail_of(gpu), gpu);
    for (const auto& [rail, gpu] : first_of_rail) first_on_slot[k].push_back(gpu);
    channels = std::min(channels, static_cast<int>(first_on_slot[k].size()));
  }
  if (channels < 2) {
    rings.push_back(group);
    return rings;
  }
  for (int c = 0; c < channels; ++c) {
    // The slot ring c leaves node k on, and enters node k + 1 on.
    const auto exit_slot = [&](int k) {
      if (k == n_nodes - 1 && n_nodes % 2 == 1 && channels >= 3) return (c + 2) % channels;
      return (c + k % 2) % channels;
    };
    const auto entry_slot = [&](int k) {
      if (k == 0 && n_nodes % 2 == 1 && channels == 2) return (c + 1) % channels;  // the crossing that changes rail
      return exit_slot((k + n_nodes - 1) % n_nodes);
    };
    std::vector<int>& ring = rings.emplace_back();
    for (int k = 0; k < n_nodes; ++k) {
      const int entry = first_on_slot[k][entry_slot(k)], exit = first_on_slot[k][exit_slot(k)];
      ring.push_back(entry);
      for (int gpu : members.at(nodes[k]))
        if (gpu != entry && gpu != exit) ring.push_back(gpu);
      ring.push_back(exit);
    }
  }
  return rings;
}

}  // namespace pipegrid::sim
