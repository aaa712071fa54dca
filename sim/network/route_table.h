// The routes between the job's GPUs: each pair's links and latency — from SimGrid, or from pipegrid's
// copy of its Dijkstra search (--route-search) — the links a flow or an analytic hop on it is
// accounted on where the rails fold, the platform's rails, and the α-β views of a route that analytic
// collectives take. Routes exist once the platform is sealed (from inside actors).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <simgrid/s4u/Host.hpp>
#include <utility>
#include <vector>

#include "sim/network/fold_map.h"
#include "sim/network/link_ledger.h"
#include "sim/network/rails.h"
#include "sim/platform/dijkstra_routes.h"

namespace pipegrid::sim {

struct RouteEntry {
  std::vector<int> links;      // indices into the ledger's links
  std::vector<int> accounted;  // those a flow on it is accounted on: all but the mirror links
  int mirror_mismatch = -1;    // a mirror link it crosses where its rail-0 image does not
  // Those an analytic collective's hop over it is accounted on: all but its analytic mirrors; and a
  // link of a mirror's account it may not reach.
  std::vector<int> analytic_accounted;
  int analytic_mismatch = -1;
  double latency = 0;
};

class RouteTable {
 public:
  RouteTable(std::vector<simgrid::s4u::Host*> gpu_hosts, LinkLedger& ledger, const FoldMap& fold);

  /// The route between two job GPUs, found once and cached; an entry stays where it is.
  const RouteEntry& entry(int src_gpu, int dst_gpu);
  const std::vector<int>& route(int src_gpu, int dst_gpu) { return entry(src_gpu, dst_gpu).links; }
  /// The route's smallest bandwidth and total latency: an α-β view for analytic collectives.
  std::pair<double, double> bottleneck_and_latency(int src_gpu, int dst_gpu);
  /// The same for a NCCL collective's hop: the bottleneck times the NVLink efficiency inside a node.
  std::pair<double, double> collective_bandwidth_and_latency(int src_gpu, int dst_gpu);
  /// A ring's narrowest hop (collective bandwidth) and its largest hop latency, each hop ring[i] →
  /// ring[i + 1], the last back to ring[0].
  std::pair<double, double> ring_bandwidth_and_latency(const std::vector<int>& ring);
  /// No simulated time will pass (the contention-free engine): each link keeps its declared bandwidth,
  /// so a ring's view is found once and kept — every replica prices the same data-parallel rings.
  void freeze_bandwidths() { frozen_ = true; }
  /// The latency a flow pays: its route's, times the network model's latency factor.
  double effective_latency(int src_gpu, int dst_gpu) { return entry(src_gpu, dst_gpu).latency * latency_factor_; }
  void set_latency_factor(double factor) { latency_factor_ = factor; }

  /// NCCL's collectives reach `efficiency` of an NVLink's bandwidth (nccl-tests' bus bandwidth):
  /// between two GPUs of one node (`node_of_gpu`, the job's GPUs) a collective's flow carries its bytes
  /// / efficiency. 1: the links' full rate.
  void set_nvlink_collective_efficiency(double efficiency, std::vector<int> node_of_gpu);
  double nvlink_efficiency() const { return nvlink_efficiency_; }
  bool in_one_node(int src_gpu, int dst_gpu) const {
    return !node_of_gpu_.empty() && node_of_gpu_[src_gpu] == node_of_gpu_[dst_gpu];
  }

  /// Lets collectives between nodes run one ring per rail (rails.h): every GPU of the platform, the
  /// job's first, and each one's node. Only when every route the rails may need exists.
  void use_rails(std::vector<simgrid::s4u::Host*> platform_gpu_hosts, std::vector<int> node_of_gpu);
  Rails* rails() { return rails_.get(); }

  /// Routes from the GPUs marked in `searched` found with `routes` instead of SimGrid, every other one
  /// checked against it (an internal error naming --route-search simgrid where they differ).
  /// stop_searching forgets those routes (the fold declined: SimGrid will route every flow).
  void search(std::shared_ptr<const platform::DijkstraRoutes> routes, std::vector<char> searched);
  void stop_searching();
  std::uint64_t searched_routes() const { return searched_routes_; }
  std::uint64_t checked_routes() const { return checked_routes_; }

  /// The fold is set: the routes found so far skip their mirror links from now on.
  void account_folded();

 private:
  // The route's links less those that mirror rail 0's, which must lie where rail 0's route has them.
  void set_accounted(int src_gpu, int dst_gpu, RouteEntry& route);
  void set_analytic_accounted(int src_gpu, int dst_gpu, RouteEntry& route);
  // The route as the search's graph finds it: links and latency, summed as SimGrid sums them.
  std::pair<std::vector<simgrid::s4u::Link*>, double> searched_route(int src_gpu, int dst_gpu) const;

  std::vector<simgrid::s4u::Host*> hosts_;
  LinkLedger& ledger_;
  const FoldMap& fold_;
  // By source GPU: each GPU talks to a handful of peers, so a short scan beats hashing.
  std::vector<std::vector<std::pair<int, std::unique_ptr<RouteEntry>>>> routes_;
  bool frozen_ = false;
  std::map<std::vector<int>, std::pair<double, double>> ring_views_;  // when frozen
  double latency_factor_ = 1;
  double nvlink_efficiency_ = 1;
  std::vector<int> node_of_gpu_;
  std::unique_ptr<Rails> rails_;
  std::shared_ptr<const platform::DijkstraRoutes> search_;
  std::vector<char> searched_;  // per job GPU: its routes are search_'s
  std::uint64_t searched_routes_ = 0, checked_routes_ = 0;
};

}  // namespace pipegrid::sim
