// The Network's routes: each GPU pair's links and latency, from SimGrid or from pipegrid's copy of
// its Dijkstra search (--route-search), the links a folded rail's copy is accounted on, and the α-β
// views of a route that analytic collectives take. Flows are in network.cc, link accounting in
// network_load.cc.
#include "sim/exec/network.h"

#include <algorithm>
#include <fmt/format.h>
#include <limits>
#include <stdexcept>
#include <tuple>

#include "sim/exec/rails.h"

namespace pipegrid::sim {

namespace sg4 = simgrid::s4u;

void Network::use_rails(std::vector<sg4::Host*> platform_gpu_hosts, std::vector<int> node_of_gpu) {
  if (platform_gpu_hosts.size() < hosts_.size() || node_of_gpu.size() != platform_gpu_hosts.size() ||
      !std::equal(hosts_.begin(), hosts_.end(), platform_gpu_hosts.begin()))
    throw std::logic_error("Network::use_rails: the platform's GPUs must start with the job's");
  rails_ = std::make_unique<Rails>(std::move(platform_gpu_hosts), std::move(node_of_gpu));
}

const Network::RouteEntry& Network::route_entry(int src_gpu, int dst_gpu) {
  auto& known = routes_[src_gpu];
  for (const auto& [dst, entry] : known)
    if (dst == dst_gpu) return *entry;
  known.emplace_back(dst_gpu, std::make_unique<RouteEntry>());
  RouteEntry& entry = *known.back().second;  // stays where it is if `known` grows meanwhile
  std::vector<sg4::Link*> links;
  if (search_ && searched_[src_gpu]) {
    std::tie(links, entry.latency) = searched_route(src_gpu, dst_gpu);
    ++searched_routes_;
  } else {
    hosts_[src_gpu]->route_to(hosts_[dst_gpu], links, &entry.latency);
    if (search_) {
      // SimGrid's own answer, against which the search is held on every route it gives.
      const auto [searched, latency] = searched_route(src_gpu, dst_gpu);
      if (searched != links || latency != entry.latency)
        throw std::logic_error(fmt::format("--route-search: SimGrid's route from {} to {} ({} links, latency {}) is not "
                                           "the one pipegrid's search of its Dijkstra finds ({} links, latency {}); "
                                           "--route-search simgrid asks SimGrid for every route",
                                           hosts_[src_gpu]->get_name(), hosts_[dst_gpu]->get_name(), links.size(),
                                           entry.latency, searched.size(), latency));
      ++checked_routes_;
    }
  }
  for (sg4::Link* link : links) {
    const int index = link_index(link);
    // A route may cross one switch link twice (in and out): count it once.
    if (std::find(entry.links.begin(), entry.links.end(), index) == entry.links.end()) entry.links.push_back(index);
  }
  set_accounted(src_gpu, dst_gpu, entry);
  return entry;
}

void Network::search_routes(std::shared_ptr<const platform::DijkstraRoutes> routes, std::vector<char> searched) {
  if (!routes || searched.size() != hosts_.size())
    throw std::logic_error("Network::search_routes: a graph, and a mark per job GPU");
  search_ = std::move(routes);
  searched_ = std::move(searched);
}

void Network::stop_searching_routes() {
  if (!search_) return;
  for (std::size_t gpu = 0; gpu < routes_.size(); ++gpu)
    if (searched_[gpu]) routes_[gpu].clear();
  search_.reset();
  searched_routes_ = checked_routes_ = 0;
}

std::pair<std::vector<sg4::Link*>, double> Network::searched_route(int src_gpu, int dst_gpu) const {
  const auto hops = search_->hops_back(hosts_[src_gpu]->get_name(), hosts_[dst_gpu]->get_name());
  if (!hops)
    throw std::logic_error(fmt::format("--route-search: no route from {} to {} in the platform's graph",
                                       hosts_[src_gpu]->get_name(), hosts_[dst_gpu]->get_name()));
  // DijkstraZone adds each hop's latencies from the destination back, in the hop's order.
  double latency = 0;
  for (const platform::DijkstraRoutes::Hop hop : *hops)
    for (const std::string& name : *hop) latency += sg4::Link::by_name(name)->get_latency();
  std::vector<sg4::Link*> links;
  for (const std::string& name : platform::DijkstraRoutes::links_of(*hops)) links.push_back(sg4::Link::by_name(name));
  return {std::move(links), latency};
}

void Network::set_accounted(int src_gpu, int dst_gpu, RouteEntry& entry) {
  set_analytic_accounted(src_gpu, dst_gpu, entry);
  entry.mirror_mismatch = -1;
  if (std::none_of(entry.links.begin(), entry.links.end(),
                   [&](int link) { return mirror_of(link) != -1 || is_analytic_image(link); })) {
    entry.accounted = entry.links;
    return;
  }
  // A copy skips a mirror link only where its rail-0 copy crosses the link mirrored (rail_fold.cc
  // checked that for the routes the job's flows take). Another route (one the rails are found by,
  // between TP indices) is not one a flow may take: account_start refuses it.
  // A route inside a TP group (an analytic hop's, with its analytic mirrors) has no rail-0 image.
  static const std::vector<int> kNone;
  const bool one_group = rail0_gpu_[src_gpu] == rail0_gpu_[dst_gpu];
  const std::vector<int>& rail0 = one_group ? kNone : route_entry(rail0_gpu_[src_gpu], rail0_gpu_[dst_gpu]).links;
  entry.accounted.clear();
  for (std::size_t i = 0; i < entry.links.size(); ++i) {
    const int link = entry.links[i];
    // No flow crosses the analytic hops' mirrors or the links they mirror (rail_fold.cc: on no other route).
    if (is_analytic_mirror(link) || is_analytic_image(link))
      entry.mirror_mismatch = link;
    else if (mirror_of(link) == -1)
      entry.accounted.push_back(link);
    else if (rail_of_gpu_[src_gpu] != rail_of_gpu_[dst_gpu] || i >= rail0.size() || rail0[i] != mirror_of(link))
      entry.mirror_mismatch = link;
  }
}

void Network::set_analytic_accounted(int src_gpu, int dst_gpu, RouteEntry& entry) {
  entry.analytic_mismatch = -1;
  entry.analytic_accounted.clear();
  const auto image = hop_image_.find(pair_key(src_gpu, dst_gpu));
  const bool is_image = image_hops_.contains(pair_key(src_gpu, dst_gpu));
  const std::vector<int>* image_links =
      image == hop_image_.end() ? nullptr : &route_entry(image->second.first, image->second.second).links;
  for (std::size_t i = 0; i < entry.links.size(); ++i) {
    const int link = entry.links[i];
    if (is_analytic_mirror(link)) {
      // Skipped where member 0's hop crosses the link it mirrors, at the same place.
      if (!image_links || i >= image_links->size() || (*image_links)[i] != mirror_of(link)) entry.analytic_mismatch = link;
    } else if (is_analytic_image(link) ? !is_image : mirrored_or_mirror(link)) {
      entry.analytic_mismatch = link;  // a flows' mirror, or a hop's mirrored link reached by another route
    } else {
      entry.analytic_accounted.push_back(link);
    }
  }
}

const std::vector<int>& Network::route(int src_gpu, int dst_gpu) { return route_entry(src_gpu, dst_gpu).links; }

double Network::effective_latency(int src_gpu, int dst_gpu) {
  return route_entry(src_gpu, dst_gpu).latency * latency_factor_;
}

std::pair<double, double> Network::bottleneck_and_latency(int src_gpu, int dst_gpu) {
  const RouteEntry& entry = route_entry(src_gpu, dst_gpu);
  double bandwidth = std::numeric_limits<double>::infinity();
  for (int link : entry.links) bandwidth = std::min(bandwidth, links_[link].link->get_bandwidth());
  return {bandwidth, entry.latency};
}

void Network::set_nvlink_collective_efficiency(double efficiency, std::vector<int> node_of_gpu) {
  nvlink_efficiency_ = efficiency;
  node_of_gpu_ = std::move(node_of_gpu);
}

std::pair<double, double> Network::collective_bandwidth_and_latency(int src_gpu, int dst_gpu) {
  const auto [bandwidth, latency] = bottleneck_and_latency(src_gpu, dst_gpu);
  return {in_one_node(src_gpu, dst_gpu) ? bandwidth * nvlink_efficiency_ : bandwidth, latency};
}

}  // namespace pipegrid::sim
