#include "sim/network/route_table.h"

#include <algorithm>
#include <fmt/format.h>
#include <limits>
#include <simgrid/s4u/Link.hpp>
#include <stdexcept>
#include <tuple>

namespace pipegrid::sim {

namespace sg4 = simgrid::s4u;

RouteTable::RouteTable(std::vector<sg4::Host*> gpu_hosts, LinkLedger& ledger, const FoldMap& fold)
    : hosts_(std::move(gpu_hosts)), ledger_(ledger), fold_(fold), routes_(hosts_.size()) {}

void RouteTable::use_rails(std::vector<sg4::Host*> platform_gpu_hosts, std::vector<int> node_of_gpu) {
  if (platform_gpu_hosts.size() < hosts_.size() || node_of_gpu.size() != platform_gpu_hosts.size() ||
      !std::equal(hosts_.begin(), hosts_.end(), platform_gpu_hosts.begin()))
    throw std::logic_error("Network::use_rails: the platform's GPUs must start with the job's");
  rails_ = std::make_unique<Rails>(std::move(platform_gpu_hosts), std::move(node_of_gpu));
}

const RouteEntry& RouteTable::entry(int src_gpu, int dst_gpu) {
  auto& known = routes_[src_gpu];
  for (const auto& [dst, known_entry] : known)
    if (dst == dst_gpu) return *known_entry;
  known.emplace_back(dst_gpu, std::make_unique<RouteEntry>());
  RouteEntry& route = *known.back().second;  // stays where it is if `known` grows meanwhile
  std::vector<sg4::Link*> links;
  if (search_ && searched_[src_gpu]) {
    std::tie(links, route.latency) = searched_route(src_gpu, dst_gpu);
    ++searched_routes_;
  } else {
    hosts_[src_gpu]->route_to(hosts_[dst_gpu], links, &route.latency);
    if (search_) {
      // SimGrid's own answer, against which the search is held on every route it gives.
      const auto [searched, latency] = searched_route(src_gpu, dst_gpu);
      if (searched != links || latency != route.latency)
        throw std::logic_error(fmt::format("--route-search: SimGrid's route from {} to {} ({} links, latency {}) is not "
                                           "the one pipegrid's search of its Dijkstra finds ({} links, latency {}); "
                                           "--route-search simgrid asks SimGrid for every route",
                                           hosts_[src_gpu]->get_name(), hosts_[dst_gpu]->get_name(), links.size(),
                                           route.latency, searched.size(), latency));
      ++checked_routes_;
    }
  }
  for (sg4::Link* link : links) {
    const int index = ledger_.index_of(link);
    // A route may cross one switch link twice (in and out): count it once.
    if (std::find(route.links.begin(), route.links.end(), index) == route.links.end()) route.links.push_back(index);
  }
  set_accounted(src_gpu, dst_gpu, route);
  return route;
}

void RouteTable::search(std::shared_ptr<const platform::DijkstraRoutes> routes, std::vector<char> searched) {
  if (!routes || searched.size() != hosts_.size())
    throw std::logic_error("Network::search_routes: a graph, and a mark per job GPU");
  search_ = std::move(routes);
  searched_ = std::move(searched);
}

void RouteTable::stop_searching() {
  if (!search_) return;
  for (std::size_t gpu = 0; gpu < routes_.size(); ++gpu)
    if (searched_[gpu]) routes_[gpu].clear();
  search_.reset();
  searched_routes_ = checked_routes_ = 0;
}

std::pair<std::vector<sg4::Link*>, double> RouteTable::searched_route(int src_gpu, int dst_gpu) const {
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

void RouteTable::account_folded() {
  for (std::size_t src = 0; src < routes_.size(); ++src)
    for (auto& [dst, route] : routes_[src]) set_accounted(static_cast<int>(src), dst, *route);
}

void RouteTable::set_accounted(int src_gpu, int dst_gpu, RouteEntry& route) {
  set_analytic_accounted(src_gpu, dst_gpu, route);
  route.mirror_mismatch = -1;
  if (std::none_of(route.links.begin(), route.links.end(),
                   [&](int link) { return fold_.mirror_of(link) != -1 || fold_.is_analytic_image(link); })) {
    route.accounted = route.links;
    return;
  }
  // A copy skips a mirror link only where its rail-0 copy crosses the link mirrored (rail_fold.cc
  // checked that for the routes the job's flows take). Another route (one the rails are found by,
  // between TP indices) is not one a flow may take: the network refuses it.
  // A route inside a TP group (an analytic hop's, with its analytic mirrors) has no rail-0 image.
  static const std::vector<int> kNone;
  const bool one_group = fold_.rail0(src_gpu) == fold_.rail0(dst_gpu);
  const std::vector<int>& rail0 = one_group ? kNone : entry(fold_.rail0(src_gpu), fold_.rail0(dst_gpu)).links;
  route.accounted.clear();
  for (std::size_t i = 0; i < route.links.size(); ++i) {
    const int link = route.links[i];
    // No flow crosses the analytic hops' mirrors or the links they mirror (rail_fold.cc: on no other route).
    if (fold_.is_analytic_mirror(link) || fold_.is_analytic_image(link))
      route.mirror_mismatch = link;
    else if (fold_.mirror_of(link) == -1)
      route.accounted.push_back(link);
    else if (fold_.rail_of(src_gpu) != fold_.rail_of(dst_gpu) || i >= rail0.size() || rail0[i] != fold_.mirror_of(link))
      route.mirror_mismatch = link;
  }
}

void RouteTable::set_analytic_accounted(int src_gpu, int dst_gpu, RouteEntry& route) {
  route.analytic_mismatch = -1;
  route.analytic_accounted.clear();
  const std::optional<std::pair<int, int>> image = fold_.hop_image(src_gpu, dst_gpu);
  const bool is_image = fold_.is_image_hop(src_gpu, dst_gpu);
  const std::vector<int>* image_links = image ? &entry(image->first, image->second).links : nullptr;
  for (std::size_t i = 0; i < route.links.size(); ++i) {
    const int link = route.links[i];
    if (fold_.is_analytic_mirror(link)) {
      // Skipped where member 0's hop crosses the link it mirrors, at the same place.
      if (!image_links || i >= image_links->size() || (*image_links)[i] != fold_.mirror_of(link))
        route.analytic_mismatch = link;
    } else if (fold_.is_analytic_image(link) ? !is_image : fold_.mirrored_or_mirror(link)) {
      route.analytic_mismatch = link;  // a flows' mirror, or a hop's mirrored link reached by another route
    } else {
      route.analytic_accounted.push_back(link);
    }
  }
}

std::pair<double, double> RouteTable::bottleneck_and_latency(int src_gpu, int dst_gpu) {
  const RouteEntry& route = entry(src_gpu, dst_gpu);
  double bandwidth = std::numeric_limits<double>::infinity();
  for (int link : route.links) bandwidth = std::min(bandwidth, ledger_.links()[link].link->get_bandwidth());
  return {bandwidth, route.latency};
}

void RouteTable::set_nvlink_collective_efficiency(double efficiency, std::vector<int> node_of_gpu) {
  nvlink_efficiency_ = efficiency;
  node_of_gpu_ = std::move(node_of_gpu);
}

std::pair<double, double> RouteTable::collective_bandwidth_and_latency(int src_gpu, int dst_gpu) {
  const auto [bandwidth, latency] = bottleneck_and_latency(src_gpu, dst_gpu);
  return {in_one_node(src_gpu, dst_gpu) ? bandwidth * nvlink_efficiency_ : bandwidth, latency};
}

std::pair<double, double> RouteTable::ring_bandwidth_and_latency(const std::vector<int>& ring) {
  if (frozen_)
    if (const auto known = ring_views_.find(ring); known != ring_views_.end()) return known->second;
  double bandwidth = std::numeric_limits<double>::infinity(), latency = 0;
  const std::size_t n = ring.size();
  for (std::size_t i = 0; i < n; ++i) {
    const auto [bw, lat] = collective_bandwidth_and_latency(ring[i], ring[(i + 1) % n]);
    bandwidth = std::min(bandwidth, bw);
    latency = std::max(latency, lat);
  }
  if (frozen_) ring_views_.emplace(ring, std::pair{bandwidth, latency});
  return {bandwidth, latency};
}

}  // namespace pipegrid::sim
