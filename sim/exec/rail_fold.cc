#include "sim/exec/rail_fold.h"

#include <algorithm>
#include <fmt/format.h>
#include <simgrid/s4u/Link.hpp>

#include "sim/network/collectives.h"
#include "sim/exec/needed_routes.h"
#include "sim/exec/tp_lockstep.h"

namespace pipegrid::sim {

namespace {

namespace sg4 = simgrid::s4u;

// Whether two links are alike for SimGrid's sharing: bandwidth, latency and policy.
bool alike(const sg4::Link* a, const sg4::Link* b) {
  return a->get_bandwidth() == b->get_bandwidth() && a->get_latency() == b->get_latency() &&
         a->get_sharing_policy() == b->get_sharing_policy();
}

// The analytic mirrors of RailFold::analytic_mirror_of, from the routes the job needs (`routes`:
// needed_routes' first `needed` of them, then the rails' further ones).
void find_analytic_mirrors(const SimulationInput& input, Network& network,
                           const std::vector<NeededRoute>& routes, std::size_t needed, RailFold& fold) {
  const Placement& placement = input.placement;
  const ParallelSizes& sizes = placement.sizes();
  fold.analytic_mirror_of.assign(network.links().size(), -1);
  if (input.options.tp_comm != CommFidelity::Analytic || input.costs.routing().enabled()) return;
  // How many routes that carry something cross each link: the rails' further routes inside a TP
  // group (between members of one node, to find the rails) carry nothing.
  std::vector<int> crossings(network.links().size(), 0);
  for (std::size_t r = 0; r < routes.size(); ++r) {
    const NeededRoute& route = routes[r];
    if (r >= needed && fold.rail0_gpu[route.src_gpu] == fold.rail0_gpu[route.dst_gpu]) continue;
    for (int link : network.routes().route(route.src_gpu, route.dst_gpu)) {
      crossings.resize(std::max(crossings.size(), network.links().size()), 0);
      ++crossings[link];
    }
  }
  const std::vector<LinkUsage>& links = network.links();
  fold.analytic_mirror_of.resize(links.size(), -1);
  fold.mirror_of.resize(links.size(), -1);
  const auto alone = [&](int link) {
    return static_cast<std::size_t>(link) < crossings.size() && crossings[link] == 1 && fold.mirror_of[link] == -1;
  };
  for (int r = 0; r < sizes.pp; ++r)
    for (int d = 0; d < sizes.dp; ++d)
      for (int c = 0; c < sizes.cp; ++c) {
        std::vector<int> group;
        for (int t = 0; t < sizes.tp; ++t) group.push_back(placement.gpu({t, d, r, c}));
        const int n = static_cast<int>(group.size());
        // Each member's hop goes to the next member, as analytic_ring_hops gives it to gpu_compute.
        bool one_ring = true;
        for (int k = 0; k < n && one_ring; ++k) {
          const AnalyticRingHops hops = analytic_ring_hops(network, group, k, RingPhases::AllReduce);
          one_ring = !hops.split && hops.next.size() == 1 && hops.next[0] == group[(k + 1) % n];
        }
        if (!one_ring) continue;
        const std::vector<int> hop0 = network.routes().route(group[0], group[1]);
        for (int k = 1; k < n; ++k) {
          const std::vector<int>& hop = network.routes().route(group[k], group[(k + 1) % n]);
          if (hop.size() != hop0.size()) continue;
          bool mirrored = false;
          for (std::size_t i = 0; i < hop.size(); ++i)
            if (hop[i] != hop0[i] && alone(hop[i]) && alone(hop0[i]) && alike(links[hop[i]].link, links[hop0[i]].link)) {
              fold.analytic_mirror_of[hop[i]] = hop0[i];
              mirrored = true;
            }
          if (mirrored) fold.analytic_hops.push_back({group[k], group[(k + 1) % n], group[0], group[1]});
        }
      }
}

}  // namespace

std::optional<RailFold> rail_fold_layout(const SimulationInput& input, const JobPlan& plan, const GpuHosts& gpus,
                                        std::string& why_not) {
  const Placement& placement = plan.placement;
  const ParallelSizes& sizes = placement.sizes();
  if (!plan.options.rail_fold) return why_not = "--rail-fold off", std::nullopt;
  if (sizes.tp < 2) return why_not = "TP is 1: one rail", std::nullopt;
  if (input.time_varying_platform) return why_not = "the platform has a profile", std::nullopt;
  for (const std::vector<int>& actor : rank_actors(plan, gpus))
    if (static_cast<int>(actor.size()) != sizes.tp)
      return why_not = fmt::format("GPU {}'s TP group does not run in lockstep (tp_lockstep.h)", actor.front()),
             std::nullopt;

  RailFold fold{std::vector<int>(placement.num_gpus()), std::vector<int>(placement.num_gpus()), sizes.tp, {}, {}, {}};
  for (int g = 0; g < placement.num_gpus(); ++g) {
    GpuCoordinates c = placement.coordinates(g);
    fold.rail_of_gpu[g] = c.tp;
    c.tp = 0;
    fold.rail0_gpu[g] = placement.gpu(c);
  }
  return fold;
}

bool rails_are_images(const SimulationInput& input, Network& network, RailFold& fold, std::string& why_not) {
  const Placement& placement = input.placement;
  const ParallelSizes& sizes = placement.sizes();
  std::vector<NeededRoute> routes = needed_routes(input);
  const std::size_t needed = routes.size();
  if (network.routes().rails()) {
    std::vector<NeededRoute> more = rail_routes(input);
    routes.insert(routes.end(), more.begin(), more.end());
  }
  // Per link: the rail whose flows cross it, and per rail the image of each of rail 0's links.
  const std::vector<LinkUsage>& links = network.links();
  std::vector<int> owner;
  std::vector<std::vector<int>> image(sizes.tp), preimage(sizes.tp);
  std::vector<char> analytic;  // links an analytic all-reduce inside a TP group accounts on
  for (const NeededRoute& route : routes) {
    // Inside a TP group only the analytic all-reduces read routes (lockstep has no TP flows): no flow.
    if (fold.rail0_gpu[route.src_gpu] == fold.rail0_gpu[route.dst_gpu]) {
      for (int link : network.routes().route(route.src_gpu, route.dst_gpu)) {
        analytic.resize(std::max(analytic.size(), links.size()), 0);
        analytic[link] = 1;
      }
      continue;
    }
    const int rail = fold.rail_of_gpu[route.src_gpu];
    if (fold.rail_of_gpu[route.dst_gpu] != rail)
      return why_not = fmt::format("{} joins GPUs of TP indices {} and {}", route.why, rail,
                                   fold.rail_of_gpu[route.dst_gpu]),
             false;
    // Each route's links stay where they are while more routes are found (Network::route_entry).
    const std::vector<int>& own = network.routes().route(route.src_gpu, route.dst_gpu);
    const std::vector<int>& rail0 = network.routes().route(fold.rail0_gpu[route.src_gpu], fold.rail0_gpu[route.dst_gpu]);
    if (own.size() != rail0.size())
      return why_not = fmt::format("the route from GPU {} to GPU {} has {} links, its rail-0 image {}", route.src_gpu,
                                   route.dst_gpu, own.size(), rail0.size()),
             false;
    // network.route may have found new links: the tables grow with them.
    owner.resize(links.size(), -1);
    for (auto* table : {&image[rail], &preimage[rail]}) table->resize(links.size(), -1);
    for (std::size_t i = 0; i < own.size(); ++i) {
      const int link = own[i], link0 = rail0[i];
      const auto name = [&](int l) { return links[l].link->get_name(); };
      if (!alike(links[link].link, links[link0].link))
        return why_not = fmt::format("link {} (rail {}) differs from its rail-0 image {}", name(link), rail, name(link0)),
               false;
      if (owner[link] != -1 && owner[link] != rail)
        return why_not = fmt::format("link {} carries the flows of rails {} and {}", name(link), owner[link], rail),
               false;
      owner[link] = rail;
      if ((image[rail][link0] != -1 && image[rail][link0] != link) ||
          (preimage[rail][link] != -1 && preimage[rail][link] != link0))
        return why_not = fmt::format("rail {}'s links are no image of rail 0's (at link {})", rail, name(link)),
               false;
      image[rail][link0] = link;
      preimage[rail][link] = link0;
    }
  }
  // Collectives between groups accounted analytically reach the rails' links outside the flows.
  fold.mirror_of.assign(links.size(), -1);
  if (input.options.dp_comm != CommFidelity::Analytic) {
    analytic.resize(links.size(), 0);
    for (int rail = 1; rail < sizes.tp; ++rail)
      for (std::size_t link = 0; link < preimage[rail].size(); ++link)
        if (const int link0 = preimage[rail][link]; link0 != -1 && !analytic[link] && !analytic[link0])
          fold.mirror_of[link] = link0;
  }
  find_analytic_mirrors(input, network, routes, needed, fold);
  return true;
}

}  // namespace pipegrid::sim
